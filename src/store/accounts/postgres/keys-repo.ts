// API key rows on PostgreSQL: the statements for the shared key programs (../shared/keys.ts) and
// the single-statement operations. Only the key's SHA-256 is written.
import { displayPrefix, generateApiKey, hashApiKey } from '../../../domain/keys.js';
import { newId } from '../ids.js';
import { KEY_COLUMNS, LAST_USED_RESOLUTION_MS, type KeyLookup, type KeyRow, type KeyStep, type NewKey } from '../shared/keys.js';
import type { Statement } from '../shared/program.js';
import type { Pg } from './connection.js';

export function getKey(c: Pg, accountId: string, keyId: string) {
  return c.one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2`, [keyId, accountId]);
}

export async function countActiveKeys(c: Pg, accountId: string): Promise<number> {
  return (
    (await c.one<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [accountId]))?.n ?? 0
  );
}

export async function listKeys(c: Pg, accountId: string): Promise<KeyRow[]> {
  return (await c.q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, [accountId])).rows;
}

export function renameKey(c: Pg, accountId: string, keyId: string, name: string) {
  return c.one<KeyRow>(`UPDATE api_keys SET name = $1 WHERE id = $2 AND account_id = $3 RETURNING ${KEY_COLUMNS}`, [
    name,
    keyId,
    accountId,
  ]);
}

export function findKeyOwner(c: Pg, ref: { id: string } | { hash: string }) {
  return 'hash' in ref
    ? c.one<{ id: string; account_id: string }>('SELECT id, account_id FROM api_keys WHERE key_hash = $1', [ref.hash])
    : c.one<{ id: string; account_id: string }>('SELECT id, account_id FROM api_keys WHERE id = $1', [ref.id]);
}

export function lookupKeyHash(c: Pg, keyHash: string) {
  return c.one<KeyLookup>(
    `SELECT k.id AS key_id, k.account_id, a.plan, k.revoked_at, k.last_used_at, a.created_at AS account_created_at, a.deleted_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
    [keyHash],
  );
}

export async function touchKey(c: Pg, keyId: string, now: number): Promise<void> {
  await c.q('UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [
    now,
    keyId,
    now - LAST_USED_RESOLUTION_MS,
  ]);
}

async function insertKey(c: Pg, accountId: string, name: string, now: number): Promise<NewKey> {
  const rawKey = generateApiKey();
  const row = await c.one<KeyRow>(
    `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${KEY_COLUMNS}`,
    [newId('key'), accountId, name, hashApiKey(rawKey), displayPrefix(rawKey), now],
  );
  return { row: row!, rawKey };
}

/** PostgreSQL's statement for each step of the shared key programs. */
export async function keyStep(c: Pg, s: Statement<KeyStep>): Promise<unknown> {
  switch (s.op) {
    case 'countActiveKeys':
      return countActiveKeys(c, s.accountId);
    case 'insertKey':
      return insertKey(c, s.accountId, s.name, s.now);
    case 'getKey':
      return getKey(c, s.accountId, s.keyId);
    case 'revokeKey':
      return (
        (
          await c.q('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL', [
            s.now,
            s.keyId,
            s.accountId,
          ])
        ).rowCount === 1
      );
    case 'replaceKey':
      await c.q('UPDATE api_keys SET revoked_at = $1, replaced_by = $2 WHERE id = $3', [s.now, s.replacedBy, s.keyId]);
      return undefined;
  }
}
