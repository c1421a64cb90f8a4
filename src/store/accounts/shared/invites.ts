// Private-beta invite codes as both accounts stores hold them: single use, expiring, stored as
// SHA-256 like API keys.
import { createHash, randomBytes } from 'node:crypto';

export function hashInvite(code: string): string {
  return createHash('sha256').update(code.trim().toUpperCase(), 'utf8').digest('hex');
}

/** `XXXX-XXXX-XXXX` from an unambiguous alphabet (no 0/O, 1/I): codes get read aloud and typed. */
export function generateInviteCode(): string {
  const alphabet = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
  const chars = [...randomBytes(12)].map((b) => alphabet[b % 32]!);
  return [chars.slice(0, 4), chars.slice(4, 8), chars.slice(8, 12)].map((c) => c.join('')).join('-');
}

export type RedeemOutcome = { ok: true; plan: string | null } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/**
 * The outcome of a redemption: the conditional UPDATE's returned plan when it marked the code
 * used (the single-use guarantee: only one redeemer can), else why not, from the code's row
 * (absent: no such code).
 */
export function redeemOutcome(
  redeemed: { plan: string | null } | undefined,
  existing: { used_at: number | null } | undefined,
): RedeemOutcome {
  if (redeemed) return { ok: true, plan: redeemed.plan };
  if (!existing) return { ok: false, reason: 'unknown' };
  return { ok: false, reason: existing.used_at !== null ? 'used' : 'expired' };
}
