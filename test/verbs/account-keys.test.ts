import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { createAccount } from '../../src/store/accounts/accounts-repo.js';
import { accountCreateKey } from '../../src/verbs/account-create-key.js';
import { accountListKeys } from '../../src/verbs/account-list-keys.js';
import { accountRenameKey } from '../../src/verbs/account-rename-key.js';
import { accountRevokeKey } from '../../src/verbs/account-revoke-key.js';
import { accountRotateKey } from '../../src/verbs/account-rotate-key.js';
import { authenticate } from '../../src/verbs/authenticate.js';
import { harness, type Harness } from '../store/accounts/fixtures.js';
import { failure } from '../support/failure.js';

function signedIn(h: Harness, email: string, plan = 'free') {
  const a = createAccount(h.store.db, { email, plan, now: h.clock.t });
  return { account: a, ctx: () => h.ctx({ accountId: a.id, keyId: 'dashboard', plan }) };
}

describe('key lifecycle', () => {
  it('create needs a name; the full key comes back once and works', async () => {
    const h = harness();
    const u = signedIn(h, 'a@example.com');
    const missing = await failure(accountCreateKey.invoke({ ctx: u.ctx(), input: {} }));
    expect(missing.status).toBe(422);
    expect(missing.errors?.[0]).toMatchObject({ field: 'body → name', type: 'missing' });
    expect((await failure(accountCreateKey({ ctx: u.ctx(), input: { name: '   ' } }))).status).toBe(422);
    const created = await accountCreateKey({ ctx: u.ctx(), input: { name: 'laptop' } });
    expect(created.data.key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(created.data.prefix).toBe(`${created.data.key.slice(0, 13)}…`);
    expect(created.data.status).toBe('active');
    const listed = await accountListKeys({ ctx: u.ctx() });
    expect(listed.data).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.data.key);
    expect(listed.data[0]).not.toHaveProperty('key');
    await expect(authenticate({ ctx: h.ctx(), input: { apiKey: created.data.key } })).resolves.toBeTruthy();
  });

  it('rotate: old revoked and new active at the same instant; old key 401 at once', async () => {
    const h = harness();
    const u = signedIn(h, 'b@example.com');
    const k = await accountCreateKey({ ctx: u.ctx(), input: { name: 'ci' } });
    h.clock.advance(1000);
    const r = await accountRotateKey({ ctx: u.ctx(), input: { id: k.data.id } });
    expect(r.data.revoked).toMatchObject({ id: k.data.id, status: 'revoked', replaced_by: r.data.key.id });
    expect(r.data.key).toMatchObject({ name: 'ci', status: 'active' });
    expect(r.data.revoked.revoked_at).toBe(r.data.key.created_at);
    expect((await failure(authenticate({ ctx: h.ctx(), input: { apiKey: k.data.key } }))).code).toBe('invalid-api-key');
    await expect(authenticate({ ctx: h.ctx(), input: { apiKey: r.data.key.key } })).resolves.toBeTruthy();
    // Revoked keys are final: no rotating, renaming, or un-revoking them.
    expect((await failure(accountRotateKey({ ctx: u.ctx(), input: { id: k.data.id } }))).status).toBe(409);
    expect((await failure(accountRenameKey({ ctx: u.ctx(), input: { id: k.data.id, name: 'x' } }))).status).toBe(409);
  });

  it('revoke: 401 immediately after; idempotent; rename works on active keys', async () => {
    const h = harness();
    const u = signedIn(h, 'c@example.com');
    const k = await accountCreateKey({ ctx: u.ctx(), input: { name: 'one' } });
    const renamed = await accountRenameKey({ ctx: u.ctx(), input: { id: k.data.id, name: 'renamed' } });
    expect(renamed.data.name).toBe('renamed');
    const rev = await accountRevokeKey({ ctx: u.ctx(), input: { id: k.data.id } });
    expect(rev.data.status).toBe('revoked');
    expect((await failure(authenticate({ ctx: h.ctx(), input: { apiKey: k.data.key } }))).code).toBe('invalid-api-key');
    h.clock.advance(5000);
    const again = await accountRevokeKey({ ctx: u.ctx(), input: { id: k.data.id } });
    expect(again.data.revoked_at).toBe(rev.data.revoked_at);
  });

  it('per-plan key count: Free holds 2 active keys; revoking frees a slot; parallel creates cannot exceed', async () => {
    const h = harness();
    const u = signedIn(h, 'd@example.com', 'free');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => accountCreateKey({ ctx: u.ctx(), input: { name: `k${i}` } })),
    );
    const ok = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof accountCreateKey>>> => r.status === 'fulfilled');
    expect(ok).toHaveLength(2);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason as AppError;
    expect(refused.code).toBe('feature-requires-upgrade');
    expect(refused.extensions).toMatchObject({ required_plan: 'pioneer', key_limit: 2 });
    await accountRevokeKey({ ctx: u.ctx(), input: { id: ok[0]!.value.data.id } });
    await expect(accountCreateKey({ ctx: u.ctx(), input: { name: 'again' } })).resolves.toBeTruthy();
  });

  it('private beta: key creation needs activation when INVITE_REQUIRED', async () => {
    const h = harness({ config: { INVITE_REQUIRED: true } });
    const u = signedIn(h, 'e@example.com');
    expect((await failure(accountCreateKey({ ctx: u.ctx(), input: { name: 'x' } }))).code).toBe('forbidden');
  });
});

describe('no plaintext key at rest or in logs', () => {
  it('the SQLite file (db + WAL) and captured pino output never contain a created or rotated key', async () => {
    const h = harness();
    const u = signedIn(h, 'scan@example.com', 'business');
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) keys.push((await accountCreateKey({ ctx: u.ctx(), input: { name: `k${i}` } })).data.key);
    const r = await accountRotateKey({ ctx: u.ctx(), input: { id: (await accountListKeys({ ctx: u.ctx() })).data[0]!.id } });
    keys.push(r.data.key.key);
    for (const k of keys) await authenticate({ ctx: h.ctx(), input: { apiKey: k } }).catch(() => undefined);
    const bytes = Buffer.concat([h.file, `${h.file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
    const logs = h.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(bytes.includes(Buffer.from(k))).toBe(false);
      // Not even the secret body without its prefix.
      expect(bytes.includes(Buffer.from(k.slice(9)))).toBe(false);
      expect(logs).not.toContain(k.slice(9));
    }
    // The hashes are there: the scan is looking at the right bytes.
    const { hashApiKey } = await import('../../src/domain/keys.js');
    expect(bytes.includes(Buffer.from(hashApiKey(keys[1]!)))).toBe(true);
  });
});
