// Verified API keys kept in memory by both accounts stores. An entry holds the key's row and its
// account's terms state, and is good while the auth generation it was read under is current (the
// generation moves on every write that can change the answer: revocation, rotation, plan or terms
// change) and until a terms document dated in the future comes into force.
import { tosStateAt, type TosState } from './tos.js';
import type { KeyLookup } from './keys.js';

export interface KeyAuth {
  row: KeyLookup;
  tos: TosState;
}

interface Entry extends KeyAuth {
  generation: number;
  expiresAt: number;
}

/** Entries kept per process; the oldest is dropped first. */
const MAX_ENTRIES = 10_000;

export class KeyAuthCache {
  private readonly entries = new Map<string, Entry>();

  /** The cached answer when it was read under `generation` and is still in force at `now`. */
  fresh(keyHash: string, generation: number, now: number): KeyAuth | undefined {
    const hit = this.entries.get(keyHash);
    if (!hit || hit.generation !== generation || now >= hit.expiresAt) return undefined;
    // The terms state's grace ends with time, not with a write: re-derived for `now`.
    return { row: hit.row, tos: tosStateAt(hit.tos, now) };
  }

  /** Remember an answer read under `generation`; `expiresAt` is when the next terms document takes effect. */
  set(keyHash: string, auth: KeyAuth, generation: number, expiresAt: number | null): void {
    this.entries.delete(keyHash);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyHash, { ...auth, generation, expiresAt: expiresAt ?? Number.POSITIVE_INFINITY });
  }

  delete(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  /** After touchKey: the cached row carries the new last-used time so the next touch waits. */
  noteUsed(keyHash: string, at: number): void {
    const e = this.entries.get(keyHash);
    if (e) e.row = { ...e.row, last_used_at: at };
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
