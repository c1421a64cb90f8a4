// Dashboard sign-in sessions on PostgreSQL (../shared/sessions.ts holds the row, how a session is
// made and the expiry rules; only the cookie value's SHA-256 is stored).
import { liveSession, newSession, sessionIdHash, sessionNeedsExtending, type SessionRow } from '../shared/sessions.js';
import type { Pg } from './connection.js';

export async function createSession(c: Pg, accountId: string, now: number, ttlMs: number): Promise<{ id: string; row: SessionRow }> {
  const { id, row } = newSession(accountId, now, ttlMs);
  await c.q('INSERT INTO dashboard_sessions (id_hash, account_id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    row.id_hash,
    row.account_id,
    row.csrf_token,
    row.created_at,
    row.expires_at,
  ]);
  return { id, row };
}

export async function findSession(c: Pg, id: string, now: number): Promise<SessionRow | undefined> {
  return liveSession(await c.one<SessionRow>('SELECT * FROM dashboard_sessions WHERE id_hash = $1', [sessionIdHash(id)]), now);
}

export async function extendSession(c: Pg, row: SessionRow, now: number, ttlMs: number): Promise<void> {
  if (!sessionNeedsExtending(row, now, ttlMs)) return;
  await c.q('UPDATE dashboard_sessions SET expires_at = $1 WHERE id_hash = $2', [now + ttlMs, row.id_hash]);
}

export async function deleteSession(c: Pg, id: string): Promise<void> {
  await c.q('DELETE FROM dashboard_sessions WHERE id_hash = $1', [sessionIdHash(id)]);
}
