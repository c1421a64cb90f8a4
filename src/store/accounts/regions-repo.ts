// Saved custom regions (`geo=region:<name>`): a name per account and the members' geography keys,
// as resolved when the region was saved. Every statement filters by the account: another
// account's region reads as absent.
import { stmt, type Db } from './db.js';
import { newId } from './ids.js';

export interface RegionRow {
  id: string;
  account_id: string;
  name: string;
  /** The members' geography keys, `;`-separated (`county:06001;county:06013`). */
  members: string;
  created_at: number;
  updated_at: number;
}

export type SaveRegionOutcome = { kind: 'ok'; row: RegionRow } | { kind: 'exists' } | { kind: 'limit'; limit: number };
export type RenameRegionOutcome = { kind: 'ok'; row: RegionRow } | { kind: 'exists' } | { kind: 'not-found' };

export const REGION_COLUMNS = 'id, account_id, name, members, created_at, updated_at';

export function listRegions(db: Db, accountId: string): RegionRow[] {
  return stmt(db, `SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = ? ORDER BY name`).all(accountId) as RegionRow[];
}

export function getRegion(db: Db, accountId: string, name: string): RegionRow | undefined {
  return stmt(db, `SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = ? AND name = ?`).get(accountId, name) as
    RegionRow | undefined;
}

export function createRegion(
  db: Db,
  accountId: string,
  r: { name: string; members: string; now: number },
  maxRegions: number,
): SaveRegionOutcome {
  return db.transaction((): SaveRegionOutcome => {
    if (getRegion(db, accountId, r.name)) return { kind: 'exists' };
    const n = (stmt(db, 'SELECT count(*) AS n FROM saved_regions WHERE account_id = ?').get(accountId) as { n: number }).n;
    if (n >= maxRegions) return { kind: 'limit', limit: maxRegions };
    const id = newId('reg');
    stmt(db, 'INSERT INTO saved_regions (id, account_id, name, members, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      id,
      accountId,
      r.name,
      r.members,
      r.now,
      r.now,
    );
    return { kind: 'ok', row: getRegion(db, accountId, r.name)! };
  })();
}

export function renameRegion(db: Db, accountId: string, name: string, newName: string, now: number): RenameRegionOutcome {
  return db.transaction((): RenameRegionOutcome => {
    const row = getRegion(db, accountId, name);
    if (!row) return { kind: 'not-found' };
    if (newName === name) return { kind: 'ok', row };
    if (getRegion(db, accountId, newName)) return { kind: 'exists' };
    stmt(db, 'UPDATE saved_regions SET name = ?, updated_at = ? WHERE id = ? AND account_id = ?').run(newName, now, row.id, accountId);
    return { kind: 'ok', row: getRegion(db, accountId, newName)! };
  })();
}

export function deleteRegion(db: Db, accountId: string, name: string): boolean {
  return stmt(db, 'DELETE FROM saved_regions WHERE account_id = ? AND name = ?').run(accountId, name).changes === 1;
}
