// API-key lookups cached in memory, exact across processes.
//
// Authenticating a request used to cost three SQLite reads (the key joined to its account, the
// terms document in force, the account's acceptance). The answer only changes when one of those
// rows changes, so each process keeps it in memory and revalidates with one cheap read per
// request: a generation counter that SQLite triggers bump on every write that can change it (key
// revoked, rotated or deleted; account plan changed or account deleted; terms published or
// accepted). Triggers fire whichever process or tool writes (server, admin CLI, another replica
// sharing the file), so a revocation is seen by every process on its next request.
//
// The counter and its triggers are created by migration 4 (src/store/accounts/migrations.ts);
// it is the service's only auth generation (the MCP caller cache reads the same one).
import type { Config } from '../../config.js';
import { storeMetrics } from '../metrics.js';
import { stmt, type Db } from './db.js';
import { lookupKeyHash } from './keys-repo.js';
import { KeyAuthCache, type KeyAuth } from './shared/key-auth-cache.js';
import { tosState } from './tos-policy.js';

export function authGeneration(db: Db): number {
  return (stmt(db, 'SELECT gen FROM auth_generation WHERE id = 1').get() as { gen: number }).gen;
}

export class KeyCache {
  private readonly entries = new KeyAuthCache();

  constructor(private readonly db: Db) {}

  /** The key's row and terms state, or undefined when no key has this hash. */
  lookup(keyHash: string, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): KeyAuth | undefined {
    const hit = this.entries.fresh(keyHash, authGeneration(this.db), now);
    storeMetrics.cache('api_keys', !!hit);
    if (hit) return hit;
    // Read everything in one snapshot so the generation read matches the rows read.
    return this.db.transaction((): KeyAuth | undefined => {
      const gen = authGeneration(this.db);
      const row = lookupKeyHash(this.db, keyHash);
      this.entries.delete(keyHash);
      if (!row) return undefined;
      const tos = tosState(this.db, config, { id: row.account_id, created_at: row.account_created_at }, now);
      const next = stmt(this.db, 'SELECT min(effective_at) AS t FROM tos_documents WHERE effective_at > ?').get(now) as {
        t: number | null;
      };
      this.entries.set(keyHash, { row, tos }, gen, next.t);
      return { row, tos };
    })();
  }

  /** After touchKey: the cached row carries the new last-used time so the next touch waits. */
  noteUsed(keyHash: string, at: number): void {
    this.entries.noteUsed(keyHash, at);
  }

  get size(): number {
    return this.entries.size;
  }
}

const caches = new WeakMap<Db, KeyCache>();

/** One cache per database connection (a process normally has one). */
export function keyCacheOf(db: Db): KeyCache {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = new KeyCache(db)));
  return c;
}
