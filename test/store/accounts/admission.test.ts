import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { createAccount } from '../../../src/store/accounts/accounts-repo.js';
import { stmt } from '../../../src/store/accounts/db.js';
import { admitRequest, releaseAdmission } from '../../../src/verbs/admit-request.js';
import { harness } from './fixtures.js';

const run = promisify(execFile);
const WORKER = path.join(import.meta.dirname, 'admit-worker.ts');
const WORKERS = 4;

async function fanOut(file: string, accountId: string, plan: string, perWorker: number, cost: number, now: number) {
  const outs = await Promise.all(
    Array.from({ length: WORKERS }, () =>
      run(process.execPath, ['--import', 'tsx', WORKER, file, accountId, plan, String(perWorker), String(cost), String(now)], {
        timeout: 120_000,
      }),
    ),
  );
  const parsed = outs.map((o) => JSON.parse(o.stdout) as { admitted: number; rejected: Record<string, number> });
  return {
    admitted: parsed.reduce((s, p) => s + p.admitted, 0),
    rejected: parsed.reduce<Record<string, number>>((acc, p) => {
      for (const [k, v] of Object.entries(p.rejected)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {}),
  };
}

function counters(h: ReturnType<typeof harness>, accountId: string) {
  const period = stmt(h.store.db, 'SELECT units, requests FROM usage_periods WHERE account_id = ?').get(accountId) as {
    units: number;
    requests: number;
  };
  const logs = stmt(h.store.db, 'SELECT count(*) AS n, sum(units) AS u FROM request_log WHERE account_id = ?').get(accountId) as {
    n: number;
    u: number | null;
  };
  return { ...period, logRows: logs.n, logUnits: logs.u ?? 0 };
}

describe('admission across processes on one SQLite file', () => {
  it('loses no increments: 4 processes × 150 requests × 3 units', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'a@example.com', plan: 'pro', now: h.clock.t });
    const r = await fanOut(h.file, a.id, 'pro', 150, 3, h.clock.t);
    expect(r).toEqual({ admitted: 600, rejected: {} });
    expect(counters(h, a.id)).toEqual({ units: 1800, requests: 600, logRows: 600, logUnits: 1800 });
  }, 180_000);

  it('never over-admits the monthly quota: 400 attempts at 250 units against 50,000', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'b@example.com', plan: 'pioneer', now: h.clock.t });
    const r = await fanOut(h.file, a.id, 'pioneer', 100, 250, h.clock.t);
    expect(r.admitted).toBe(200);
    expect(r.rejected).toEqual({ monthly: 200 });
    expect(counters(h, a.id)).toEqual({ units: 50_000, requests: 200, logRows: 200, logUnits: 50_000 });
  }, 180_000);

  it('never over-admits the per-minute burst: 400 attempts against Free 60/min', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'c@example.com', plan: 'free', now: h.clock.t });
    const r = await fanOut(h.file, a.id, 'free', 100, 0, h.clock.t);
    expect(r.admitted).toBe(60);
    expect(r.rejected).toEqual({ burst: 340 });
    // A burst rejection rolls back its monthly increment too.
    expect(counters(h, a.id)).toEqual({ units: 0, requests: 60, logRows: 60, logUnits: 0 });
  }, 180_000);
});

