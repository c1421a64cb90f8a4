// Private-beta invite codes: single use, expiring; stored as SHA-256 like API keys.
import { createHash, randomBytes } from 'node:crypto';
import { stmt, type Db } from './db.js';

export function hashInvite(code: string): string {
  return createHash('sha256').update(code.trim().toUpperCase(), 'utf8').digest('hex');
}

/** `XXXX-XXXX-XXXX` from an unambiguous alphabet (no 0/O, 1/I): codes get read aloud and typed. */
export function generateInviteCode(): string {
  const alphabet = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
  const chars = [...randomBytes(12)].map((b) => alphabet[b % 32]!);
  return [chars.slice(0, 4), chars.slice(4, 8), chars.slice(8, 12)].map((c) => c.join('')).join('-');
}

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

export type RedeemOutcome = { ok: true; plan: string | null } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/** The conditional UPDATE is the single-use guarantee: only one redeemer can flip used_at. */
export function redeemInvite(db: Db, code: string, accountId: string, now: number): RedeemOutcome {
  const hash = hashInvite(code);
  const row = stmt(
    db,
    'UPDATE invite_codes SET used_at = ?, used_by = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING plan',
  ).get(now, accountId, hash, now) as { plan: string | null } | undefined;
  if (row) return { ok: true, plan: row.plan };
  const existing = stmt(db, 'SELECT used_at, expires_at FROM invite_codes WHERE code_hash = ?').get(hash) as
    { used_at: number | null; expires_at: number } | undefined;
  if (!existing) return { ok: false, reason: 'unknown' };
  return { ok: false, reason: existing.used_at !== null ? 'used' : 'expired' };
}
