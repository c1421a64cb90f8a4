import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/store/accounts/accounts-repo.js';
import { createInvite } from '../../src/store/accounts/invites-repo.js';
import { publishTos } from '../../src/store/accounts/tos-repo.js';
import { accountAcceptTos } from '../../src/verbs/account-accept-tos.js';
import { accountActivate } from '../../src/verbs/account-activate.js';
import { accountCreateKey } from '../../src/verbs/account-create-key.js';
import { accountDelete } from '../../src/verbs/account-delete.js';
import { accountGetProfile } from '../../src/verbs/account-get-profile.js';
import { accountListKeys } from '../../src/verbs/account-list-keys.js';
import { accountRenameKey } from '../../src/verbs/account-rename-key.js';
import { accountRevokeKey } from '../../src/verbs/account-revoke-key.js';
import { accountRotateKey } from '../../src/verbs/account-rotate-key.js';
import { accountUpdateProfile } from '../../src/verbs/account-update-profile.js';
import { accountUsage } from '../../src/verbs/account-usage.js';
import { admitRequest } from '../../src/verbs/admit-request.js';
import { authenticate } from '../../src/verbs/authenticate.js';
import { harness, type Harness } from '../store/accounts/fixtures.js';
import { failure } from '../support/failure.js';

const DAY = 86_400_000;

function signedIn(h: Harness, email: string, plan = 'free') {
  const a = createAccount(h.store.db, { email, plan, now: h.clock.t });
  return { account: a, ctx: () => h.ctx({ accountId: a.id, keyId: 'dashboard', plan }) };
}

describe('cross-account probes', () => {
  it("every key operation on another account's key answers 404, same as a missing key, and changes nothing", async () => {
    const h = harness();
    const alice = signedIn(h, 'alice@example.com', 'pro');
    const mallory = signedIn(h, 'mallory@example.com', 'pro');
    const k = await accountCreateKey({ ctx: alice.ctx(), input: { name: 'alice-key' } });
    const probes = [
      () => accountRotateKey({ ctx: mallory.ctx(), input: { id: k.data.id } }),
      () => accountRevokeKey({ ctx: mallory.ctx(), input: { id: k.data.id } }),
      () => accountRenameKey({ ctx: mallory.ctx(), input: { id: k.data.id, name: 'pwned' } }),
    ];
    const missing = await failure(accountRevokeKey({ ctx: mallory.ctx(), input: { id: 'key_doesnotexist0000000' } }));
    for (const probe of probes) {
      const e = await failure(probe());
      expect(e.status).toBe(404);
      expect(e.code).toBe('not-found');
      expect(e.detail).toBe(missing.detail);
    }
    expect((await accountListKeys({ ctx: mallory.ctx() })).data).toEqual([]);
    const mine = (await accountListKeys({ ctx: alice.ctx() })).data;
    expect(mine).toEqual([expect.objectContaining({ id: k.data.id, name: 'alice-key', status: 'active' })]);
    await expect(authenticate({ ctx: h.ctx(), input: { apiKey: k.data.key } })).resolves.toBeTruthy();
  });

  it("profile, usage and ToS operations only ever see the caller's own account", async () => {
    const h = harness();
    const alice = signedIn(h, 'alice@example.com', 'pro');
    const bob = signedIn(h, 'bob@example.com', 'free');
    const ak = await accountCreateKey({ ctx: alice.ctx(), input: { name: 'a' } });
    const caller = (await authenticate({ ctx: h.ctx(), input: { apiKey: ak.data.key } })).data;
    (await admitRequest({ ctx: h.ctx(caller), input: { cost: 7, instance: '/v1/data', ip: '203.0.113.5' } })).data.release();
    expect((await accountUsage({ ctx: alice.ctx(), input: {} })).data).toMatchObject({ units: { used: 7 }, requests: 1 });
    const bobUsage = (await accountUsage({ ctx: bob.ctx(), input: {} })).data;
    expect(bobUsage).toMatchObject({ units: { used: 0, quota: 1000, remaining: 1000 }, requests: 0, by_route: [], by_key: [] });
    await accountUpdateProfile({ ctx: bob.ctx(), input: { name: 'Bob' } });
    expect((await accountGetProfile({ ctx: alice.ctx() })).data).toMatchObject({ email: 'alice@example.com', name: null });
    // The body cannot redirect the operation to another account.
    // An unknown field is readable but not accepted: 400 under the API-wide rule (docs/errors.md).
    expect((await failure(accountUpdateProfile.invoke({ ctx: bob.ctx(), input: { id: alice.account.id, name: 'x' } }))).status).toBe(400);
  });

  it('a signed-out or deleted caller gets 401 invalid-token with a Bearer challenge', async () => {
    const h = harness();
    const e = await failure(accountGetProfile({ ctx: h.ctx(null) }));
    expect(e.code).toBe('invalid-token');
    expect(e.headers['WWW-Authenticate']).toBe('Bearer realm="census-data-service"');
    const u = signedIn(h, 'z@example.com');
    await accountDelete({ ctx: u.ctx(), input: { confirm: true } });
    const gone = await failure(accountListKeys({ ctx: u.ctx() }));
    expect(gone.code).toBe('invalid-token');
    expect(gone.headers['WWW-Authenticate']).toMatch(/error="invalid_token"/);
  });
});

