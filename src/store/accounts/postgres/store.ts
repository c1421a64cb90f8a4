// The accounts store on PostgreSQL (DATABASE_URL), shared by N replicas (docs/replicas.md).
//
// What costs a round trip per request and what does not:
//   * authentication: none on a cache hit. Each replica keeps verified keys in memory and re-reads
//     the auth generation, which triggers move on every revocation, rotation, plan or terms change,
//     when the trigger's NOTIFY arrives (at COMMIT) and at the latest every AUTH_GENERATION_POLL_MS
//     (250 ms): a revoked key is refused everywhere well under 1 s.
//   * admission: one statement per event-loop turn, shared by every request admitted in that turn
//     (cds_admit over the batch, autocommitted). Monthly units, burst and concurrency are shared
//     counters that any replica may move at any moment, so checking them exactly needs the
//     database; batching is what keeps the cost per request low.
//   * release of a concurrency slot: one DELETE after the response, off the request's path.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../../../config.js';
import { anonymizeIp, monthsBefore, RETENTION, type RetentionReport } from '../retention.js';
import type { AccountRow } from '../accounts-repo.js';
import type { SubscriptionRow } from '../billing-repo.js';
import { newId } from '../ids.js';
import { hashInvite, generateInviteCode, type RedeemOutcome } from '../invites-repo.js';
import { KeyLimitError, LAST_USED_RESOLUTION_MS, type KeyLookup, type KeyRow, type RotateOutcome } from '../keys-repo.js';
import { REGION_COLUMNS, type RegionRow, type RenameRegionOutcome, type SaveRegionOutcome } from '../regions-repo.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../../../domain/keys.js';
import { SIGN_UP_PLAN } from '../../../domain/plans.js';
import { planRank } from '../plan-rank.js';
import { sessionIdHash, newSessionSecrets, type SessionRow } from '../sessions-repo.js';
import type {
  AccountsStore,
  AdmitInput,
  BillingProgram,
  BillingStep,
  AdmitOutcome,
  DatabaseHealth,
  KeyAuth,
  Lease,
  SignInClaims,
  UsagePeek,
} from '../store.js';
import { TOS_GRACE_DAYS, type TosState } from '../tos-policy.js';
import type { TosAcceptance, TosDocument } from '../tos-repo.js';
import type { UsageBreakdownRow } from '../usage-repo.js';
import { PG_MIGRATIONS } from './migrations.js';

// BIGINT (epoch ms, counters, ids) fits a double exactly for any value this schema holds.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * Thrown when PostgreSQL cannot be reached or refuses work for reasons of its own (shut down, too
 * many connections, timeout). The code makes transports answer 503 dependency-unavailable
 * (src/presentation/problem.ts); the original error stays in `cause` for the log, never the body.
 */
export class AccountsUnavailableError extends Error {
  readonly code = 'ACCOUNTS_UNAVAILABLE';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`the accounts database is unavailable (${reason})`, options);
  }
}

/** Connection-level and server-availability failures, as opposed to a bug in a statement. */
function isUnavailable(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string') {
    if (/^(08|53|57P0|58)/.test(code)) return true; // connection exception, resources, shutdown, system
    if (/^E(CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|PIPE|HOSTUNREACH|NETUNREACH|AI_AGAIN)$/.test(code)) return true;
  }
  const msg = String((e as Error)?.message ?? '');
  return /timeout|Connection terminated|connection.*(closed|ended)|Client has encountered a connection error/i.test(msg);
}

