// Dashboard sign-in sessions. The cookie carries a random 256-bit id; only its SHA-256 is stored,
// so a copy of the database cannot be replayed as a cookie (the same rule as API keys).
import { createHash, randomBytes } from 'node:crypto';
import { stmt, type Db } from './db.js';

export interface SessionRow {
  id_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
/** What is stored for a cookie value (both store implementations). */
export const sessionIdHash = hashOf;

/** A new session's cookie value, its stored hash and its CSRF secret. */
export function newSessionSecrets(): { id: string; idHash: string; csrfToken: string } {
  const id = randomBytes(32).toString('base64url');
  return { id, idHash: hashOf(id), csrfToken: randomBytes(24).toString('base64url') };
}

export function createSession(db: Db, accountId: string, now: number, ttlMs: number): { id: string; row: SessionRow } {
  const { id, idHash, csrfToken } = newSessionSecrets();
  const row: SessionRow = {
    id_hash: idHash,
    account_id: accountId,
    csrf_token: csrfToken,
    created_at: now,
    expires_at: now + ttlMs,
  };
  stmt(db, 'INSERT INTO dashboard_sessions (id_hash, account_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)').run(
    row.id_hash,
    row.account_id,
    row.csrf_token,
    row.created_at,
    row.expires_at,
  );
  return { id, row };
}

/** The live session for a cookie value; expired rows read as absent. */
export function findSession(db: Db, id: string, now: number): SessionRow | undefined {
  const row = stmt(db, 'SELECT * FROM dashboard_sessions WHERE id_hash = ?').get(hashOf(id)) as SessionRow | undefined;
  return row && row.expires_at > now ? row : undefined;
}

/** Sliding expiry: an active user stays signed in; written at most once a minute per session. */
export function extendSession(db: Db, row: SessionRow, now: number, ttlMs: number): void {
  if (now + ttlMs - row.expires_at < 60_000) return;
  stmt(db, 'UPDATE dashboard_sessions SET expires_at = ? WHERE id_hash = ?').run(now + ttlMs, row.id_hash);
}

export function deleteSession(db: Db, id: string): void {
  stmt(db, 'DELETE FROM dashboard_sessions WHERE id_hash = ?').run(hashOf(id));
}

export function deleteAccountSessions(db: Db, accountId: string): number {
  return stmt(db, 'DELETE FROM dashboard_sessions WHERE account_id = ?').run(accountId).changes;
}

export function deleteExpiredSessions(db: Db, now: number): number {
  return stmt(db, 'DELETE FROM dashboard_sessions WHERE expires_at <= ?').run(now).changes;
}
