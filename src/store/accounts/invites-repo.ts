// Private-beta invite codes on SQLite: single use, expiring; stored as SHA-256 like API keys
// (shared/invites.ts holds the code format and the redemption's outcome).
import { stmt, type Db } from './db.js';
import { generateInviteCode, hashInvite, redeemOutcome, type RedeemOutcome } from './shared/invites.js';

export type { RedeemOutcome } from './shared/invites.js';

export function createInvite(db: Db, i: { plan: string | null; expiresAt: number; now: number }): string {
  const code = generateInviteCode();
  stmt(db, 'INSERT INTO invite_codes (code_hash, plan, created_at, expires_at) VALUES (?, ?, ?, ?)').run(
    hashInvite(code),
    i.plan,
    i.now,
    i.expiresAt,
  );
  return code;
}

/** The conditional UPDATE is the single-use guarantee: only one redeemer can flip used_at. */
export function redeemInvite(db: Db, code: string, accountId: string, now: number): RedeemOutcome {
  const hash = hashInvite(code);
  const row = stmt(
    db,
    'UPDATE invite_codes SET used_at = ?, used_by = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING plan',
  ).get(now, accountId, hash, now) as { plan: string | null } | undefined;
  const existing = row ? undefined : stmt(db, 'SELECT used_at FROM invite_codes WHERE code_hash = ?').get(hash);
  return redeemOutcome(row, existing as { used_at: number | null } | undefined);
}
