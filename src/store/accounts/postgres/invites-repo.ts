// Private-beta invite codes on PostgreSQL (../shared/invites.ts holds the code format and the
// redemption's outcome).
import { generateInviteCode, hashInvite, redeemOutcome, type RedeemOutcome } from '../shared/invites.js';
import type { Pg } from './connection.js';

export async function createInvite(c: Pg, i: { plan: string | null; expiresAt: number; now: number }): Promise<string> {
  const code = generateInviteCode();
  await c.q('INSERT INTO invite_codes (code_hash, plan, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    hashInvite(code),
    i.plan,
    i.now,
    i.expiresAt,
  ]);
  return code;
}

/** The conditional UPDATE is the single-use guarantee: only one redeemer can flip used_at. */
export async function redeemInvite(c: Pg, code: string, accountId: string, now: number): Promise<RedeemOutcome> {
  const hash = hashInvite(code);
  const row = await c.one<{ plan: string | null }>(
    'UPDATE invite_codes SET used_at = $1, used_by = $2 WHERE code_hash = $3 AND used_at IS NULL AND expires_at > $1 RETURNING plan',
    [now, accountId, hash],
  );
  const existing = row
    ? undefined
    : await c.one<{ used_at: number | null }>('SELECT used_at FROM invite_codes WHERE code_hash = $1', [hash]);
  return redeemOutcome(row, existing);
}
