// Saved custom regions on PostgreSQL: the statements for the shared region programs
// (../shared/regions.ts). Every statement filters by the account.
import { newId } from '../ids.js';
import { memberColumns, REGION_COLUMNS, regionRowOf, type RegionColumns, type RegionRow, type RegionStep } from '../shared/regions.js';
import type { Statement } from '../shared/program.js';
import type { Pg } from './connection.js';

export async function listRegions(c: Pg, accountId: string): Promise<RegionRow[]> {
  const { rows } = await c.q<RegionColumns>(`SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = $1 ORDER BY name`, [accountId]);
  return rows.map(regionRowOf);
}

/** One row of a statement returning the region's columns, read as a RegionRow. */
async function oneRegion(c: Pg, sql: string, params: unknown[]): Promise<RegionRow | undefined> {
  const row = await c.one<RegionColumns>(sql, params);
  return row && regionRowOf(row);
}

export function getRegion(c: Pg, accountId: string, name: string) {
  return oneRegion(c, `SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = $1 AND name = $2`, [accountId, name]);
}

export async function deleteRegion(c: Pg, accountId: string, name: string): Promise<boolean> {
  return (await c.q('DELETE FROM saved_regions WHERE account_id = $1 AND name = $2', [accountId, name])).rowCount === 1;
}

/** PostgreSQL's statement for each step of the shared region programs. */
export async function regionStep(c: Pg, s: Statement<RegionStep>): Promise<unknown> {
  switch (s.op) {
    case 'getRegion':
      return getRegion(c, s.accountId, s.name);
    case 'countRegions':
      return (await c.one<{ n: number }>('SELECT count(*)::int AS n FROM saved_regions WHERE account_id = $1', [s.accountId]))?.n ?? 0;
    case 'insertRegion': {
      const { level, member_fips } = memberColumns(s.r.members);
      return oneRegion(
        c,
        `INSERT INTO saved_regions (id, account_id, name, level, member_fips, created_at, updated_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6) RETURNING ${REGION_COLUMNS}`,
        [newId('reg'), s.accountId, s.r.name, level, member_fips, s.r.now],
      );
    }
    case 'renameRegion':
      return oneRegion(
        c,
        `UPDATE saved_regions SET name = $1, updated_at = $2 WHERE id = $3 AND account_id = $4 RETURNING ${REGION_COLUMNS}`,
        [s.newName, s.now, s.id, s.accountId],
      );
  }
}
