import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64url } from 'jose';
import { AppError } from '../../src/domain/errors.js';
import { createAccount, getAccount } from '../../src/store/accounts/accounts-repo.js';
import { IdentityVerifier } from '../../src/store/accounts/identity.js';
import { authenticateDashboard } from '../../src/verbs/authenticate-dashboard.js';
import { harness } from '../store/accounts/fixtures.js';
import { startLocalIdp, type LocalIdp } from '../support/oidc.js';

let idp: LocalIdp;
beforeAll(async () => {
  idp = await startLocalIdp();
});
afterAll(async () => {
  await idp.close();
});

function setup(opts: { discovery?: boolean } = {}) {
  const identity = new IdentityVerifier({ issuer: idp.issuer, audience: idp.audience, jwksUrl: opts.discovery ? undefined : idp.jwksUrl });
  // Tokens are signed with the real clock; the harness clock follows it.
  const h = harness({ stores: { identity }, start: new Date().toISOString() });
  return h;
}

async function rejects(h: ReturnType<typeof setup>, token: string) {
  const e = await authenticateDashboard({ ctx: h.ctx(), input: { token } }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(AppError);
  expect((e as AppError).code).toBe('invalid-token');
  expect((e as AppError).status).toBe(401);
  expect((e as AppError).headers['WWW-Authenticate']).toMatch(/^Bearer realm="census-data-service", error="invalid_token"/);
  return e as AppError;
}

describe('dashboard token verification against a local JWKS server', () => {
  it('accepts a good token and creates the account on first sign-in, then reuses it', async () => {
    const h = setup();
    const token = await idp.sign({ sub: 'user-1', email: 'u1@example.com', email_verified: true });
    const first = await authenticateDashboard({ ctx: h.ctx(), input: { token } });
    expect(first.data).toMatchObject({ plan: 'free', keyId: 'dashboard', created: true });
    expect(getAccount(h.store.db, first.data.accountId)?.email).toBe('u1@example.com');
    const again = await authenticateDashboard({ ctx: h.ctx(), input: { token: await idp.sign({ sub: 'user-1' }) } });
    expect(again.data).toMatchObject({ accountId: first.data.accountId, created: false });
  });

  it('finds the JWKS through OIDC discovery when no JWKS URL is configured', async () => {
    const h = setup({ discovery: true });
    const r = await authenticateDashboard({ ctx: h.ctx(), input: { token: await idp.sign({ sub: 'user-disc' }) } });
    expect(r.data.created).toBe(true);
  });

  it('rejects a wrong issuer', async () => {
    await rejects(setup(), await idp.sign({ sub: 'u' }, { issuer: 'https://evil.example.com' }));
  });

  it('rejects a wrong audience', async () => {
    await rejects(setup(), await idp.sign({ sub: 'u' }, { audience: 'some-other-app' }));
  });

  it('rejects an expired token', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    await rejects(setup(), await idp.sign({ sub: 'u' }, { iat: past - 600, expiresIn: past }));
  });

  it('rejects a bad signature (right kid, wrong key) and a tampered payload', async () => {
    const h = setup();
    await rejects(h, await idp.sign({ sub: 'u' }, { key: 'rogue' }));
    const good = await idp.sign({ sub: 'u' });
    const [head, , sig] = good.split('.');
    const forged = base64url.encode(
      JSON.stringify({ sub: 'admin', iss: idp.issuer, aud: idp.audience, exp: Math.floor(Date.now() / 1000) + 600 }),
    );
    await rejects(h, `${head}.${forged}.${sig}`);
  });

  it('rejects alg=none and garbage', async () => {
    const h = setup();
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify({ sub: 'u', iss: idp.issuer, aud: idp.audience, exp: Math.floor(Date.now() / 1000) + 600 }))}.`;
    await rejects(h, none);
    await rejects(h, 'not-a-jwt');
  });

  it('links an admin-created account only when the e-mail is verified', async () => {
    const h = setup();
    const existing = createAccount(h.store.db, { email: 'Ops@Example.com', plan: 'pro', now: h.clock.t });
    const unverified = await authenticateDashboard({
      ctx: h.ctx(),
      input: { token: await idp.sign({ sub: 'sneaky', email: 'ops@example.com', email_verified: false }) },
    });
    expect(unverified.data.accountId).not.toBe(existing.id);
    expect(unverified.data.plan).toBe('free');
    const verified = await authenticateDashboard({
      ctx: h.ctx(),
      input: { token: await idp.sign({ sub: 'ops', email: 'ops@example.com', email_verified: true }) },
    });
    expect(verified.data).toMatchObject({ accountId: existing.id, plan: 'pro', created: false });
  });

  it('answers 503 when the identity provider is unreachable', async () => {
    const identity = new IdentityVerifier({ issuer: idp.issuer, audience: idp.audience, jwksUrl: 'http://127.0.0.1:1/jwks' });
    const h = harness({ stores: { identity }, start: new Date().toISOString() });
    const e = await authenticateDashboard({ ctx: h.ctx(), input: { token: await idp.sign({ sub: 'u' }) } }).catch((x: unknown) => x);
    expect((e as AppError).code).toBe('dependency-unavailable');
  });
});
