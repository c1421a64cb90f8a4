// Saved custom regions (`geo=region:<name>`) as both accounts stores hold them: a name per account
// and the members' geography keys as resolved when the region was saved, and the transactions
// that keep names unique and the count bounded (programs of RegionStep, see program.ts). Every
// step names the account: another account's region reads as absent.
import { lock, step, type LockStep, type Program, type Statement } from './program.js';

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

export interface NewRegion {
  name: string;
  members: string;
  now: number;
}

export type RegionStep =
  | LockStep
  | { op: 'getRegion'; accountId: string; name: string }
  | { op: 'countRegions'; accountId: string }
  /** Returns the row inserted. */
  | { op: 'insertRegion'; accountId: string; r: NewRegion }
  /** Returns the row renamed. */
  | { op: 'renameRegion'; accountId: string; id: string; newName: string; now: number };

const regionStep = <T>(s: RegionStep) => step<RegionStep, T>(s);
const getRegion = (accountId: string, name: string) => regionStep<RegionRow | undefined>({ op: 'getRegion', accountId, name });
/** Check and write under one lock, so parallel saves (any process or replica) keep names unique and the count bounded. */
const regionsLock = (accountId: string) => lock(`regions:${accountId}`);

export function* createRegionProgram(accountId: string, r: NewRegion, maxRegions: number): Program<RegionStep, SaveRegionOutcome> {
  yield* regionsLock(accountId);
  if (yield* getRegion(accountId, r.name)) return { kind: 'exists' };
  if ((yield* regionStep<number>({ op: 'countRegions', accountId })) >= maxRegions) return { kind: 'limit', limit: maxRegions };
  return { kind: 'ok', row: yield* regionStep<RegionRow>({ op: 'insertRegion', accountId, r }) };
}

export function* renameRegionProgram(
  accountId: string,
  name: string,
  newName: string,
  now: number,
): Program<RegionStep, RenameRegionOutcome> {
  yield* regionsLock(accountId);
  const row = yield* getRegion(accountId, name);
  if (!row) return { kind: 'not-found' };
  if (newName === name) return { kind: 'ok', row };
  if (yield* getRegion(accountId, newName)) return { kind: 'exists' };
  return { kind: 'ok', row: yield* regionStep<RegionRow>({ op: 'renameRegion', accountId, id: row.id, newName, now }) };
}

const REGION_OPS: ReadonlySet<string> = new Set<RegionStep['op']>(['getRegion', 'countRegions', 'insertRegion', 'renameRegion']);
/** Whether a step of a program is one of the region statements. */
export const isRegionStep = (s: { op: string }): s is Statement<RegionStep> => REGION_OPS.has(s.op);
