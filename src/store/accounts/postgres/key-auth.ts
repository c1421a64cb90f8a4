// API-key authentication on PostgreSQL: no round trip on a cache hit. Each replica keeps verified
// keys in memory (../shared/key-auth-cache.ts) and re-reads the auth generation, which triggers
// move on every revocation, rotation, plan or terms change, when the trigger's NOTIFY arrives (at
// COMMIT) and at the latest every AUTH_GENERATION_POLL_MS (250 ms): a revoked key is refused
// everywhere well under 1 s.
import pg from 'pg';
import type { Config } from '../../../config.js';
import { KeyAuthCache, type KeyAuth } from '../shared/key-auth-cache.js';
import { APPLICATION_NAME, type PgDb } from './connection.js';
import { lookupKeyHash } from './keys-repo.js';
import { nextTosChange, tosState } from './tos-repo.js';

export class PgKeyAuth {
  private generation = -1;
  private readonly cache = new KeyAuthCache();
  private listener: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly db: PgDb,
    private readonly url: string,
  ) {}

  /** The generation as this replica last saw it; -1 while the database is unreachable. */
  get current(): number {
    return this.generation;
  }

  async authenticate(keyHash: string, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): Promise<KeyAuth | undefined> {
    await this.db.ready();
    const hit = this.generation >= 0 ? this.cache.fresh(keyHash, this.generation, now) : undefined;
    if (hit) return hit;
    // Miss: the generation is read first, so a write that lands after it moves the generation past
    // what this entry records, and the next poll drops the entry.
    const gen = (await this.db.one<{ gen: number }>('SELECT gen FROM auth_generation WHERE id = 1'))?.gen ?? 0;
    if (gen > this.generation) this.noteGeneration(gen);
    const row = await lookupKeyHash(this.db, keyHash);
    this.cache.delete(keyHash);
    if (!row) return undefined;
    const tos = await tosState(this.db, config, { id: row.account_id, created_at: row.account_created_at }, now);
    this.cache.set(keyHash, { row, tos }, gen, await nextTosChange(this.db, now));
    return { row, tos };
  }

  /** After touchKey: the cached row carries the new last-used time so the next touch waits. */
  noteUsed(keyHash: string, at: number): void {
    this.cache.noteUsed(keyHash, at);
  }

  async poll(): Promise<void> {
    try {
      const r = await this.db.pool.query<{ gen: number }>('SELECT gen FROM auth_generation WHERE id = 1');
      this.noteGeneration(r.rows[0]?.gen ?? 0);
    } catch {
      // Unreachable: nothing cached can be trusted to be current any more.
      this.cache.clear();
      this.generation = -1;
    }
  }

  private noteGeneration(gen: number): void {
    if (gen !== this.generation) {
      this.cache.clear();
      this.generation = gen;
    }
  }

  /**
   * LISTEN for generation bumps (migration 2) on a connection of its own: a revocation reaches this
   * replica as soon as it commits. Lost connections are re-opened after a second; meanwhile the
   * poll keeps the bound (AUTH_GENERATION_POLL_MS).
   */
  async listen(): Promise<void> {
    if (this.closed || this.listener) return;
    const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 3_000, application_name: APPLICATION_NAME });
    this.listener = c;
    const retry = () => {
      if (this.listener !== c) return;
      this.listener = undefined;
      c.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), 1_000).unref();
    };
    c.on('error', retry);
    c.on('end', retry);
    c.on('notification', () => void this.poll());
    try {
      await c.connect();
      await c.query('LISTEN cds_auth_generation');
      // The listener must not keep a process alive on its own (the admin CLI, tests).
      (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      await this.poll(); // anything that moved before LISTEN took effect
    } catch {
      retry();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
  }
}
