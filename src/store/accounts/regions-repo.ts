// Saved custom regions on SQLite: the statements for the shared region programs
// (shared/regions.ts, which also holds the row type and the rules). Every statement filters by
// the account: another account's region reads as absent.
import { stmt, type Db } from './db.js';
import { newId } from './ids.js';
import { runSync, type Statement } from './shared/program.js';
import {
  createRegionProgram,
  memberColumns,
  REGION_COLUMNS,
  regionRowOf,
  renameRegionProgram,
  type RegionColumns,
  type NewRegion,
  type RegionRow,
  type RegionStep,
  type RenameRegionOutcome,
  type SaveRegionOutcome,
} from './shared/regions.js';

export { REGION_COLUMNS, type RegionRow, type RenameRegionOutcome, type SaveRegionOutcome } from './shared/regions.js';

export function listRegions(db: Db, accountId: string): RegionRow[] {
  const rows = stmt(db, `SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = ? ORDER BY name`).all(accountId);
  return (rows as RegionColumns[]).map(regionRowOf);
}

export function getRegion(db: Db, accountId: string, name: string): RegionRow | undefined {
  const row = stmt(db, `SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = ? AND name = ?`).get(accountId, name);
  return row === undefined ? undefined : regionRowOf(row as RegionColumns);
}

/** SQLite's statement for each step of the shared region programs. */
function regionStep(db: Db, s: Statement<RegionStep>): unknown {
  switch (s.op) {
    case 'getRegion':
      return getRegion(db, s.accountId, s.name);
    case 'countRegions':
      return (stmt(db, 'SELECT count(*) AS n FROM saved_regions WHERE account_id = ?').get(s.accountId) as { n: number }).n;
    case 'insertRegion': {
      const { level, member_fips } = memberColumns(s.r.members);
      stmt(
        db,
        'INSERT INTO saved_regions (id, account_id, name, level, member_fips, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(newId('reg'), s.accountId, s.r.name, level, member_fips, s.r.now, s.r.now);
      return getRegion(db, s.accountId, s.r.name);
    }
    case 'renameRegion':
      stmt(db, 'UPDATE saved_regions SET name = ?, updated_at = ? WHERE id = ? AND account_id = ?').run(
        s.newName,
        s.now,
        s.id,
        s.accountId,
      );
      return getRegion(db, s.accountId, s.newName);
  }
}

const inTransaction = <T>(db: Db, program: Generator<RegionStep, T, unknown>): T =>
  db.transaction(() => runSync(program, (s) => regionStep(db, s))).immediate();

export function createRegion(db: Db, accountId: string, r: NewRegion, maxRegions: number): SaveRegionOutcome {
  return inTransaction(db, createRegionProgram(accountId, r, maxRegions));
}

export function renameRegion(db: Db, accountId: string, name: string, newName: string, now: number): RenameRegionOutcome {
  return inTransaction(db, renameRegionProgram(accountId, name, newName, now));
}

export function deleteRegion(db: Db, accountId: string, name: string): boolean {
  return stmt(db, 'DELETE FROM saved_regions WHERE account_id = ? AND name = ?').run(accountId, name).changes === 1;
}
