// API keys as both accounts stores hold them: the row types and the transactions on keys
// (programs of KeyStep, see program.ts). The plaintext key is returned once by insertKey and only
// its SHA-256 is stored.
import { lock, step, type LockStep, type Program, type Statement } from './program.js';

export interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  display_prefix: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
  replaced_by: string | null;
}

/** Columns safe to hand out: everything but the hash. */
export const KEY_COLUMNS = 'id, account_id, name, display_prefix, created_at, revoked_at, last_used_at, replaced_by';

export interface KeyLookup {
  key_id: string;
  account_id: string;
  plan: string;
  revoked_at: number | null;
  last_used_at: number | null;
  account_created_at: number;
  deleted_at: number | null;
}

export class KeyLimitError extends Error {
  constructor(readonly limit: number) {
    super(`key limit ${limit} reached`);
  }
}

export type RotateOutcome = { kind: 'ok'; old: KeyRow; row: KeyRow; rawKey: string } | { kind: 'not-found' } | { kind: 'revoked' };

/** Writes at most once a minute per key: last-used is a hint, not worth a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface NewKey {
  row: KeyRow;
  rawKey: string;
}

/** The statements on api_keys that the programs below are made of. */
export type KeyStep =
  | LockStep
  | { op: 'countActiveKeys'; accountId: string }
  | { op: 'insertKey'; accountId: string; name: string; now: number }
  | { op: 'getKey'; accountId: string; keyId: string }
  /** Revoke if not revoked yet; the result is whether this call revoked it. */
  | { op: 'revokeKey'; accountId: string; keyId: string; now: number }
  | { op: 'replaceKey'; keyId: string; replacedBy: string; now: number };

const keyStep = <T>(s: KeyStep) => step<KeyStep, T>(s);
/** Every transaction that counts, revokes or replaces an account's keys takes this lock first. */
const keysLock = (accountId: string) => lock(`keys:${accountId}`);

/** Count and insert under one lock, so parallel creates (any process or replica) cannot exceed the limit. */
export function* createKeyProgram(accountId: string, name: string, maxActive: number, now: number): Program<KeyStep, NewKey> {
  yield* keysLock(accountId);
  if ((yield* keyStep<number>({ op: 'countActiveKeys', accountId })) >= maxActive) throw new KeyLimitError(maxActive);
  return yield* keyStep<NewKey>({ op: 'insertKey', accountId, name, now });
}

/** The row after the call; `revoked` false when it was already revoked (idempotent). */
export function* revokeKeyProgram(
  accountId: string,
  keyId: string,
  now: number,
): Program<KeyStep, { row: KeyRow; revoked: boolean } | undefined> {
  // Under the keys lock, so a revocation and a rotation of one key (any replica) take turns.
  yield* keysLock(accountId);
  const revoked = yield* keyStep<boolean>({ op: 'revokeKey', accountId, keyId, now });
  const row = yield* keyStep<KeyRow | undefined>({ op: 'getKey', accountId, keyId });
  return row ? { row, revoked } : undefined;
}

/** Old key revoked and new key inserted in one transaction: there is no instant with neither. */
export function* rotateKeyProgram(accountId: string, keyId: string, now: number): Program<KeyStep, RotateOutcome> {
  yield* keysLock(accountId);
  const old = yield* keyStep<KeyRow | undefined>({ op: 'getKey', accountId, keyId });
  if (!old) return { kind: 'not-found' };
  if (old.revoked_at !== null) return { kind: 'revoked' };
  const created = yield* keyStep<NewKey>({ op: 'insertKey', accountId, name: old.name, now });
  yield* keyStep<void>({ op: 'replaceKey', keyId, replacedBy: created.row.id, now });
  return { kind: 'ok', old: (yield* keyStep<KeyRow | undefined>({ op: 'getKey', accountId, keyId }))!, ...created };
}

const KEY_OPS: ReadonlySet<string> = new Set<KeyStep['op']>(['countActiveKeys', 'insertKey', 'getKey', 'revokeKey', 'replaceKey']);
/** Whether a step of a mixed program (issueKeyProgram) is one of the key statements. */
export const isKeyStep = (s: { op: string }): s is Statement<KeyStep> => KEY_OPS.has(s.op);
