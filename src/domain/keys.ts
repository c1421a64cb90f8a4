// API key format and hashing. Only the SHA-256 of a key is stored; the full key exists in memory
// once, when it is created, and is returned to the user a single time.
import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'svc_live_';
export const KEY_BODY_LENGTH = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RE = /^svc_live_[0-9A-Za-z]{32}$/;

/** 32 base62 chars ≈ 190 bits. Rejection sampling keeps every character uniformly likely. */
export function generateApiKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const b of randomBytes(48)) {
      // 248 = 4 × 62: bytes above it would bias the first characters of the alphabet.
      if (b < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[b % 62];
    }
  }
  return KEY_PREFIX + body;
}

export function isWellFormedKey(raw: string): boolean {
  return KEY_RE.test(raw);
}

export function hashApiKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** What the dashboard shows to tell keys apart: `svc_live_abcd…` (4 of 32 chars, ~24 bits). */
export function displayPrefix(raw: string): string {
  return `${raw.slice(0, KEY_PREFIX.length + 4)}…`;
}
