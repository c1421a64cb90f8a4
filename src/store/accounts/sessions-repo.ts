// Dashboard sign-in sessions on SQLite (shared/sessions.ts holds the row, how a session is made
// and the expiry rules; only the cookie value's SHA-256 is stored).
import { stmt, type Db } from './db.js';
import { liveSession, newSession, sessionIdHash, sessionNeedsExtending, type SessionRow } from './shared/sessions.js';

export type { SessionRow } from './shared/sessions.js';

export function createSession(db: Db, accountId: string, now: number, ttlMs: number): { id: string; row: SessionRow } {
  const { id, row } = newSession(accountId, now, ttlMs);
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
  return liveSession(stmt(db, 'SELECT * FROM dashboard_sessions WHERE id_hash = ?').get(sessionIdHash(id)) as SessionRow | undefined, now);
}

export function extendSession(db: Db, row: SessionRow, now: number, ttlMs: number): void {
  if (!sessionNeedsExtending(row, now, ttlMs)) return;
  stmt(db, 'UPDATE dashboard_sessions SET expires_at = ? WHERE id_hash = ?').run(now + ttlMs, row.id_hash);
}

export function deleteSession(db: Db, id: string): void {
  stmt(db, 'DELETE FROM dashboard_sessions WHERE id_hash = ?').run(sessionIdHash(id));
}

export function deleteAccountSessions(db: Db, accountId: string): number {
  return stmt(db, 'DELETE FROM dashboard_sessions WHERE account_id = ?').run(accountId).changes;
}

export function deleteExpiredSessions(db: Db, now: number): number {
  return stmt(db, 'DELETE FROM dashboard_sessions WHERE expires_at <= ?').run(now).changes;
}
