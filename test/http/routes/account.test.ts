// The account endpoints over HTTP (fastify inject) with the real seams: dashboard tokens from a
// local JWKS server, Stripe through the local stub, raw-body webhook verification, and an API-key
// route to watch admission, rate-limit headers and revocation end to end.
import { Writable } from 'node:stream';
import pino from 'pino';
import Stripe from 'stripe';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStripe } from '../../../src/store/accounts/stripe-client.js';
import { buildApp } from '../../../src/http/app.js';
import { defineRoute } from '../../../src/http/route-helpers.js';
import { IdentityVerifier } from '../../../src/store/accounts/identity.js';
import { harness, type Harness } from '../../store/accounts/fixtures.js';
import { startLocalIdp, type LocalIdp } from '../../support/oidc.js';
import { startStripeStub, type StripeStub } from '../../support/stripe-stub.js';

const SECRET = 'whsec_routes_test';
let idp: LocalIdp;
let stub: StripeStub;
let h: Harness;
let app: FastifyInstance;
const httpLogs: string[] = [];
const issuedKeys: string[] = [];

beforeAll(async () => {
  idp = await startLocalIdp();
  stub = await startStripeStub();
  const identity = new IdentityVerifier({ issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl });
  const stripe = createStripe({ STRIPE_SECRET_KEY: 'sk_test_stub', STRIPE_API_URL: stub.url })!;
  h = harness({
    stores: { identity, stripe },
    start: new Date().toISOString(),
    config: { STRIPE_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'silent' },
  });
  app = await buildApp({
    config: h.config,
    stores: h.stores,
    now: () => new Date(h.clock.t),
    logger: pino({ level: 'trace' }, new Writable({ write: (c, _e, cb) => (httpLogs.push(String(c)), cb()) })),
    extraRoutes: (a) => {
      defineRoute(a, {
        url: '/v1/test-data',
        summary: 'probe',
        auth: 'api-key',
        needs: ['accounts'],
        // A parameter, so a request can carry a query string that `instance` must leave out.
        querystring: z.object({ x: z.string().optional() }),
        costOf: () => 400,
        data: z.object({ ok: z.boolean() }),
        handler: async () => ({ data: { ok: true } }),
      });
    },
  });
});
afterAll(async () => {
  await app?.close();
  await idp.close();
  await stub.close();
});

const bearer = async (sub: string, email = `${sub}@example.com`) => ({
  authorization: `Bearer ${await idp.sign({ sub, email, email_verified: true })}`,
});

