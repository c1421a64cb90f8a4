// Authentication and admission through the production seams (src/verbs/lifecycle/seams.ts → accounts verbs)
// on a real SQLite accounts store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { openAccountsDb } from '../../src/store/accounts/db.js';
import { AccountStore } from '../../src/store/accounts/index.js';
import { createAccount } from '../../src/store/accounts/accounts-repo.js';
import { createKey, revokeKey } from '../../src/store/accounts/keys-repo.js';
import { publishTos } from '../../src/store/accounts/tos-repo.js';
import { PLANS } from '../../src/domain/plans.js';
import { assertAuthMatrix } from './auth-matrix.js';
import { fixtureRoutes } from './fixture-routes.js';
import { makeApp, problemOf } from './support.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');

function accountsFixture() {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cds-auth-')), 'accounts.sqlite');
  const store = new AccountStore(openAccountsDb(file));
  const key = (plan: string) => {
    const acc = createAccount(store.db, { email: null, plan, now: NOW });
    return { account: acc, ...createKey(store.db, acc.id, 'test', 10, NOW) };
  };
  return { store, key };
}

describe('API-key authentication (accounts verbs)', () => {
  let app: FastifyInstance;
  const fx = accountsFixture();
  const free = fx.key('free');
  const pro = fx.key('pro');
  const revoked = fx.key('pro');
  revokeKey(fx.store.db, revoked.account.id, revoked.row.id, NOW);

  beforeAll(async () => {
    app = await makeApp({ extraRoutes: fixtureRoutes, stores: { accounts: fx.store }, seams: undefined, now: () => new Date(NOW) });
  });
  afterAll(async () => {
    await app.close();
    fx.store.close();
  });

  it('satisfies the auth matrix on protected routes', async () => {
    await assertAuthMatrix(app, [{ url: '/t/items?geo=state:06' }, { url: '/t/table' }, { url: '/t/flagged' }], {
      valid: pro.rawKey,
      revoked: revoked.rawKey,
    });
  });

  it('leaves public routes public', async () => {
    expect((await app.inject({ url: '/t/public' })).statusCode).toBe(200);
  });

  it('authenticates before validating, so a keyless bad request is 401 not 422', async () => {
    const res = await app.inject({ url: '/t/items?vintage=abc' });
    expect(res.statusCode).toBe(401);
  });

  it('puts rate-limit headers on successes and on errors of authenticated requests', async () => {
    const ok = await app.inject({ url: '/t/items?geo=state:06', headers: { 'x-api-key': free.rawKey } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['ratelimit']).toMatch(/"monthly";r=\d+/);
    expect(ok.headers['ratelimit-policy']).toContain(`q=${PLANS.free.limits.monthlyUnits}`);

    const invalid = await app.inject({ url: '/t/items', headers: { 'x-api-key': free.rawKey } });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.headers['ratelimit']).toBeTruthy();

    const gated = await app.inject({ url: '/t/table?format=csv', headers: { 'x-api-key': free.rawKey } });
    expect(gated.statusCode).toBe(403);
    expect(problemOf(gated).type).toMatch(/feature-requires-upgrade$/);
    expect(gated.headers['ratelimit']).toBeTruthy();

    const anonymous = await app.inject({ url: '/t/items' });
    expect(anonymous.headers['ratelimit']).toBeUndefined();
  });

  it('charges one unit per admitted request and reports it', async () => {
    const remaining = async () => {
      const res = await app.inject({ url: '/t/items?geo=state:06', headers: { 'x-api-key': pro.rawKey } });
      return Number(/"monthly";r=(\d+)/.exec(String(res.headers['ratelimit']))?.[1]);
    };
    const a = await remaining();
    const b = await remaining();
    expect(a - b).toBe(1);
  });

  it('lets a verb charge its own cost through ctx.charge, once', async () => {
    const monthly = (res: { headers: Record<string, unknown> }) => Number(/"monthly";r=(\d+)/.exec(String(res.headers['ratelimit']))?.[1]);
    const k = fx.key('pro');
    const before = await app.inject({ url: '/t/items?geo=state:06', headers: { 'x-api-key': k.rawKey } });
    const res = await app.inject({ url: '/t/expensive', headers: { 'x-api-key': k.rawKey } });
    expect(res.json().data).toEqual({ charged: true });
    expect(monthly(before) - monthly(res)).toBe(5);
  });

  it('refuses with 429 and Retry-After once the monthly quota is spent', async () => {
    const tiny = fx.key('free');
    let last;
    for (let i = 0; i <= PLANS.free.limits.burstPerMinute; i++) {
      last = await app.inject({ url: '/t/items?geo=state:06', headers: { 'x-api-key': tiny.rawKey } });
      if (last.statusCode === 429) break;
    }
    expect(last!.statusCode).toBe(429);
    const p = problemOf(last!);
    expect(p.type).toMatch(/rate-limit-exceeded$/);
    expect(p.instance).toBe('/t/items');
    expect(p.limit_type).toBeTruthy();
    expect(last!.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('returns 403 tos-acceptance-required after the grace period', async () => {
    const fx2 = accountsFixture();
    const k = fx2.key('pro');
    publishTos(fx2.store.db, { version: '2026-01', effectiveAt: NOW - 40 * 86_400_000, now: NOW - 40 * 86_400_000 });
    const late = await makeApp({
      extraRoutes: fixtureRoutes,
      stores: { accounts: fx2.store },
      seams: undefined,
      now: () => new Date(NOW + 31 * 86_400_000),
    });
    const res = await late.inject({ url: '/t/items?geo=state:06', headers: { 'x-api-key': k.rawKey } });
    expect(res.statusCode).toBe(403);
    expect(problemOf(res).type).toMatch(/tos-acceptance-required$/);
    await late.close();
    fx2.store.close();
  });
});

describe('without an accounts store', () => {
  it('answers 401 for a missing key and 503 (not 500) when a key must be checked', async () => {
    const app = await makeApp({ extraRoutes: fixtureRoutes, stores: {}, seams: undefined });
    expect((await app.inject({ url: '/t/items?geo=state:06' })).statusCode).toBe(401);
    const res = await app.inject({ url: '/t/items?geo=state:06', headers: { 'x-api-key': `svc_live_${'a'.repeat(32)}` } });
    expect(res.statusCode).toBe(503);
    expect(problemOf(res).type).toMatch(/dependency-unavailable$/);
    expect((await app.inject({ url: '/t/public' })).statusCode).toBe(200);
    await app.close();
  });
});
