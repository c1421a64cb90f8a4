import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Opaque prefixed ids (`acc_…`, `key_…`): 20 base36 chars ≈ 103 bits, not guessable. */
export function newId(prefix: string): string {
  let s = '';
  for (const b of randomBytes(24)) {
    if (b < 252 && s.length < 20) s += ALPHABET[b % 36];
  }
  while (s.length < 20) s += ALPHABET[randomBytes(1)[0]! % 36];
  return `${prefix}_${s}`;
}
