// Saved custom regions (`geo=region:<name>`) as both accounts stores hold them: a name per account
// and the members as resolved when the region was saved, stored parsed (the level and a JSON array
// of the FIPS codes, so a request naming the region reads keys, never text to parse again); how a
// row's columns are read and written; and the transactions that keep names unique and the count
// bounded (programs of RegionStep, see program.ts). Every step names the account: another
// account's region reads as absent.
import { isGeoType } from '../../../domain/geo/keys.js';
import type { RegionMembers } from '../../../domain/geo/region-specifier.js';
import { lock, step, type LockStep, type Program, type Statement } from './program.js';

export interface RegionRow {
  id: string;
  account_id: string;
  name: string;
  /** The members' keys as saved: one level and its FIPS codes, sorted and without duplicates. */
  members: RegionMembers;
  created_at: number;
  updated_at: number;
}

/**
 * The row as both databases return it: `level` (`county`) and `member_fips`, a JSON array of the
 * FIPS codes (`["06001","06013"]`): TEXT holding JSON on SQLite, read as text; JSONB on
 * PostgreSQL, read by the driver as the array.
 */
export interface RegionColumns extends Omit<RegionRow, 'members'> {
  level: string;
  member_fips: string | string[];
}

export const REGION_COLUMNS = 'id, account_id, name, level, member_fips, created_at, updated_at';

/** A row as read, its members as the domain's RegionMembers (a JSON decode, no grammar). */
export function regionRowOf({ level, member_fips, ...row }: RegionColumns): RegionRow {
  // The level was written from a resolved geography's type (or by the migration from a saved key).
  if (!isGeoType(level)) throw new Error(`saved region ${row.id} has an unknown level`);
  const fips = typeof member_fips === 'string' ? (JSON.parse(member_fips) as string[]) : member_fips;
  return { ...row, members: { level, fips } };
}

/** The members as the two columns are written (the array as JSON text; PostgreSQL casts it to JSONB). */
export const memberColumns = (m: RegionMembers): { level: string; member_fips: string } => ({
  level: m.level,
  member_fips: JSON.stringify(m.fips),
});

export type SaveRegionOutcome = { kind: 'ok'; row: RegionRow } | { kind: 'exists' } | { kind: 'limit'; limit: number };
export type RenameRegionOutcome = { kind: 'ok'; row: RegionRow } | { kind: 'exists' } | { kind: 'not-found' };

export interface NewRegion {
  name: string;
  members: RegionMembers;
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