describe('admission in process', () => {
  it('holds the concurrency cap under hundreds of parallel admissions, and frees slots on release', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'd@example.com', plan: 'business', now: h.clock.t });
    const caller = { accountId: a.id, keyId: 'k', plan: 'business' };
    const ctxs = Array.from({ length: 300 }, () => h.ctx(caller));
    const results = await Promise.allSettled(ctxs.map((ctx) => admitRequest({ ctx, input: { cost: 1, instance: '/v1/data' } })));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const bad = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok.length).toBe(50);
    expect(bad.every((r) => r.reason instanceof AppError && r.reason.extensions.limit_type === 'concurrency')).toBe(true);
    expect(h.store.concurrency.inFlight(a.id)).toBe(50);
    // Rejected requests were never charged.
    expect(counters(h, a.id).units).toBe(50);
    for (const ctx of ctxs) releaseAdmission(ctx);
    expect(h.store.concurrency.inFlight(a.id)).toBe(0);
    await expect(admitRequest({ ctx: h.ctx(caller), input: { cost: 1, instance: '/v1/data' } })).resolves.toBeTruthy();
  });

  it('a request charged twice holds one slot, released once at the end', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'twice@example.com', plan: 'free', now: h.clock.t });
    const ctx = h.ctx({ accountId: a.id, keyId: 'k', plan: 'free' });
    await admitRequest({ ctx, input: { cost: 1, instance: '/v1/data' } });
    await admitRequest({ ctx, input: { cost: 2, instance: '/v1/data' } });
    expect(h.store.concurrency.inFlight(a.id)).toBe(1);
    // A failed second charge must not release the slot the request still uses.
    await expect(admitRequest({ ctx, input: { cost: 5000, instance: '/v1/data' } })).rejects.toMatchObject({
      extensions: { limit_type: 'monthly' },
    });
    expect(h.store.concurrency.inFlight(a.id)).toBe(1);
    releaseAdmission(ctx);
    expect(h.store.concurrency.inFlight(a.id)).toBe(0);
    expect(counters(h, a.id).units).toBe(3);
  });

  it('429 body: limit_type, plan, quota, upgrade_url, instance, Retry-After and RateLimit headers', async () => {
    const h = harness({ start: '2026-03-31T23:59:30.000Z' });
    const a = createAccount(h.store.db, { email: 'e@example.com', plan: 'free', now: h.clock.t });
    const caller = { accountId: a.id, keyId: 'k', plan: 'free' };
    const first = await admitRequest({ ctx: h.ctx(caller), input: { cost: 999, instance: '/v1/data' } });
    first.data.release();
    expect(first.data.headers['RateLimit-Policy']).toBe(
      '"monthly";q=1000;w=2678400, "burst";q=60;w=60, "concurrency";q=2;qu="concurrent-requests"',
    );
    expect(first.data.headers.RateLimit).toBe('"monthly";r=1;t=30, "burst";r=59;t=30, "concurrency";r=1');
    const err = await admitRequest({ ctx: h.ctx(caller), input: { cost: 2, instance: '/v1/compare' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.status).toBe(429);
    expect(e.instance).toBe('/v1/compare');
    expect(e.extensions).toEqual({
      limit_type: 'monthly',
      plan: 'free',
      quota: 1000,
      upgrade_url: 'http://localhost:8080/dashboard/billing?plan=pioneer',
    });
    expect(e.headers['Retry-After']).toBe('30');
    expect(e.headers.RateLimit).toContain('"monthly";r=1;');
    // Exactly the remaining unit still fits, and a new month resets the quota.
    (await admitRequest({ ctx: h.ctx(caller), input: { cost: 1, instance: '/v1/data' } })).data.release();
    h.clock.advance(31_000);
    const april = await admitRequest({ ctx: h.ctx(caller), input: { cost: 1000, instance: '/v1/data' } });
    expect(april.data.headers.RateLimit).toMatch(/^"monthly";r=0;t=2591999, "burst";r=59;t=59/);
  });

  it('zero-cost requests pass an exhausted monthly quota but still count toward burst', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'f@example.com', plan: 'free', now: h.clock.t });
    const caller = { accountId: a.id, keyId: 'k', plan: 'free' };
    (await admitRequest({ ctx: h.ctx(caller), input: { cost: 1000, instance: '/v1/data' } })).data.release();
    await expect(admitRequest({ ctx: h.ctx(caller), input: { cost: 1, instance: '/v1/data' } })).rejects.toMatchObject({
      extensions: { limit_type: 'monthly' },
    });
    for (let i = 0; i < 59; i++)
      (await admitRequest({ ctx: h.ctx(caller), input: { cost: 0, instance: '/v1/boundaries/state' } })).data.release();
    const e = (await admitRequest({ ctx: h.ctx(caller), input: { cost: 0, instance: '/v1/boundaries/state' } }).catch(
      (x: unknown) => x,
    )) as AppError;
    expect(e.extensions.limit_type).toBe('burst');
    expect(e.extensions.quota).toBe(60);
    expect(Number(e.headers['Retry-After'])).toBeGreaterThan(0);
    h.clock.advance(60_000);
    await expect(admitRequest({ ctx: h.ctx(caller), input: { cost: 0, instance: '/v1/boundaries/state' } })).resolves.toBeTruthy();
  });
});