function unavailableReason(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' ? code : /timeout/i.test(String((e as Error)?.message)) ? 'timeout' : 'connection';
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

interface CacheEntry {
  row: KeyLookup;
  tos: TosState;
  generation: number;
  expiresAt: number;
}

interface PendingAdmit {
  input: AdmitInput;
  leaseId: string | null;
  resolve: (o: AdmitOutcome) => void;
  reject: (e: unknown) => void;
}

const MAX_KEY_CACHE = 10_000;
const MAX_PEEK = 10_000;
const PROBE_EVERY_MS = 1_000;

export interface PostgresStoreOptions {
  url: string;
  poolSize?: number;
  leaseTtlMs?: number;
  pollMs?: number;
}

export class PostgresAccountStore implements AccountsStore {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  private migrated: Promise<void> | undefined;
  private generation = -1;
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private readonly keyCache = new Map<string, CacheEntry>();
  private readonly held = new Map<string, { leaseId: string; lease: Lease }>();
  private readonly peeks = new Map<string, UsagePeek & { period: string; minute: number }>();
  private queue: PendingAdmit[] = [];
  private scheduled = false;
  private admitting = false;
  private releases: string[] = [];
  private probe: { at: number; health: DatabaseHealth } | undefined;
  private closed = false;
  private listener: pg.Client | undefined;
  private renewals = 0;
  private readonly url: string;
  readonly leaseTtlMs: number;
  readonly pollMs: number;
  /** Admission statements sent and requests in them, for the benchmark and tests. */
  readonly stats = { batches: 0, admissions: 0 };

  constructor(opts: PostgresStoreOptions) {
    this.leaseTtlMs = opts.leaseTtlMs ?? 15_000;
    this.pollMs = opts.pollMs ?? 250;
    this.url = opts.url;
    this.pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      // An unreachable database must turn into a 503 quickly, not a hung request.
      connectionTimeoutMillis: 3_000,
      query_timeout: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'census-data-service',
    });
    // An idle client losing its connection (database restart) must not crash the process; the
    // pool drops it and the next query connects again.
    this.pool.on('error', () => {});
  }

  /** Apply pending migrations and start the generation poll and lease renewal. Safe to call often. */
  ready(): Promise<void> {
    if (this.closed) return Promise.reject(new AccountsUnavailableError('closed'));
    this.migrated ??= this.migrate().then(
      () => this.startTimers(),
      (e) => {
        this.migrated = undefined; // retried by the next call: the database may come back
        throw e;
      },
    );
    return this.migrated;
  }

  private async migrate(): Promise<void> {
    await this.tx(async (c) => {
      // One migrator at a time across replicas; the lock ends with the transaction.
      await c.query('SELECT pg_advisory_xact_lock(7216316)');
      await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const { rows } = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
      for (let v = rows[0]?.v ?? 0; v < PG_MIGRATIONS.length; v++) {
        await c.query(PG_MIGRATIONS[v]!);
        await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [v + 1, Date.now()]);
      }
    }, false);
  }

  /** Migration version applied (tests, admin). */
  async schemaVersion(): Promise<number> {
    const r = await this.q<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    return r.rows[0]?.v ?? 0;
  }

  private startTimers(): void {
    if (this.closed || this.pollTimer) return;
    this.pollTimer = setInterval(() => void this.pollGeneration(), this.pollMs);
    this.pollTimer.unref();
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(100, Math.floor(this.leaseTtlMs / 3)));
    this.renewTimer.unref();
    void this.listen();
  }

  /**
   * LISTEN for generation bumps (migration 2) on a connection of its own: a revocation reaches this
   * replica as soon as it commits. Lost connections are re-opened after a second; meanwhile the
   * poll keeps the bound (AUTH_GENERATION_POLL_MS).
   */
  private async listen(): Promise<void> {
    if (this.closed || this.listener) return;
    const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 3_000, application_name: 'census-data-service' });
    this.listener = c;
    const retry = () => {
      if (this.listener !== c) return;
      this.listener = undefined;
      c.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), 1_000).unref();
    };
    c.on('error', retry);
    c.on('end', retry);
    c.on('notification', () => void this.pollGeneration());
    try {
      await c.connect();
      await c.query('LISTEN cds_auth_generation');
      // The listener must not keep a process alive on its own (the admin CLI, tests).
      (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      await this.pollGeneration(); // anything that moved before LISTEN took effect
    } catch {
      retry();
    }
  }

  private async pollGeneration(): Promise<void> {
    try {
      const r = await this.pool.query<{ gen: number }>('SELECT gen FROM auth_generation WHERE id = 1');
      this.noteGeneration(r.rows[0]?.gen ?? 0);
    } catch {
      // Unreachable: nothing cached can be trusted to be current any more.
      this.keyCache.clear();
      this.generation = -1;
    }
  }

  private noteGeneration(gen: number): void {
    if (gen !== this.generation) {
      this.keyCache.clear();
      this.generation = gen;
    }
  }

  private async renewLeases(): Promise<void> {
    const now = Date.now();
    const ids = [...this.held.values()].map((h) => h.leaseId);
    try {
      if (ids.length > 0) {
        await this.pool.query('UPDATE concurrency_leases SET expires_at = $1 WHERE id = ANY($2::text[])', [now + this.leaseTtlMs, ids]);
      }
      // Slots of replicas that died stop counting once expired; clear them out now and then.
      if (++this.renewals % 12 === 0)
        await this.pool.query('DELETE FROM concurrency_leases WHERE expires_at < $1', [now - this.leaseTtlMs]);
    } catch {
      // Next round retries; a lease that lapses meanwhile only frees a slot early.
    }
  }

  /** Every statement goes through here: migrations first, availability errors turned into 503s. */
  private async q<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params: unknown[] = [],
    on?: Queryable,
  ): Promise<pg.QueryResult<R>> {
    try {
      if (!on) await this.ready();
      return await (on ?? this.pool).query<R>(sql, params);
    } catch (e) {
      if (e instanceof AccountsUnavailableError) throw e;
      if (isUnavailable(e)) throw new AccountsUnavailableError(unavailableReason(e), { cause: e });
      throw e;
    }
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>, needReady = true): Promise<T> {
    if (needReady) await this.ready();
    let c: pg.PoolClient;
    try {
      c = await this.pool.connect();
    } catch (e) {
      throw new AccountsUnavailableError(unavailableReason(e), { cause: e });
    }
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch((re: Error) => (broken = re));
      if (e instanceof AccountsUnavailableError) throw e;
      if (isUnavailable(e)) {
        broken = e as Error;
        throw new AccountsUnavailableError(unavailableReason(e), { cause: e });
      }
      throw e;
    } finally {
      c.release(broken);
    }
  }

  private async one<R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], on?: Queryable): Promise<R | undefined> {
    return (await this.q<R>(sql, params, on)).rows[0];
  }

  // ---------------------------------------------------------------- accounts

  private getAccountOn(c: Queryable | undefined, id: string) {
    return this.one<AccountRow>('SELECT * FROM accounts WHERE id = $1 AND deleted_at IS NULL', [id], c);
  }
  private findByEmailOn(c: Queryable | undefined, email: string) {
    return this.one<AccountRow>(
      'SELECT * FROM accounts WHERE lower(email) = lower($1) AND deleted_at IS NULL ORDER BY created_at LIMIT 1',
      [email],
      c,
    );
  }
  private async createAccountOn(
    c: Queryable,
    a: { email: string | null; plan: string; issuer?: string | null; subject?: string | null; now: number },
  ): Promise<AccountRow> {
    const r = await this.q<AccountRow>(
      `INSERT INTO accounts (id, email, plan, oidc_issuer, oidc_subject, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
      [newId('acc'), a.email, a.plan, a.issuer ?? null, a.subject ?? null, a.now],
      c,
    );
    return r.rows[0]!;
  }
  private async setPlanOn(c: Queryable | undefined, id: string, plan: string, now: number): Promise<boolean> {
    const r = await this.q('UPDATE accounts SET plan = $1, updated_at = $2 WHERE id = $3 AND deleted_at IS NULL', [plan, now, id], c);
    return r.rowCount === 1;
  }

  getAccount(id: string) {
    return this.getAccountOn(undefined, id);
  }
  findAccountByEmail(email: string) {
    return this.findByEmailOn(undefined, email);
  }
  resolveSignIn(claims: SignInClaims, now: number) {
    return this.tx(async (c) => {
      // Two first sign-ins of one person (two tabs, two replicas) create one account.
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [`signin:${claims.issuer}:${claims.subject}`]);
      const bySubject = await this.one<AccountRow>(
        'SELECT * FROM accounts WHERE oidc_issuer = $1 AND oidc_subject = $2 AND deleted_at IS NULL',
        [claims.issuer, claims.subject],
        c,
      );
      if (bySubject) return { account: bySubject, created: false };
      if (claims.email && claims.emailVerified) {
        const byEmail = await this.findByEmailOn(c, claims.email);
        if (byEmail && byEmail.oidc_subject === null) {
          await this.q(
            'UPDATE accounts SET oidc_issuer = $1, oidc_subject = $2, updated_at = $3 WHERE id = $4 AND deleted_at IS NULL',
            [claims.issuer, claims.subject, now, byEmail.id],
            c,
          );
          return { account: { ...byEmail, oidc_issuer: claims.issuer, oidc_subject: claims.subject }, created: false };
        }
      }
      const account = await this.createAccountOn(c, {
        email: claims.email,
        plan: SIGN_UP_PLAN,
        issuer: claims.issuer,
        subject: claims.subject,
        now,
      });
      return { account, created: true };
    });
  }
  issueKey(i: { email: string; plan: string; name: string; now: number }) {
    return this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [`email:${i.email.toLowerCase()}`]);
      let account = await this.findByEmailOn(c, i.email);
      const created = !account;
      if (!account) account = await this.createAccountOn(c, { email: i.email, plan: i.plan, now: i.now });
      else if (account.plan !== i.plan) await this.setPlanOn(c, account.id, i.plan, i.now);
      const key = await this.insertKey(c, account.id, i.name, i.now);
      return { accountId: account.id, created, ...key };
    });
  }
  setPlan(accountId: string, plan: string, now: number) {
    return this.setPlanOn(undefined, accountId, plan, now);
  }
  async setStripeCustomer(accountId: string, customerId: string, now: number) {
    await this.q('UPDATE accounts SET stripe_customer_id = $1, updated_at = $2 WHERE id = $3', [customerId, now, accountId]);
  }
  async updateProfile(accountId: string, p: { name?: string | null; organization?: string | null }, now: number) {
    // CASE keeps an omitted field as it is; both fields in one statement, no read-modify-write race.
    return this.one<AccountRow>(
      `UPDATE accounts SET name = CASE WHEN $2 THEN $3 ELSE name END, organization = CASE WHEN $4 THEN $5 ELSE organization END,
         updated_at = $6 WHERE id = $1 AND deleted_at IS NULL RETURNING *`,
      [accountId, p.name !== undefined, p.name ?? null, p.organization !== undefined, p.organization ?? null, now],
    );
  }
  softDeleteAccount(accountId: string, now: number) {
    return this.tx(async (c) => {
      const r = await c.query('UPDATE accounts SET deleted_at = $1, updated_at = $1 WHERE id = $2 AND deleted_at IS NULL', [
        now,
        accountId,
      ]);
      await c.query('UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL', [now, accountId]);
      return r.rowCount === 1;
    });
  }
  activate(accountId: string, code: string, now: number): Promise<RedeemOutcome> {
    return this.tx(async (c): Promise<RedeemOutcome> => {
      const hash = hashInvite(code);
      const row = await this.one<{ plan: string | null }>(
        'UPDATE invite_codes SET used_at = $1, used_by = $2 WHERE code_hash = $3 AND used_at IS NULL AND expires_at > $1 RETURNING plan',
        [now, accountId, hash],
        c,
      );
      if (!row) {
        const existing = await this.one<{ used_at: number | null }>('SELECT used_at FROM invite_codes WHERE code_hash = $1', [hash], c);
        if (!existing) return { ok: false, reason: 'unknown' };
        return { ok: false, reason: existing.used_at !== null ? 'used' : 'expired' };
      }
      const current = await this.getAccountOn(c, accountId);
      await c.query('UPDATE accounts SET activated_at = COALESCE(activated_at, $1), updated_at = $1 WHERE id = $2', [now, accountId]);
      if (current && row.plan && planRank(row.plan) > planRank(current.plan)) await this.setPlanOn(c, accountId, row.plan, now);
      return { ok: true, plan: row.plan };
    });
  }
  async createInvite(i: { plan: string | null; expiresAt: number; now: number }) {
    const code = generateInviteCode();
    await this.q('INSERT INTO invite_codes (code_hash, plan, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
      hashInvite(code),
      i.plan,
      i.now,
      i.expiresAt,
    ]);
    return code;
  }

  // ---------------------------------------------------------------- keys

  private static readonly KEY_COLUMNS = 'id, account_id, name, display_prefix, created_at, revoked_at, last_used_at, replaced_by';

  private async insertKey(c: Queryable, accountId: string, name: string, now: number): Promise<{ row: KeyRow; rawKey: string }> {
    const rawKey = generateApiKey();
    const r = await this.q<KeyRow>(
      `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${PostgresAccountStore.KEY_COLUMNS}`,
      [newId('key'), accountId, name, hashApiKey(rawKey), displayPrefix(rawKey), now],
      c,
    );
    return { row: r.rows[0]!, rawKey };
  }
  private getKeyOn(c: Queryable | undefined, accountId: string, keyId: string) {
    return this.one<KeyRow>(
      `SELECT ${PostgresAccountStore.KEY_COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2`,
      [keyId, accountId],
      c,
    );
  }

  createKey(accountId: string, name: string, maxActive: number, now: number) {
    return this.tx(async (c) => {
      // Count and insert under one lock so parallel creates (any replica) cannot exceed the limit.
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [`keys:${accountId}`]);
      const n = await this.one<{ n: number }>(
        'SELECT count(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
        [accountId],
        c,
      );
      if ((n?.n ?? 0) >= maxActive) throw new KeyLimitError(maxActive);
      return this.insertKey(c, accountId, name, now);
    });
  }
  async listKeys(accountId: string) {
    return (
      await this.q<KeyRow>(`SELECT ${PostgresAccountStore.KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, [
        accountId,
      ])
    ).rows;
  }
  async countActiveKeys(accountId: string) {
    return (
      (await this.one<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [accountId]))?.n ??
      0
    );
  }
  getKey(accountId: string, keyId: string) {
    return this.getKeyOn(undefined, accountId, keyId);
  }
  revokeKey(accountId: string, keyId: string, now: number) {
    return this.tx(async (c) => {
      const r = await c.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL', [
        now,
        keyId,
        accountId,
      ]);
      const row = await this.getKeyOn(c, accountId, keyId);
      return row ? { row, revoked: r.rowCount === 1 } : undefined;
    });
  }
  rotateKey(accountId: string, keyId: string, now: number) {
    return this.tx(async (c): Promise<RotateOutcome> => {
      const old = await this.one<KeyRow>(
        `SELECT ${PostgresAccountStore.KEY_COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2 FOR UPDATE`,
        [keyId, accountId],
        c,
      );
      if (!old) return { kind: 'not-found' };
      if (old.revoked_at !== null) return { kind: 'revoked' };
      const created = await this.insertKey(c, accountId, old.name, now);
      await c.query('UPDATE api_keys SET revoked_at = $1, replaced_by = $2 WHERE id = $3', [now, created.row.id, keyId]);
      return { kind: 'ok', old: (await this.getKeyOn(c, accountId, keyId))!, ...created };
    });
  }
  async renameKey(accountId: string, keyId: string, name: string) {
    return this.one<KeyRow>(
      `UPDATE api_keys SET name = $1 WHERE id = $2 AND account_id = $3 RETURNING ${PostgresAccountStore.KEY_COLUMNS}`,
      [name, keyId, accountId],
    );
  }
  // ---------------------------------------------------------------- saved regions

  async listRegions(accountId: string) {
    return (await this.q<RegionRow>(`SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = $1 ORDER BY name`, [accountId])).rows;
  }
  getRegion(accountId: string, name: string) {
    return this.one<RegionRow>(`SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = $1 AND name = $2`, [accountId, name]);
  }
  createRegion(accountId: string, r: { name: string; members: string; now: number }, maxRegions: number) {
    return this.tx(async (c): Promise<SaveRegionOutcome> => {
      // Check and insert under one lock so parallel saves (any replica) keep names unique and the count bounded.
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [`regions:${accountId}`]);
      const taken = await this.one(`SELECT 1 FROM saved_regions WHERE account_id = $1 AND name = $2`, [accountId, r.name], c);
      if (taken) return { kind: 'exists' };
      const n = await this.one<{ n: number }>('SELECT count(*)::int AS n FROM saved_regions WHERE account_id = $1', [accountId], c);
      if ((n?.n ?? 0) >= maxRegions) return { kind: 'limit', limit: maxRegions };
      const row = await this.one<RegionRow>(
        `INSERT INTO saved_regions (id, account_id, name, members, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${REGION_COLUMNS}`,
        [newId('reg'), accountId, r.name, r.members, r.now],
        c,
      );
      return { kind: 'ok', row: row! };
    });
  }
  renameRegion(accountId: string, name: string, newName: string, now: number) {
    return this.tx(async (c): Promise<RenameRegionOutcome> => {
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [`regions:${accountId}`]);
      const row = await this.one<RegionRow>(
        `SELECT ${REGION_COLUMNS} FROM saved_regions WHERE account_id = $1 AND name = $2`,
        [accountId, name],
        c,
      );
      if (!row) return { kind: 'not-found' };
      if (newName === name) return { kind: 'ok', row };
      const taken = await this.one(`SELECT 1 FROM saved_regions WHERE account_id = $1 AND name = $2`, [accountId, newName], c);
      if (taken) return { kind: 'exists' };
      const renamed = await this.one<RegionRow>(
        `UPDATE saved_regions SET name = $1, updated_at = $2 WHERE id = $3 AND account_id = $4 RETURNING ${REGION_COLUMNS}`,
        [newName, now, row.id, accountId],
        c,
      );
      return { kind: 'ok', row: renamed! };
    });
  }
  async deleteRegion(accountId: string, name: string) {
    return (await this.q('DELETE FROM saved_regions WHERE account_id = $1 AND name = $2', [accountId, name])).rowCount === 1;
  }

  findKeyOwner(ref: { id: string } | { hash: string }) {
    return 'hash' in ref
      ? this.one<{ id: string; account_id: string }>('SELECT id, account_id FROM api_keys WHERE key_hash = $1', [ref.hash])
      : this.one<{ id: string; account_id: string }>('SELECT id, account_id FROM api_keys WHERE id = $1', [ref.id]);
  }

  async authenticateKey(keyHash: string, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): Promise<KeyAuth | undefined> {
    await this.ready();
    const hit = this.keyCache.get(keyHash);
    if (hit && this.generation >= 0 && hit.generation === this.generation && now < hit.expiresAt) {
      return { row: hit.row, tos: refreshTos(hit.tos, now) };
    }
    // Miss: the generation is read first, so a write that lands after it moves the generation past
    // what this entry records, and the next poll drops the entry.
    const gen = (await this.one<{ gen: number }>('SELECT gen FROM auth_generation WHERE id = 1'))?.gen ?? 0;
    if (gen > this.generation) this.noteGeneration(gen);
    const row = await this.one<KeyLookup>(
      `SELECT k.id AS key_id, k.account_id, a.plan, k.revoked_at, k.last_used_at, a.created_at AS account_created_at, a.deleted_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
      [keyHash],
    );
    this.keyCache.delete(keyHash);
    if (!row) return undefined;
    const tos = await this.tosState(config, { id: row.account_id, created_at: row.account_created_at }, now);
    const next = await this.one<{ t: number | null }>('SELECT min(effective_at) AS t FROM tos_documents WHERE effective_at > $1', [now]);
    if (this.keyCache.size >= MAX_KEY_CACHE) this.keyCache.delete(this.keyCache.keys().next().value!);
    this.keyCache.set(keyHash, { row, tos, generation: gen, expiresAt: next?.t ?? Number.POSITIVE_INFINITY });
    return { row, tos };
  }
  async touchKey(keyHash: string, keyId: string, now: number) {
    const e = this.keyCache.get(keyHash);
    if (e) e.row = { ...e.row, last_used_at: now };
    await this.q('UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [
      now,
      keyId,
      now - LAST_USED_RESOLUTION_MS,
    ]);
  }
  authGeneration(): number {
    return this.generation;
  }

  // ---------------------------------------------------------------- admission

  admit(input: AdmitInput): Promise<AdmitOutcome> {
    const held = this.held.get(input.requestId);
    return new Promise<AdmitOutcome>((resolve, reject) => {
      this.queue.push({ input, leaseId: held ? null : randomUUID(), resolve, reject });
      this.schedule();
    });
  }

  /**
   * Group commit: one admission statement in flight at a time; what arrives meanwhile waits for
   * it and goes out together in the next one. Every commit is a WAL flush on the database, so
   * fewer, larger batches are what keeps the cost per request low under load, at the price of at
   * most one extra round trip of latency.
   */
  private schedule(): void {
    if (this.scheduled || this.admitting || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.admitting = true;
      void this.flush().finally(() => {
        this.admitting = false;
        this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    // Sorted by account: every batch takes the per-account locks in one global order (no deadlock).
    const order = batch
      .map((_, i) => i)
      .sort((a, b) =>
        batch[a]!.input.accountId < batch[b]!.input.accountId ? -1 : batch[a]!.input.accountId > batch[b]!.input.accountId ? 1 : a - b,
      );
    const col = <T>(f: (p: PendingAdmit) => T) => order.map((i) => f(batch[i]!));
    const expires = Date.now() + this.leaseTtlMs;
    let rows: Array<{
      ord: number;
      outcome: string;
      monthly_used: number | null;
      burst_used: number | null;
      in_flight: number;
      log_id: number | null;
    }>;
    try {
      const r = await this.q<(typeof rows)[number]>(
        `SELECT t.ord::int AS ord, r.* FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
           $8::text[], $9::text[], $10::bigint[], $11::text[], $12::int[]) WITH ORDINALITY
           AS t(account, key, period, minute, cost, monthly, burst, route, ip, now, lease, maxc, ord)
           CROSS JOIN LATERAL cds_admit(t.account, t.key, t.period, t.minute, t.cost, t.monthly, t.burst, t.route, t.ip, t.now, t.lease, t.maxc, $13)
           AS r`,
        [
          col((p) => p.input.accountId),
          col((p) => p.input.keyId),
          col((p) => p.input.period),
          col((p) => p.input.minute),
          col((p) => p.input.cost),
          col((p) => p.input.monthlyQuota),
          col((p) => p.input.burstQuota),
          col((p) => p.input.route),
          col((p) => p.input.ip),
          col((p) => p.input.now),
          col((p) => p.leaseId),
          col((p) => p.input.maxConcurrent),
          expires,
        ],
      );
      rows = r.rows;
    } catch (e) {
      // One statement, so all or nothing: nobody in the batch was charged.
      for (const p of batch) p.reject(e);
      return;
    }
    this.stats.batches++;
    this.stats.admissions += batch.length;
    const answered = new Set<PendingAdmit>();
    for (const row of rows) {
      const p = batch[order[row.ord - 1]!]!;
      answered.add(p);
      const { input } = p;
      const monthlyUsed = row.monthly_used ?? 0;
      const burstUsed = row.burst_used ?? 0;
      this.notePeek(input.accountId, input.period, input.minute, { monthlyUnits: monthlyUsed, burst: burstUsed, inFlight: row.in_flight });
      if (row.outcome !== 'ok') {
        p.resolve({
          ok: false,
          limit: row.outcome as 'concurrency' | 'monthly' | 'burst',
          monthlyUsed,
          burstUsed,
          inFlight: row.in_flight,
        });
        continue;
      }
      // A request charged again keeps the slot it holds (no new lease was taken for it).
      const lease =
        this.held.get(input.requestId)?.lease ??
        (p.leaseId ? this.holdLease(input.requestId, input.accountId, p.leaseId) : { accountId: input.accountId, release: () => {} });
      p.resolve({ ok: true, monthlyUsed, burstUsed, inFlight: row.in_flight, logId: row.log_id!, lease });
    }
    for (const p of batch) if (!answered.has(p)) p.reject(new AccountsUnavailableError('no answer for this admission'));
  }

  private holdLease(requestId: string, accountId: string, leaseId: string): Lease {
    let released = false;
    const lease: Lease = {
      accountId,
      release: () => {
        if (released) return;
        released = true;
        if (this.held.get(requestId)?.leaseId === leaseId) this.held.delete(requestId);
        const peek = this.peeks.get(accountId);
        if (peek) peek.inFlight = Math.max(0, peek.inFlight - 1);
        // Off the request's path, batched per event-loop turn; if it fails the lease lapses at its
        // expiry instead.
        this.releases.push(leaseId);
        if (this.releases.length === 1) setImmediate(() => this.flushReleases());
      },
    };
    this.held.set(requestId, { leaseId, lease });
    return lease;
  }

  private flushReleases(): void {
    const ids = this.releases;
    this.releases = [];
    if (ids.length === 0 || this.closed) return;
    this.pool.query('SELECT cds_release($1::text[])', [ids]).catch(() => {});
  }

  private notePeek(accountId: string, period: string, minute: number, p: UsagePeek): void {
    this.peeks.delete(accountId);
    if (this.peeks.size >= MAX_PEEK) this.peeks.delete(this.peeks.keys().next().value!);
    this.peeks.set(accountId, { ...p, period, minute });
  }

  heldBy(requestId: string) {
    return this.held.get(requestId)?.lease;
  }
  releaseRequest(requestId: string): void {
    this.held.get(requestId)?.lease.release();
  }
  /** Leases this replica holds right now (tests). */
  get leasesHeld(): number {
    return this.held.size;
  }

  async refund(r: { accountId: string; period: string; logId: number }) {
    const out = await this.q(
      `WITH d AS (DELETE FROM request_log WHERE id = $1 AND account_id = $2 RETURNING units)
       UPDATE usage_periods u SET units = greatest(0, u.units - d.units), requests = greatest(0, u.requests - 1)
         FROM d WHERE u.account_id = $2 AND u.period = $3`,
      [r.logId, r.accountId, r.period],
    );
    return out.rowCount === 1;
  }
  peekUsage(accountId: string, period: string, minute: number): UsagePeek {
    const p = this.peeks.get(accountId);
    return {
      monthlyUnits: p && p.period === period ? p.monthlyUnits : 0,
      burst: p && p.minute === minute ? p.burst : 0,
      inFlight: p ? p.inFlight : 0,
    };
  }
  async usage(accountId: string, period: string, minute: number) {
    const r = await this.one<{ units: number; requests: number; burst: number; in_flight: number }>(
      `SELECT coalesce((SELECT units FROM usage_periods WHERE account_id = $1 AND period = $2), 0) AS units,
              coalesce((SELECT requests FROM usage_periods WHERE account_id = $1 AND period = $2), 0) AS requests,
              coalesce((SELECT requests FROM usage_minutes WHERE account_id = $1 AND window_start = $3), 0) AS burst,
              (SELECT count(*)::int FROM concurrency_leases WHERE account_id = $1 AND expires_at > $4) AS in_flight`,
      [accountId, period, minute, Date.now()],
    );
    return { monthlyUnits: r!.units, monthlyRequests: r!.requests, burst: r!.burst, inFlight: r!.in_flight };
  }
  async usageBreakdown(accountId: string, from: number, to: number) {
    const p = [accountId, from, to];
    const [byDay, byRoute, byKey] = await Promise.all([
      this.q<UsageBreakdownRow>(
        `SELECT to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS key, sum(units)::bigint AS units, count(*)::bigint AS requests
           FROM request_log WHERE account_id = $1 AND at >= $2 AND at < $3 GROUP BY 1 ORDER BY 1`,
        p,
      ),
      this.q<UsageBreakdownRow>(
        `SELECT route AS key, sum(units)::bigint AS units, count(*)::bigint AS requests
           FROM request_log WHERE account_id = $1 AND at >= $2 AND at < $3 GROUP BY route ORDER BY units DESC, route`,
        p,
      ),
      this.q<UsageBreakdownRow>(
        `SELECT coalesce(key_id, '') AS key, sum(units)::bigint AS units, count(*)::bigint AS requests
           FROM request_log WHERE account_id = $1 AND at >= $2 AND at < $3 GROUP BY key_id ORDER BY units DESC`,
        p,
      ),
    ]);
    return { byDay: byDay.rows, byRoute: byRoute.rows, byKey: byKey.rows };
  }

  // ---------------------------------------------------------------- terms of service

  async currentTos(config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number) {
    return config.TOS_CURRENT_VERSION
      ? this.one<TosDocument>('SELECT * FROM tos_documents WHERE version = $1', [config.TOS_CURRENT_VERSION])
      : this.one<TosDocument>('SELECT * FROM tos_documents WHERE effective_at <= $1 ORDER BY effective_at DESC, created_at DESC LIMIT 1', [
          now,
        ]);
  }
  async tosState(config: Pick<Config, 'TOS_CURRENT_VERSION'>, account: { id: string; created_at: number }, now: number): Promise<TosState> {
    const document = await this.currentTos(config, now);
    if (!document) return { status: 'none' };
    const accepted = await this.one('SELECT 1 FROM tos_acceptances WHERE account_id = $1 AND version = $2 LIMIT 1', [
      account.id,
      document.version,
    ]);
    if (accepted) return { status: 'accepted', document };
    const graceEnds = Math.max(document.effective_at, account.created_at) + TOS_GRACE_DAYS * 86_400_000;
    return now < graceEnds
      ? { status: 'grace', document, graceEndsAt: graceEnds }
      : { status: 'required', document, graceEndedAt: graceEnds };
  }
  async publishTos(d: { version: string; effectiveAt: number; url?: string | null; sha256?: string | null; now: number }) {
    return (await this.one<TosDocument>(
      `INSERT INTO tos_documents (version, effective_at, url, sha256, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (version) DO UPDATE SET effective_at = excluded.effective_at, url = excluded.url, sha256 = excluded.sha256 RETURNING *`,
      [d.version, d.effectiveAt, d.url ?? null, d.sha256 ?? null, d.now],
    ))!;
  }
  async recordAcceptance(a: { accountId: string; version: string; ip: string | null; userAgent: string | null; now: number }) {
    return (await this.one<TosAcceptance>(
      `INSERT INTO tos_acceptances (account_id, version, accepted_at, ip, user_agent) VALUES ($1, $2, $3, $4, $5)
       RETURNING id, account_id, version, accepted_at, ip, user_agent`,
      [a.accountId, a.version, a.now, a.ip, a.userAgent],
    ))!;
  }

  // ---------------------------------------------------------------- dashboard sessions

  async createSession(accountId: string, now: number, ttlMs: number) {
    const { id, idHash, csrfToken } = newSessionSecrets();
    const row: SessionRow = { id_hash: idHash, account_id: accountId, csrf_token: csrfToken, created_at: now, expires_at: now + ttlMs };
    await this.q('INSERT INTO dashboard_sessions (id_hash, account_id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      row.id_hash,
      row.account_id,
      row.csrf_token,
      row.created_at,
      row.expires_at,
    ]);
    return { id, row };
  }
  async findSession(id: string, now: number) {
    const row = await this.one<SessionRow>('SELECT * FROM dashboard_sessions WHERE id_hash = $1', [sessionIdHash(id)]);
    return row && row.expires_at > now ? row : undefined;
  }
  async extendSession(row: SessionRow, now: number, ttlMs: number) {
    if (now + ttlMs - row.expires_at < 60_000) return;
    await this.q('UPDATE dashboard_sessions SET expires_at = $1 WHERE id_hash = $2', [now + ttlMs, row.id_hash]);
  }
  async deleteSession(id: string) {
    await this.q('DELETE FROM dashboard_sessions WHERE id_hash = $1', [sessionIdHash(id)]);
  }

  async subscriptionsOf(accountId: string) {
    return (await this.q<SubscriptionRow>('SELECT * FROM subscriptions WHERE account_id = $1 ORDER BY updated_at DESC', [accountId])).rows;
  }

  runBilling<T>(program: () => BillingProgram<T>): Promise<T> {
    return this.tx(async (c) => {
      // Webhooks one at a time across replicas: a redelivered event cannot be applied twice by two
      // replicas at once, and an account's plan is recomputed from a stable set of subscriptions.
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', ['billing']);
      const g = program();
      let r = g.next();
      while (!r.done) r = g.next(await this.billingStep(c, r.value));
      return r.value;
    });
  }

  private async billingStep(c: pg.PoolClient, s: BillingStep): Promise<unknown> {
    switch (s.op) {
      case 'getAccount':
        return this.getAccountOn(c, s.id);
      case 'findAccountByStripeCustomer':
        return this.one<AccountRow>('SELECT * FROM accounts WHERE stripe_customer_id = $1 AND deleted_at IS NULL', [s.customerId], c);
      case 'setPlan':
        return this.setPlanOn(c, s.id, s.plan, s.now);
      case 'setStripeCustomer':
        await c.query('UPDATE accounts SET stripe_customer_id = $1, updated_at = $2 WHERE id = $3', [s.customerId, s.now, s.id]);
        return undefined;
      case 'eventProcessed':
        return (await this.one('SELECT 1 FROM stripe_events WHERE id = $1', [s.id], c)) !== undefined;
      case 'recordEvent': {
        const r = await c.query(
          `INSERT INTO stripe_events (id, type, created, account_id, outcome, processed_at) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (id) DO NOTHING`,
          [s.e.id, s.e.type, s.e.created, s.e.accountId, s.e.outcome, s.e.now],
        );
        return r.rowCount === 1;
      }
      case 'getSubscription':
        return this.one<SubscriptionRow>('SELECT * FROM subscriptions WHERE id = $1', [s.id], c);
      case 'upsertSubscription': {
        const x = s.s;
        await c.query(
          `INSERT INTO subscriptions (id, account_id, customer_id, plan, interval, status, current_period_end, last_event_created, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, customer_id = excluded.customer_id, plan = excluded.plan,
             interval = excluded.interval, status = excluded.status, current_period_end = excluded.current_period_end,
             last_event_created = excluded.last_event_created, updated_at = excluded.updated_at`,
          [x.id, x.account_id, x.customer_id, x.plan, x.interval, x.status, x.current_period_end, x.last_event_created, x.updated_at],
        );
        return undefined;
      }
      case 'subscriptionsOf':
        return (await c.query<SubscriptionRow>('SELECT * FROM subscriptions WHERE account_id = $1 ORDER BY updated_at DESC', [s.accountId]))
          .rows;
    }
  }

  // ---------------------------------------------------------------- retention, health

  runRetention(now: number): Promise<RetentionReport> {
    return this.tx(async (c) => {
      const DAY = 86_400_000;
      const doomed = (
        await c.query<{ id: string }>('SELECT id FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at <= $1', [
          now - RETENTION.deletedAccountDays * DAY,
        ])
      ).rows.map((r) => r.id);
      let sessionsPurged = 0;
      if (doomed.length > 0) {
        await c.query('DELETE FROM request_log WHERE account_id = ANY($1::text[])', [doomed]);
        await c.query('DELETE FROM usage_periods WHERE account_id = ANY($1::text[])', [doomed]);
        await c.query('DELETE FROM usage_minutes WHERE account_id = ANY($1::text[])', [doomed]);
        sessionsPurged += (await c.query('DELETE FROM dashboard_sessions WHERE account_id = ANY($1::text[])', [doomed])).rowCount ?? 0;
        // api_keys and tos_acceptances go by ON DELETE CASCADE; billing rows stay (7-year rule).
        await c.query('DELETE FROM accounts WHERE id = ANY($1::text[])', [doomed]);
      }
      const logCutoff = monthsBefore(now, RETENTION.usageLogMonths);
      const requestLogsPurged = (await c.query('DELETE FROM request_log WHERE at < $1', [logCutoff])).rowCount ?? 0;
      const usagePeriodsPurged =
        (await c.query('DELETE FROM usage_periods WHERE period < $1', [new Date(logCutoff).toISOString().slice(0, 7)])).rowCount ?? 0;
      const ipCutoff = monthsBefore(now, RETENTION.ipAnonymizeMonths);
      let ipsAnonymized = 0;
      for (const [table, at] of [
        ['request_log', 'at'],
        ['tos_acceptances', 'accepted_at'],
      ] as const) {
        const rows = (
          await c.query<{ id: number; ip: string }>(
            `SELECT id, ip FROM ${table} WHERE ${at} < $1 AND ip IS NOT NULL AND NOT ip_anonymized`,
            [ipCutoff],
          )
        ).rows;
        if (rows.length === 0) continue;
        await c.query(
          `UPDATE ${table} t SET ip = v.ip, ip_anonymized = TRUE FROM unnest($1::bigint[], $2::text[]) AS v(id, ip) WHERE t.id = v.id`,
          [rows.map((r) => r.id), rows.map((r) => anonymizeIp(r.ip))],
        );
        ipsAnonymized += rows.length;
      }
      const burstWindowsPurged =
        (await c.query('DELETE FROM usage_minutes WHERE window_start < $1', [now - RETENTION.burstWindowHours * 3_600_000])).rowCount ?? 0;
      const billingCutoff = monthsBefore(now, RETENTION.billingYears * 12);
      const billingRecordsPurged =
        ((await c.query('DELETE FROM stripe_events WHERE processed_at < $1', [billingCutoff])).rowCount ?? 0) +
        ((await c.query('DELETE FROM subscriptions WHERE updated_at < $1', [billingCutoff])).rowCount ?? 0);
      sessionsPurged += (await c.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now])).rowCount ?? 0;
      return {
        accountsPurged: doomed.length,
        requestLogsPurged,
        ipsAnonymized,
        burstWindowsPurged,
        usagePeriodsPurged,
        billingRecordsPurged,
        sessionsPurged,
      };
    });
  }

  /** For /health: a real write, at most once a second while healthy; re-probed on every poll after a fault. */
  async health(now = Date.now()): Promise<DatabaseHealth> {
    if (this.probe && this.probe.health.ok && now - this.probe.at < PROBE_EVERY_MS) return this.probe.health;
    let health: DatabaseHealth;
    try {
      await this.q('UPDATE service_state SET health_probe_at = $1 WHERE id = 1', [now]);
      health = { ok: true };
    } catch (e) {
      health = { ok: false, reason: e instanceof AccountsUnavailableError ? e.reason : String((e as { code?: string }).code ?? 'error') };
    }
    this.probe = { at: now, health };
    return health;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pollTimer);
    clearInterval(this.renewTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
    const ids = [...this.held.values()].map((h) => h.leaseId).concat(this.releases);
    this.held.clear();
    this.releases = [];
    if (ids.length > 0) await this.pool.query('DELETE FROM concurrency_leases WHERE id = ANY($1::text[])', [ids]).catch(() => {});
    await this.pool.end().catch(() => {});
  }
}

/** Grace periods end with time, not with a write: re-derive the status for `now`. */
function refreshTos(tos: TosState, now: number): TosState {
  if (tos.status === 'grace' && now >= tos.graceEndsAt)
    return { status: 'required', document: tos.document, graceEndedAt: tos.graceEndsAt };
  return tos;
}
