// The admin CLI on the PostgreSQL accounts store (DATABASE_URL): every command an operator runs,
// the same exit codes as on SQLite, and a clear message when the database is wrong or away.
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/domain/keys.js';
import { PostgresAccountStore } from '../../src/store/accounts/postgres/store.js';
import { freshDatabase } from '../support/postgres.js';
import { adminCli, mintKey } from '../support/replicas.js';

let env: Record<string, string>;
beforeAll(async () => {
  env = { DATABASE_URL: await freshDatabase() };
});

describe('admin CLI on PostgreSQL', () => {
  it('creates, re-plans and revokes keys; publishes terms; mints invites; runs retention', async () => {
    const key = await mintKey(env, 'ops@example.org', 'free');
    expect(key).toMatch(/^svc_live_/);
    const store = new PostgresAccountStore({ url: env.DATABASE_URL! });
    try {
      const owner = (await store.findKeyOwner({ hash: hashApiKey(key) }))!;
      const setPlan = await adminCli(['accounts', 'set-plan', '--account', 'ops@example.org', '--plan', 'business'], env);
      expect(setPlan.code).toBe(0);
      expect(JSON.parse(setPlan.stdout)).toMatchObject({ account_id: owner.account_id, plan: 'business', previous_plan: 'free' });
      expect((await store.getAccount(owner.account_id))?.plan).toBe('business');

      const tos = await adminCli(['tos', 'publish', '--version', '2026-11', '--url', 'https://example.org/terms'], env);
      expect(tos.code).toBe(0);
      expect(JSON.parse(tos.stdout)).toMatchObject({ version: '2026-11' });

      const invite = await adminCli(['invites', 'create', '--plan', 'pro'], env);
      expect(invite.code).toBe(0);
      expect(JSON.parse(invite.stdout).code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);

      const retention = await adminCli(['retention', 'run'], env);
      expect(retention.code).toBe(0);
      expect(JSON.parse(retention.stdout)).toHaveProperty('accountsPurged', 0);

      const revoke = await adminCli(['keys', 'revoke', key], env);
      expect(revoke.code).toBe(0);
      expect(JSON.parse(revoke.stdout)).toMatchObject({ id: owner.id, status: 'revoked' });
      expect(revoke.stdout + revoke.stderr).not.toContain(key);
      expect((await adminCli(['keys', 'revoke', 'key_doesnotexist'], env)).code).toBe(3);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('a DATABASE_URL that is not PostgreSQL is a configuration error naming the variable', async () => {
    const r = await adminCli(['retention', 'run'], { DATABASE_URL: 'mysql://u:p@127.0.0.1/db' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('DATABASE_URL');
  });

  it('an unreachable database fails in seconds with a clear message, no stack', async () => {
    const t0 = Date.now();
    const r = await adminCli(['retention', 'run'], { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/none' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/accounts database is unavailable/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