describe('accept-tos', () => {
  it('records version, ip, user agent and time; rejects a stale version; no document → 409', async () => {
    const h = harness();
    const u = signedIn(h, 't@example.com');
    expect((await failure(accountAcceptTos({ ctx: u.ctx(), input: {} }))).status).toBe(409);
    publishTos(h.store.db, { version: '2026-01', effectiveAt: h.clock.t - DAY, now: h.clock.t });
    publishTos(h.store.db, { version: '2026-03', effectiveAt: h.clock.t, now: h.clock.t });
    const stale = await failure(accountAcceptTos({ ctx: u.ctx(), input: { version: '2026-01' } }));
    expect(stale.extensions.current_version).toBe('2026-03');
    const r = await accountAcceptTos({ ctx: u.ctx(), input: { version: '2026-03', ip: '198.51.100.23', user_agent: 'Mozilla/5.0 test' } });
    expect(r.data).toEqual({ version: '2026-03', accepted_at: new Date(h.clock.t).toISOString(), status: 'accepted' });
    const audit = h.store.db.prepare('SELECT account_id, version, accepted_at, ip, user_agent FROM tos_acceptances').all();
    expect(audit).toEqual([
      { account_id: u.account.id, version: '2026-03', accepted_at: h.clock.t, ip: '198.51.100.23', user_agent: 'Mozilla/5.0 test' },
    ]);
    expect((await accountGetProfile({ ctx: u.ctx() })).data.tos).toEqual({
      status: 'accepted',
      current_version: '2026-03',
      url: null,
      grace_ends_at: null,
    });
  });
});

describe('activate (invite codes)', () => {
  it('single use, expiring, optionally raising the plan', async () => {
    const h = harness();
    const code = createInvite(h.store.db, { plan: 'pioneer', expiresAt: h.clock.t + DAY, now: h.clock.t });
    const expired = createInvite(h.store.db, { plan: null, expiresAt: h.clock.t + 1000, now: h.clock.t });
    const a = signedIn(h, 'a@example.com');
    const b = signedIn(h, 'b@example.com');
    const c = signedIn(h, 'c@example.com');
    expect((await failure(accountActivate({ ctx: a.ctx(), input: { code: 'ZZZZ-ZZZZ-ZZZZ' } }))).status).toBe(404);
    const ok = await accountActivate({ ctx: a.ctx(), input: { code: code.toLowerCase() } });
    expect(ok.data).toMatchObject({ activated: true, plan: 'pioneer' });
    expect((await accountGetProfile({ ctx: a.ctx() })).data).toMatchObject({ activated: true, plan: { id: 'pioneer' } });
    const reused = await failure(accountActivate({ ctx: b.ctx(), input: { code } }));
    expect(reused.status).toBe(409);
    expect(reused.detail).toMatch(/already been used/);
    h.clock.advance(2000);
    expect((await failure(accountActivate({ ctx: c.ctx(), input: { code: expired } }))).detail).toMatch(/expired/);
  });

  it('two accounts racing for one code: exactly one wins', async () => {
    const h = harness();
    const code = createInvite(h.store.db, { plan: null, expiresAt: h.clock.t + DAY, now: h.clock.t });
    const users = Array.from({ length: 20 }, (_, i) => signedIn(h, `r${i}@example.com`));
    const results = await Promise.allSettled(users.map((u) => accountActivate({ ctx: u.ctx(), input: { code } })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('usage', () => {
  it('reports the calendar-month period with breakdowns; an older period by ?period=', async () => {
    const h = harness({ start: '2026-02-27T10:00:00.000Z' });
    const u = signedIn(h, 'u@example.com', 'pioneer');
    const caller = { accountId: u.account.id, keyId: 'key_x', plan: 'pioneer' };
    (await admitRequest({ ctx: h.ctx(caller), input: { cost: 5, instance: '/v1/data' } })).data.release();
    h.clock.set('2026-03-02T10:00:00.000Z');
    (await admitRequest({ ctx: h.ctx(caller), input: { cost: 2, instance: '/v1/data' } })).data.release();
    (await admitRequest({ ctx: h.ctx(caller), input: { cost: 0, instance: '/v1/boundaries/state' } })).data.release();
    const now = (await accountUsage({ ctx: u.ctx(), input: {} })).data;
    expect(now).toMatchObject({
      period: '2026-03',
      period_start: '2026-03-01T00:00:00.000Z',
      period_end: '2026-04-01T00:00:00.000Z',
      units: { used: 2, quota: 50_000, remaining: 49_998 },
      requests: 2,
      by_day: [{ date: '2026-03-02', units: 2, requests: 2 }],
      by_route: [
        { route: '/v1/data', units: 2, requests: 1 },
        { route: '/v1/boundaries/state', units: 0, requests: 1 },
      ],
      by_key: [{ key_id: 'key_x', units: 2, requests: 2 }],
    });
    expect((await accountUsage({ ctx: u.ctx(), input: { period: '2026-02' } })).data).toMatchObject({ units: { used: 5 }, requests: 1 });
    // A well-formed string that is not a valid month: 400 (docs/errors.md).
    expect((await failure(accountUsage({ ctx: u.ctx(), input: { period: '2026-13' } }))).status).toBe(400);
  });
});

describe('delete', () => {
  it('needs confirm: true; soft-deletes and revokes keys', async () => {
    const h = harness();
    const u = signedIn(h, 'del@example.com');
    const k = await accountCreateKey({ ctx: u.ctx(), input: { name: 'k' } });
    expect((await failure(accountDelete.invoke({ ctx: u.ctx(), input: {} }))).status).toBe(422);
    const r = await accountDelete({ ctx: u.ctx(), input: { confirm: true } });
    expect(Date.parse(r.data.purge_after) - Date.parse(r.data.deleted_at)).toBe(30 * DAY);
    expect((await failure(authenticate({ ctx: h.ctx(), input: { apiKey: k.data.key } }))).code).toBe('invalid-api-key');
  });
});
