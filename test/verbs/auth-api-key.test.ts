import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedKey } from '../../src/domain/keys.js';
import { createAccount, softDeleteAccount } from '../../src/store/accounts/accounts-repo.js';
import { createKey, revokeKey } from '../../src/store/accounts/keys-repo.js';
import { publishTos, recordAcceptance } from '../../src/store/accounts/tos-repo.js';
import { authenticate } from '../../src/verbs/authenticate.js';
import { harness } from '../store/accounts/fixtures.js';
import { failure } from '../support/failure.js';

const DAY = 86_400_000;

function withKey(plan = 'free') {
  const h = harness();
  const account = createAccount(h.store.db, { email: 'k@example.com', plan, now: h.clock.t });
  const { row, rawKey } = createKey(h.store.db, account.id, 'main', 10, h.clock.t);
  return { h, account, key: row, rawKey };
}

describe('key format', () => {
  it('svc_live_ + 32 base62 characters, distinct every time', () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
    for (const k of keys) expect(k).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(hashApiKey('svc_live_x')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('authenticate', () => {
  it('returns the caller for an active key and records last use', async () => {
    const { h, account, key, rawKey } = withKey('pro');
    const r = await authenticate({ ctx: h.ctx(), input: { apiKey: rawKey } });
    expect(r.data).toEqual({ accountId: account.id, keyId: key.id, plan: 'pro' });
    const used = h.store.db.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').get(key.id) as { last_used_at: number };
    expect(used.last_used_at).toBe(h.clock.t);
  });

  it('unknown, malformed, revoked and deleted-account keys all get the same 401 invalid-api-key', async () => {
    const { h, account, key, rawKey } = withKey();
    const unknown = await failure(authenticate({ ctx: h.ctx(), input: { apiKey: generateApiKey() } }));
    const malformed = await failure(authenticate({ ctx: h.ctx(), input: { apiKey: 'svc_live_short' } }));
    revokeKey(h.store.db, account.id, key.id, h.clock.t);
    const revoked = await failure(authenticate({ ctx: h.ctx(), input: { apiKey: rawKey } }));
    const other = createAccount(h.store.db, { email: 'gone@example.com', plan: 'free', now: h.clock.t });
    const k2 = createKey(h.store.db, other.id, 'x', 10, h.clock.t);
    softDeleteAccount(h.store.db, other.id, h.clock.t);
    const deleted = await failure(authenticate({ ctx: h.ctx(), input: { apiKey: k2.rawKey } }));
    for (const e of [unknown, malformed, revoked, deleted]) {
      expect(e.code).toBe('invalid-api-key');
      expect(e.status).toBe(401);
      expect(e.detail).toBe(unknown.detail);
    }
  });
});

describe('terms-of-service grace (controllable clock)', () => {
  it('new account: no document → served; document published → 30 days of grace, then 403; accepting restores', async () => {
    const { h, account, rawKey } = withKey();
    const ok = () => authenticate({ ctx: h.ctx(), input: { apiKey: rawKey } });
    await expect(ok()).resolves.toBeTruthy();
    publishTos(h.store.db, { version: 'v1', effectiveAt: h.clock.t, now: h.clock.t });
    const grace = await ok();
    expect(grace.meta?.tos_version).toBe('v1');
    h.clock.advance(30 * DAY - 1);
    await expect(ok()).resolves.toBeTruthy();
    h.clock.advance(1);
    const e = await failure(ok());
    expect(e.code).toBe('tos-acceptance-required');
    expect(e.status).toBe(403);
    expect(e.extensions.tos_version).toBe('v1');
    recordAcceptance(h.store.db, { accountId: account.id, version: 'v1', ip: '198.51.100.7', userAgent: 'ua', now: h.clock.t });
    const after = await ok();
    expect(after.meta?.tos_version).toBeUndefined();
  });

  it('outdated acceptance: served during the new version’s 30 days, then 403 until the new one is accepted', async () => {
    const { h, account, rawKey } = withKey();
    publishTos(h.store.db, { version: 'v1', effectiveAt: h.clock.t, now: h.clock.t });
    recordAcceptance(h.store.db, { accountId: account.id, version: 'v1', ip: null, userAgent: null, now: h.clock.t });
    h.clock.advance(100 * DAY);
    // Published ahead of time: v1 stays current until v2's effective date.
    const effective = h.clock.t + 10 * DAY;
    publishTos(h.store.db, { version: 'v2', effectiveAt: effective, now: h.clock.t });
    const ok = () => authenticate({ ctx: h.ctx(), input: { apiKey: rawKey } });
    expect((await ok()).meta?.tos_version).toBeUndefined();
    h.clock.set(effective + 29 * DAY);
    expect((await ok()).meta?.tos_version).toBe('v2');
    h.clock.set(effective + 30 * DAY);
    expect((await failure(ok())).code).toBe('tos-acceptance-required');
    recordAcceptance(h.store.db, { accountId: account.id, version: 'v2', ip: null, userAgent: null, now: h.clock.t });
    await expect(ok()).resolves.toBeTruthy();
  });

  it('TOS_CURRENT_VERSION pins the current document', async () => {
    const h = harness({ config: { TOS_CURRENT_VERSION: 'v1' } });
    const account = createAccount(h.store.db, { email: 'p@example.com', plan: 'free', now: h.clock.t - 60 * DAY });
    const { rawKey } = createKey(h.store.db, account.id, 'main', 10, h.clock.t);
    publishTos(h.store.db, { version: 'v1', effectiveAt: h.clock.t - 50 * DAY, now: h.clock.t });
    publishTos(h.store.db, { version: 'v2', effectiveAt: h.clock.t - 40 * DAY, now: h.clock.t });
    recordAcceptance(h.store.db, { accountId: account.id, version: 'v1', ip: null, userAgent: null, now: h.clock.t });
    await expect(authenticate({ ctx: h.ctx(), input: { apiKey: rawKey } })).resolves.toBeTruthy();
  });
});

describe('isWellFormedKey', () => {
  it('rejects near misses', () => {
    expect(isWellFormedKey(`svc_test_${'a'.repeat(32)}`)).toBe(false);
    expect(isWellFormedKey(`svc_live_${'a'.repeat(31)}`)).toBe(false);
    expect(isWellFormedKey(`svc_live_${'a'.repeat(31)}-`)).toBe(false);
    expect(isWellFormedKey(`svc_live_${'a'.repeat(32)}`)).toBe(true);
  });
});
