// Cached tier validation for the MCP endpoint (spec: "takes the key as a Bearer header, with cached
// tier validation"). An agent sends several POSTs per conversation turn (initialize, tools/list,
// tools/call…), each carrying the key; verifying every one against SQLite would also write
// last_used_at every time. A verified caller is trusted for `ttlMs`, so a revoked key, a changed
// plan or a newly required terms acceptance takes effect within that bound and no later.
//
// Revocation does not wait for the TTL: the accounts database keeps one auth generation (the key
// cache's, src/store/accounts/key-cache.ts) that moves
// (by trigger) whenever a key is revoked or rotated or an account's plan changes or it is deleted,
// whichever process did it (this server, the admin CLI, another replica). Each lookup reads it
// (one indexed SELECT, microseconds) and drops every entry when it moved, so a revoked key is
// refused on its next request.
//
// Only successes are cached: a rejected key is checked again on its next request, so a key that
// becomes valid (or a typo fixed by the user) is never held out by the cache.
import { hashApiKey } from '../domain/keys.js';
import type { Caller } from '../context/verb-context.js';

export interface AuthCacheOptions {
  ttlMs: number;
  /** Entries kept at most; the oldest is evicted first. Bounds memory under key-stuffing. */
  maxEntries?: number;
  now: () => Date;
  /** The accounts database's auth generation; when it changes the cache is emptied. */
  generation?: () => number | undefined;
}

interface Entry {
  caller: Caller;
  expiresAt: number;
}

export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private generation: number | undefined;

  constructor(private readonly opts: AuthCacheOptions) {
    this.maxEntries = opts.maxEntries ?? 10_000;
  }

  /** The cached caller for a raw key, or the result of `verify` (which may throw), cached. */
  async get(rawKey: string, verify: () => Promise<Caller>): Promise<Caller> {
    // Keyed by the key's hash so the map never holds usable credentials.
    const id = hashApiKey(rawKey);
    const now = this.opts.now().getTime();
    let gen: number | undefined;
    try {
      gen = this.opts.generation?.();
    } catch {
      // Database unusable: trust nothing cached; verify() answers (503) for itself.
      this.entries.clear();
    }
    if (gen !== this.generation) {
      this.entries.clear();
      this.generation = gen;
    }
    const hit = this.entries.get(id);
    if (hit && hit.expiresAt > now) return hit.caller;
    if (hit) this.entries.delete(id);
    const caller = await verify();
    if (this.opts.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(id, { caller, expiresAt: now + this.opts.ttlMs });
    }
    return caller;
  }

  get size(): number {
    return this.entries.size;
  }
}