describe('account endpoints over HTTP', () => {
  it('401 without or with a bad token: problem+json, Bearer challenge, instance', async () => {
    const none = await app.inject({ method: 'GET', url: '/v1/account' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm="census-data-service"/);
    expect(none.json()).toMatchObject({ status: 401, instance: '/v1/account' });
    const bad = await app.inject({
      method: 'GET',
      url: '/v1/account/usage',
      headers: { authorization: `Bearer ${await idp.sign({ sub: 'x' }, { audience: 'nope' })}` },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('first sign-in creates the account; key create → use → revoke → 401; another account’s key → 404', async () => {
    const alice = await bearer('alice-http');
    const profile = await app.inject({ method: 'GET', url: '/v1/account', headers: alice });
    expect(profile.statusCode).toBe(200);
    expect(profile.json().data).toMatchObject({ email: 'alice-http@example.com', plan: { id: 'free' }, tos: { status: 'none' } });
    expect(profile.json().meta.request_id).toBeTruthy();

    const noName = await app.inject({ method: 'POST', url: '/v1/account/keys', headers: alice, payload: {} });
    expect(noName.statusCode).toBe(422);
    const created = await app.inject({ method: 'POST', url: '/v1/account/keys', headers: alice, payload: { name: 'http' } });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const key = created.json().data;
    expect(key.key).toMatch(/^svc_live_/);
    issuedKeys.push(key.key);

    const used = await app.inject({ method: 'GET', url: '/v1/test-data', headers: { 'x-api-key': key.key } });
    expect(used.statusCode).toBe(200);
    expect(used.headers['ratelimit-policy']).toContain('"monthly";q=1000');
    expect(used.headers.ratelimit).toContain('"monthly";r=600');

    const mallory = await bearer('mallory-http');
    for (const [method, url, payload] of [
      ['DELETE', `/v1/account/keys/${key.id}`, undefined],
      ['POST', `/v1/account/keys/${key.id}/rotate`, undefined],
      ['PATCH', `/v1/account/keys/${key.id}`, { name: 'pwned' }],
    ] as const) {
      const r = await app.inject({ method, url, headers: mallory, payload });
      expect(r.statusCode, `${method} ${url}`).toBe(404);
    }

    const revoked = await app.inject({ method: 'DELETE', url: `/v1/account/keys/${key.id}`, headers: alice });
    expect(revoked.json().data.status).toBe('revoked');
    const after = await app.inject({ method: 'GET', url: '/v1/test-data', headers: { 'x-api-key': key.key } });
    expect(after.statusCode).toBe(401);
    expect(after.json().type).toMatch(/invalid-api-key$/);
  });

  it('quota exhaustion: 429 with limit_type/plan/quota/upgrade_url; the dashboard still works', async () => {
    const bob = await bearer('bob-http');
    const key = (await app.inject({ method: 'POST', url: '/v1/account/keys', headers: bob, payload: { name: 'k' } })).json().data
      .key as string;
    issuedKeys.push(key);
    for (let i = 0; i < 2; i++)
      expect((await app.inject({ method: 'GET', url: '/v1/test-data', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const over = await app.inject({ method: 'GET', url: '/v1/test-data?x=1', headers: { 'x-api-key': key } });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ limit_type: 'monthly', plan: 'free', quota: 1000, instance: '/v1/test-data' });
    expect(over.json().upgrade_url).toMatch(/billing\?plan=pioneer$/);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    const usage = await app.inject({ method: 'GET', url: '/v1/account/usage', headers: bob });
    expect(usage.statusCode).toBe(200);
    expect(usage.json().data.units).toEqual({ used: 800, quota: 1000, remaining: 200 });
  });

  it('accept-tos records the connection’s IP and user agent', async () => {
    const carol = await bearer('carol-http');
    const { publishTos } = await import('../../../src/store/accounts/tos-repo.js');
    publishTos(h.store.db, { version: 'v-http', effectiveAt: h.clock.t - 1000, now: h.clock.t });
    const r = await app.inject({
      method: 'POST',
      url: '/v1/account/accept-tos',
      headers: { ...carol, 'user-agent': 'DashboardTest/1.0' },
      payload: { version: 'v-http' },
      remoteAddress: '198.51.100.42',
    });
    expect(r.statusCode).toBe(200);
    const row = h.store.db.prepare("SELECT ip, user_agent, version FROM tos_acceptances WHERE version = 'v-http'").get();
    expect(row).toEqual({ ip: '198.51.100.42', user_agent: 'DashboardTest/1.0', version: 'v-http' });
  });

  it('checkout (monthly default) and portal through the Stripe stub', async () => {
    const dave = await bearer('dave-http');
    const c = await app.inject({ method: 'POST', url: '/v1/account/checkout', headers: dave, payload: { plan: 'pro' } });
    expect(c.statusCode).toBe(200);
    expect(c.json().data).toMatchObject({ plan: 'pro', interval: 'monthly', amount: 4900 });
    const p = await app.inject({ method: 'GET', url: '/v1/account/portal', headers: dave });
    expect(p.statusCode).toBe(200);
    expect(p.json().data.url).toMatch(/^https:\/\/billing\.stripe\.com\//);
  });

  it('webhook: verifies the raw body (whitespace preserved), rejects tampering, moves the plan', async () => {
    const erin = await bearer('erin-http');
    const accountId = (await app.inject({ method: 'GET', url: '/v1/account', headers: erin })).json().data.id as string;
    // Pretty-printed on purpose: a re-serialized JSON body would no longer match the signature.
    const payload = JSON.stringify(
      {
        id: 'evt_http_1',
        object: 'event',
        type: 'customer.subscription.created',
        created: Math.floor(h.clock.t / 1000),
        data: {
          object: {
            id: 'sub_http',
            object: 'subscription',
            customer: 'cus_http',
            status: 'active',
            metadata: { account_id: accountId, plan: 'business' },
            items: { data: [] },
          },
        },
      },
      null,
      2,
    );
    const sig = new Stripe('sk_test_x').webhooks.generateTestHeaderString({
      payload,
      secret: SECRET,
      timestamp: Math.floor(h.clock.t / 1000),
    });
    const tampered = await app.inject({
      method: 'POST',
      url: '/v1/billing/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': sig },
      payload: payload.replace('business', 'pro'),
    });
    expect(tampered.statusCode).toBe(400);
    const ok = await app.inject({
      method: 'POST',
      url: '/v1/billing/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': sig },
      payload,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ received: true, status: 'applied' });
    const again = await app.inject({
      method: 'POST',
      url: '/v1/billing/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': sig },
      payload,
    });
    expect(again.json().status).toBe('duplicate');
    expect((await app.inject({ method: 'GET', url: '/v1/account', headers: erin })).json().data.plan.id).toBe('business');
  });

  it('no issued key appears in any log line of the HTTP run (trace level)', () => {
    expect(issuedKeys.length).toBeGreaterThan(1);
    const all = httpLogs.join('');
    expect(all).toContain('/v1/account/keys');
    for (const k of issuedKeys) expect(all).not.toContain(k.slice(9));
  });
});
