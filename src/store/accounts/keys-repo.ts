// API key rows on SQLite. The plaintext key never touches this module's storage: callers get it
// back from createKey/rotateKey exactly once and only its SHA-256 is written. The transactions'
// logic is shared with PostgreSQL (shared/keys.ts); this file holds SQLite's statements for it.
import { displayPrefix, generateApiKey, hashApiKey } from '../../domain/keys.js';
import { stmt, type Db } from './db.js';
import { newId } from './ids.js';
import { runSync, type Statement } from './shared/program.js';
import {
  createKeyProgram,
  KEY_COLUMNS,
  LAST_USED_RESOLUTION_MS,
  revokeKeyProgram,
  rotateKeyProgram,
  type KeyLookup,
  type KeyRow,
  type KeyStep,
  type NewKey,
  type RotateOutcome,
} from './shared/keys.js';

export { KeyLimitError, LAST_USED_RESOLUTION_MS, type KeyLookup, type KeyRow, type RotateOutcome } from './shared/keys.js';

function insertKey(db: Db, accountId: string, name: string, now: number): NewKey {
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

/** SQLite's statement for each step of the shared key programs. */
export function keyStep(db: Db, s: Statement<KeyStep>): unknown {
  switch (s.op) {
    case 'countActiveKeys':
      return countActiveKeys(db, s.accountId);
    case 'insertKey':
      return insertKey(db, s.accountId, s.name, s.now);
    case 'getKey':
      return getKey(db, s.accountId, s.keyId);
    case 'revokeKey':
      return (
        stmt(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL').run(
          s.now,
          s.keyId,
          s.accountId,
        ).changes === 1
      );
    case 'replaceKey':
      stmt(db, 'UPDATE api_keys SET revoked_at = ?, replaced_by = ? WHERE id = ?').run(s.now, s.replacedBy, s.keyId);
      return undefined;
  }
}

const inTransaction = <T>(db: Db, program: Generator<KeyStep, T, unknown>): T =>
  db.transaction(() => runSync(program, (s) => keyStep(db, s))).immediate();

export function countActiveKeys(db: Db, accountId: string): number {
  return (stmt(db, 'SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL').get(accountId) as { n: number }).n;
}

export function createKey(db: Db, accountId: string, name: string, maxActive: number, now: number): NewKey {
  return inTransaction(db, createKeyProgram(accountId, name, maxActive, now));
}

export function listKeys(db: Db, accountId: string): KeyRow[] {
  return stmt(db, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`).all(accountId) as KeyRow[];
}

/** Scoped by account: another account's key id is indistinguishable from a missing one. */
export function getKey(db: Db, accountId: string, keyId: string): KeyRow | undefined {
  return stmt(db, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ?`).get(keyId, accountId) as KeyRow | undefined;
}

export function revokeKey(db: Db, accountId: string, keyId: string, now: number): { row: KeyRow; revoked: boolean } | undefined {
  return inTransaction(db, revokeKeyProgram(accountId, keyId, now));
}

export function rotateKey(db: Db, accountId: string, keyId: string, now: number): RotateOutcome {
  return inTransaction(db, rotateKeyProgram(accountId, keyId, now));
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

export function touchKey(db: Db, keyId: string, now: number): void {
  stmt(db, 'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(
    now,
    keyId,
    now - LAST_USED_RESOLUTION_MS,
  );
}
