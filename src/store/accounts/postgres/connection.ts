// The PostgreSQL accounts database as the repositories see it: a pool whose every statement runs
// after the migrations and turns an unreachable or refusing server into AccountsUnavailableError
// (503 dependency-unavailable), and transactions on one pooled client.
import pg from 'pg';
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

/** An availability failure as AccountsUnavailableError; anything else as it was. */
function classify(e: unknown): unknown {
  if (e instanceof AccountsUnavailableError || !isUnavailable(e)) return e;
  return new AccountsUnavailableError(unavailableReason(e), { cause: e });
}

/** What a repository function runs its statements on: the pool, or one transaction's client. */
export interface Pg {
  q<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  one<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R | undefined>;
}

function onClient(c: pg.PoolClient): Pg {
  const q = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
    try {
      return await c.query<R>(sql, params);
    } catch (e) {
      throw classify(e);
    }
  };
  return { q, one: async (sql, params) => (await q(sql, params)).rows[0] as never };
}

/** Serialize with every other transaction (any replica) that names the same key; released at COMMIT. */
export async function advisoryLock(c: Pg, key: string): Promise<void> {
  await c.q('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [key]);
}

export const APPLICATION_NAME = 'census-data-service';

export class PgDb implements Pg {
  readonly pool: pg.Pool;
  private migrated: Promise<void> | undefined;
  private closed = false;

  /** `onReady` runs once, after the first successful migration (the store starts its timers). */
  constructor(
    opts: { url: string; poolSize?: number },
    private readonly onReady: () => void,
  ) {
    this.pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      // An unreachable database must turn into a 503 quickly, not a hung request.
      connectionTimeoutMillis: 3_000,
      query_timeout: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: APPLICATION_NAME,
    });
    // An idle client losing its connection (database restart) must not crash the process; the
    // pool drops it and the next query connects again.
    this.pool.on('error', () => {});
  }

  /** Apply pending migrations (then onReady). Safe to call often. */
  ready(): Promise<void> {
    if (this.closed) return Promise.reject(new AccountsUnavailableError('closed'));
    this.migrated ??= this.migrate().then(
      () => this.onReady(),
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
      await c.q('SELECT pg_advisory_xact_lock(7216316)');
      await c.q('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const v0 = (await c.one<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations'))?.v ?? 0;
      for (let v = v0; v < PG_MIGRATIONS.length; v++) {
        await c.q(PG_MIGRATIONS[v]!);
        await c.q('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [v + 1, Date.now()]);
      }
    }, false);
  }

  /** Every statement outside a transaction goes through here: migrations first, availability errors turned into 503s. */
  async q<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      await this.ready();
      return await this.pool.query<R>(sql, params);
    } catch (e) {
      throw classify(e);
    }
  }

  async one<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R | undefined> {
    return (await this.q<R>(sql, params)).rows[0];
  }

  /** BEGIN … COMMIT on one client; a client whose connection broke is not returned to the pool. */
  async tx<T>(fn: (c: Pg) => Promise<T>, needReady = true): Promise<T> {
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
      const out = await fn(onClient(c));
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch((re: Error) => (broken = re));
      // A connection that failed is dropped rather than reused (a failed ROLLBACK says so too).
      const out = classify(e);
      if (out !== e) broken = e as Error;
      throw out;
    } finally {
      c.release(broken);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.end().catch(() => {});
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
