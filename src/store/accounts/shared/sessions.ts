// Dashboard sign-in sessions as both accounts stores hold them. The cookie carries a random 256-bit
// id; only its SHA-256 is stored, so a copy of the database cannot be replayed as a cookie (the
// same rule as API keys).
import { createHash, randomBytes } from 'node:crypto';

export interface SessionRow {
  id_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** What is stored for a cookie value. */
export const sessionIdHash = (id: string) => createHash('sha256').update(id).digest('hex');

/** A new session: its cookie value (returned once) and the row to store. */
export function newSession(accountId: string, now: number, ttlMs: number): { id: string; row: SessionRow } {
  const id = randomBytes(32).toString('base64url');
  return {
    id,
    row: {
      id_hash: sessionIdHash(id),
      account_id: accountId,
      csrf_token: randomBytes(24).toString('base64url'),
      created_at: now,
      expires_at: now + ttlMs,
    },
  };
}

/** Expired rows read as absent. */
export function liveSession(row: SessionRow | undefined, now: number): SessionRow | undefined {
  return row && row.expires_at > now ? row : undefined;
}

/** Sliding expiry: an active user stays signed in; the row is written at most once a minute. */
export function sessionNeedsExtending(row: SessionRow, now: number, ttlMs: number): boolean {
  return now + ttlMs - row.expires_at >= 60_000;
}
