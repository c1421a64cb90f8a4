// API key rows. The plaintext key never touches this module's storage: callers get it back from
// createKey/rotateKey exactly once and only its SHA-256 is written.
import { displayPrefix, generateApiKey, hashApiKey } from '../../domain/keys.js';
import { stmt, type Db } from './db.js';
import { newId } from './ids.js';

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
const KEY_COLUMNS = 'id, account_id, name, display_prefix, created_at, revoked_at, last_used_at, replaced_by';

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

function insertKey(db: Db, accountId: string, name: string, now: number): { row: KeyRow; rawKey: string } {
  const rawKey = generateApiKey();
  const id = newId('key');
  stmt(db, `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
    id,
    accountId,
    name,
    hashApiKey(rawKey),
    displayPrefix(rawKey),
    now,
  );
  return { row: stmt(db, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id) as KeyRow, rawKey };
}

export function countActiveKeys(db: Db, accountId: string): number {
  return (stmt(db, 'SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL').get(accountId) as { n: number }).n;
}

/** Count and insert in one IMMEDIATE transaction so parallel creates cannot exceed the limit. */
export function createKey(db: Db, accountId: string, name: string, maxActive: number, now: number): { row: KeyRow; rawKey: string } {
  return db
    .transaction(() => {
      if (countActiveKeys(db, accountId) >= maxActive) throw new KeyLimitError(maxActive);
      return insertKey(db, accountId, name, now);
    })
    .immediate();
}

export function listKeys(db: Db, accountId: string): KeyRow[] {
  return stmt(db, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`).all(accountId) as KeyRow[];
}

/** Scoped by account: another account's key id is indistinguishable from a missing one. */
export function getKey(db: Db, accountId: string, keyId: string): KeyRow | undefined {
  return stmt(db, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ?`).get(keyId, accountId) as KeyRow | undefined;
}

/** Returns the row after the call; `revoked` false when it was already revoked (idempotent). */
export function revokeKey(db: Db, accountId: string, keyId: string, now: number): { row: KeyRow; revoked: boolean } | undefined {
  return db
    .transaction(() => {
      const r = stmt(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL').run(
        now,
        keyId,
        accountId,
      );
      const row = getKey(db, accountId, keyId);
      return row ? { row, revoked: r.changes === 1 } : undefined;
    })
    .immediate();
}

export type RotateOutcome = { kind: 'ok'; old: KeyRow; row: KeyRow; rawKey: string } | { kind: 'not-found' } | { kind: 'revoked' };

/** Old key revoked and new key inserted in one transaction: there is no instant with neither. */
export function rotateKey(db: Db, accountId: string, keyId: string, now: number): RotateOutcome {
  return db
    .transaction((): RotateOutcome => {
      const old = getKey(db, accountId, keyId);
      if (!old) return { kind: 'not-found' };
      if (old.revoked_at !== null) return { kind: 'revoked' };
      const created = insertKey(db, accountId, old.name, now);
      stmt(db, 'UPDATE api_keys SET revoked_at = ?, replaced_by = ? WHERE id = ?').run(now, created.row.id, keyId);
      return { kind: 'ok', old: getKey(db, accountId, keyId)!, ...created };
    })
    .immediate();
}

export function renameKey(db: Db, accountId: string, keyId: string, name: string): KeyRow | undefined {
  stmt(db, 'UPDATE api_keys SET name = ? WHERE id = ? AND account_id = ?').run(name, keyId, accountId);
  return getKey(db, accountId, keyId);
}

export function lookupKeyHash(db: Db, keyHash: string): KeyLookup | undefined {
  return stmt(
    db,
    `SELECT k.id AS key_id, k.account_id, a.plan, k.revoked_at, k.last_used_at,
            a.created_at AS account_created_at, a.deleted_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = ?`,
  ).get(keyHash) as KeyLookup | undefined;
}

/** Writes at most once a minute per key: last-used is a hint, not worth a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;
export function touchKey(db: Db, keyId: string, now: number): void {
  stmt(db, 'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(
    now,
    keyId,
    now - LAST_USED_RESOLUTION_MS,
  );
}
