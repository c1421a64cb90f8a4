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
// The triggers and the counter table are created idempotently on first use instead of in a
// numbered migration: they are derived state (dropping them loses nothing) and keep this module
// independent of the migration list.
import type { Config } from '../../config.js';
import { storeMetrics } from '../metrics.js';
import { stmt, type Db } from './db.js';
import { lookupKeyHash, type KeyLookup } from './keys-repo.js';
import { tosState, type TosState } from './tos-policy.js';

const BUMP = 'UPDATE auth_generation SET gen = gen + 1 WHERE id = 1;';
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS auth_generation (id INTEGER PRIMARY KEY CHECK (id = 1), gen INTEGER NOT NULL);
  INSERT OR IGNORE INTO auth_generation (id, gen) VALUES (1, 0);
  CREATE TRIGGER IF NOT EXISTS auth_gen_key_update AFTER UPDATE OF revoked_at, account_id, key_hash ON api_keys BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_key_delete AFTER DELETE ON api_keys BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_account_update AFTER UPDATE OF plan, deleted_at, created_at ON accounts BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_account_delete AFTER DELETE ON accounts BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_tos_insert AFTER INSERT ON tos_documents BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_tos_update AFTER UPDATE ON tos_documents BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_tos_delete AFTER DELETE ON tos_documents BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_acceptance_insert AFTER INSERT ON tos_acceptances BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_acceptance_delete AFTER DELETE ON tos_acceptances BEGIN ${BUMP} END;
`;

const prepared = new WeakSet<Db>();

/** Creates the counter and its triggers once per connection (idempotent across processes). */
export function ensureAuthGeneration(db: Db): void {
  if (prepared.has(db)) return;
  db.transaction(() => db.exec(SCHEMA)).immediate();
  prepared.add(db);
}

export function authGeneration(db: Db): number {
  ensureAuthGeneration(db);
  return (stmt(db, 'SELECT gen FROM auth_generation WHERE id = 1').get() as { gen: number }).gen;
}

export interface KeyAuth {
  row: KeyLookup;
  tos: TosState;
}

interface Entry {
  row: KeyLookup;
  /** The terms state's inputs: recomputed per request from `now` (grace ends without a write). */
  tos: TosState;
  generation: number;
  /** A terms document dated in the future becomes current without a write: reload then. */
  expiresAt: number;
}

/** Entries kept per process; the oldest is dropped first. */
const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly db: Db) {}

  /** The key's row and terms state, or undefined when no key has this hash. */
  lookup(keyHash: string, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): KeyAuth | undefined {
    const generation = authGeneration(this.db);
    const hit = this.entries.get(keyHash);
    const fresh = !!hit && hit.generation === generation && now < hit.expiresAt;
    storeMetrics.cache('api_keys', fresh);
    if (fresh) return { row: hit!.row, tos: refresh(hit!.tos, now) };
    // Read everything in one snapshot so the generation read matches the rows read.
    return this.db.transaction((): KeyAuth | undefined => {
      const gen = authGeneration(this.db);
      const row = lookupKeyHash(this.db, keyHash);
      if (!row) {
        this.entries.delete(keyHash);
        return undefined;
      }
      const tos = tosState(this.db, config, { id: row.account_id, created_at: row.account_created_at }, now);
      const next = stmt(this.db, 'SELECT min(effective_at) AS t FROM tos_documents WHERE effective_at > ?').get(now) as {
        t: number | null;
      };
      this.entries.delete(keyHash);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(keyHash, { row, tos, generation: gen, expiresAt: next.t ?? Number.POSITIVE_INFINITY });
      return { row, tos };
    })();
  }

  /** After touchKey: the cached row carries the new last-used time so the next touch waits. */
  noteUsed(keyHash: string, at: number): void {
    const e = this.entries.get(keyHash);
    if (e) e.row = { ...e.row, last_used_at: at };
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Grace periods end with time, not with a write: re-derive the status for `now`. */
function refresh(tos: TosState, now: number): TosState {
  if (tos.status === 'grace' && now >= tos.graceEndsAt)
    return { status: 'required', document: tos.document, graceEndedAt: tos.graceEndsAt };
  return tos;
}

const caches = new WeakMap<Db, KeyCache>();

/** One cache per database connection (a process normally has one). */
export function keyCacheOf(db: Db): KeyCache {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = new KeyCache(db)));
  return c;
}
