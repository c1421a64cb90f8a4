import { describe, expect, it } from 'vitest';
import { createAccount, softDeleteAccount } from '../../../src/store/accounts/accounts-repo.js';
import { recordEvent, upsertSubscription } from '../../../src/store/accounts/billing-repo.js';
import { createKey } from '../../../src/store/accounts/keys-repo.js';
import { anonymizeIp, monthsBefore, runRetention } from '../../../src/store/accounts/retention.js';
import { createSession, findSession } from '../../../src/store/accounts/sessions-repo.js';
import { recordAcceptance } from '../../../src/store/accounts/tos-repo.js';
import { tryCharge } from '../../../src/store/accounts/usage-repo.js';
import { retentionRun } from '../../../src/verbs/account-retention-run.js';
import { harness } from './fixtures.js';

const DAY = 86_400_000;

function logAt(h: ReturnType<typeof harness>, accountId: string, at: number, ip: string) {
  const out = tryCharge(h.store.db, {
    accountId,
    keyId: null,
    period: new Date(at).toISOString().slice(0, 7),
    minute: Math.floor(at / 60_000) * 60_000,
    cost: 1,
    monthlyQuota: 1e9,
    burstQuota: 1e9,
    route: '/v1/data',
    ip,
    now: at,
  });
  expect(out.ok).toBe(true);
}

describe('anonymizeIp', () => {
  it('keeps the network, drops the host', () => {
    expect(anonymizeIp('203.0.113.77')).toBe('203.0.113.0');
    expect(anonymizeIp('::ffff:198.51.100.9')).toBe('198.51.100.0');
    expect(anonymizeIp('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::');
    expect(anonymizeIp('2001:db8::1')).toBe('2001:db8:0::');
  });
});

describe('retention run', () => {
  it('purges accounts 30 days after soft delete, logs after 24 months; anonymizes IPs after 12 months; keeps billing 7 years', async () => {
    const h = harness({ start: '2026-06-15T00:00:00.000Z' });
    const now = h.clock.t;
    const keep = createAccount(h.store.db, { email: 'keep@example.com', plan: 'pro', now: now - 1000 * DAY });
    const gone = createAccount(h.store.db, { email: 'gone@example.com', plan: 'free', now: now - 100 * DAY });
    const recent = createAccount(h.store.db, { email: 'recent@example.com', plan: 'free', now: now - 100 * DAY });
    createKey(h.store.db, gone.id, 'k', 5, now - 90 * DAY);
    recordAcceptance(h.store.db, { accountId: gone.id, version: 'v1', ip: '192.0.2.1', userAgent: 'x', now: now - 90 * DAY });
    logAt(h, gone.id, now - 40 * DAY, '192.0.2.1');
    softDeleteAccount(h.store.db, gone.id, now - 30 * DAY - 1);
    softDeleteAccount(h.store.db, recent.id, now - 29 * DAY);
    upsertSubscription(h.store.db, {
      id: 'sub_gone',
      account_id: gone.id,
      customer_id: 'cus',
      plan: 'pro',
      interval: 'monthly',
      status: 'canceled',
      current_period_end: null,
      last_event_created: now - 60 * DAY,
      updated_at: now - 60 * DAY,
    });
    upsertSubscription(h.store.db, {
      id: 'sub_ancient',
      account_id: keep.id,
      customer_id: 'cus',
      plan: 'pro',
      interval: 'monthly',
      status: 'canceled',
      current_period_end: null,
      last_event_created: 0,
      updated_at: monthsBefore(now, 84) - 1,
    });
    recordEvent(h.store.db, {
      id: 'evt_old',
      type: 'x',
      created: 0,
      accountId: keep.id,
      outcome: 'applied',
      now: monthsBefore(now, 84) - 1,
    });
    recordEvent(h.store.db, { id: 'evt_new', type: 'x', created: 0, accountId: keep.id, outcome: 'applied', now: monthsBefore(now, 83) });
    logAt(h, keep.id, monthsBefore(now, 24) - 1, '203.0.113.1'); // purged
    logAt(h, keep.id, monthsBefore(now, 24) + DAY, '203.0.113.2'); // kept, anonymized
    logAt(h, keep.id, monthsBefore(now, 12) - 1, '203.0.113.3'); // kept, anonymized
    logAt(h, keep.id, monthsBefore(now, 12) + DAY, '203.0.113.4'); // kept as is
    recordAcceptance(h.store.db, { accountId: keep.id, version: 'v0', ip: '198.51.100.200', userAgent: 'ua', now: monthsBefore(now, 13) });

    const r = (await retentionRun({ ctx: h.ctx() })).data;
    expect(r).toMatchObject({ accountsPurged: 1, requestLogsPurged: 1, ipsAnonymized: 3, billingRecordsPurged: 2 });
    const db = h.store.db;
    const ids = (db.prepare('SELECT id FROM accounts ORDER BY email').all() as { id: string }[]).map((x) => x.id);
    expect(ids).toEqual([keep.id, recent.id]);
    expect(db.prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ?').get(gone.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM tos_acceptances WHERE account_id = ?').get(gone.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM request_log WHERE account_id = ?').get(gone.id)).toEqual({ n: 0 });
    // Billing records outlive the account (7 years), only the ancient ones go.
    expect((db.prepare('SELECT id FROM subscriptions').all() as { id: string }[]).map((x) => x.id)).toEqual(['sub_gone']);
    expect((db.prepare('SELECT id FROM stripe_events').all() as { id: string }[]).map((x) => x.id)).toEqual(['evt_new']);
    expect(
      (db.prepare('SELECT ip FROM request_log WHERE account_id = ? ORDER BY at').all(keep.id) as { ip: string }[]).map((x) => x.ip),
    ).toEqual(['203.0.113.0', '203.0.113.0', '203.0.113.4']);
    expect(db.prepare('SELECT ip FROM tos_acceptances WHERE account_id = ?').get(keep.id)).toEqual({ ip: '198.51.100.0' });
    // Idempotent.
    expect((await retentionRun({ ctx: h.ctx() })).data).toMatchObject({ accountsPurged: 0, requestLogsPurged: 0, ipsAnonymized: 0 });
  });
});

describe('dashboard sessions', () => {
  it('retention deletes expired sessions and keeps live ones', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 's@example.com', plan: 'free', now: h.clock.t });
    const old = createSession(h.store.db, a.id, h.clock.t - 2 * DAY, DAY);
    const live = createSession(h.store.db, a.id, h.clock.t, DAY);
    const r = runRetention(h.store.db, h.clock.t);
    expect(r.sessionsPurged).toBe(1);
    expect(findSession(h.store.db, old.id, h.clock.t - 2 * DAY + 1)).toBeUndefined();
    expect(findSession(h.store.db, live.id, h.clock.t)?.account_id).toBe(a.id);
  });
});
