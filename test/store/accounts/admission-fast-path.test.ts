// The cheaper admission path (issue 13): API keys cached per process and revalidated by a
// generation counter, and usage charges group-committed. Both must keep the guarantees of the
// uncached path: revocation, plan and terms changes seen by every connection on its next request;
// limits exact; no answered request left uncharged after kill -9.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { createAccount, setPlan, softDeleteAccount } from '../../../src/store/accounts/accounts-repo.js';
import { chargeBatcherOf } from '../../../src/store/accounts/charge-batcher.js';
import { openAccountsDb, stmt } from '../../../src/store/accounts/db.js';
import { AccountStore } from '../../../src/store/accounts/index.js';
import { authGeneration, keyCacheOf } from '../../../src/store/accounts/key-cache.js';
import { createKey, revokeKey, rotateKey } from '../../../src/store/accounts/keys-repo.js';
import { publishTos, recordAcceptance } from '../../../src/store/accounts/tos-repo.js';
import { authenticate } from '../../../src/verbs/authenticate.js';
import { harness } from './fixtures.js';

const DAY = 86_400_000;

/** Two connections to one file: `h` (the serving process) and `other` (admin CLI, a replica). */
function twoProcesses(plan = 'pro') {
  const h = harness();
  const other = new AccountStore(openAccountsDb(h.file));
  const account = createAccount(other.db, { email: 'fast@example.com', plan, now: h.clock.t });
  const { row, rawKey } = createKey(other.db, account.id, 'main', 10, h.clock.t);
  const auth = () => authenticate({ ctx: h.ctx(), input: { apiKey: rawKey } });
  return { h, other, account, key: row, rawKey, auth };
}

async function status(p: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).status;
  }
}

describe('key cache', () => {
  it('serves repeated requests from memory, and re-reads only when the generation moves', async () => {
    const { h, other, account, auth } = twoProcesses();
    expect((await auth()).data.plan).toBe('pro');
    expect(keyCacheOf(h.store.db).size).toBe(1);
    // A write that bypasses the triggers: the cached answer is still served, so no lookup ran.
    other.db.exec('DROP TRIGGER auth_gen_account_update');
    setPlan(other.db, account.id, 'business', h.clock.t);
    expect((await auth()).data.plan).toBe('pro');
    // Any bump of the counter makes every process re-read.
    other.db.exec('UPDATE auth_generation SET gen = gen + 1');
    expect((await auth()).data.plan).toBe('business');
    expect(authGeneration(other.db)).toBeGreaterThan(0);
  });

  it('a key revoked by another connection is refused on the very next request', async () => {
    const { h, other, account, key, auth } = twoProcesses();
    expect(await status(auth())).toBe('ok');
    revokeKey(other.db, account.id, key.id, h.clock.t);
    expect(await status(auth())).toBe(401);
  });

  it('rotation, plan changes and account deletion by another connection are seen at once', async () => {
    const { h, other, account, key, auth } = twoProcesses('free');
    expect((await auth()).data.plan).toBe('free');
    setPlan(other.db, account.id, 'business', h.clock.t);
    expect((await auth()).data.plan).toBe('business');
    const rotated = rotateKey(other.db, account.id, key.id, h.clock.t);
    expect(rotated.kind).toBe('ok');
    expect(await status(auth())).toBe(401);
    if (rotated.kind !== 'ok') return;
    const fresh = () => authenticate({ ctx: h.ctx(), input: { apiKey: rotated.rawKey } });
    expect(await status(fresh())).toBe('ok');
    softDeleteAccount(other.db, account.id, h.clock.t);
    expect(await status(fresh())).toBe(401);
  });

  it('terms: publication and acceptance elsewhere apply at once; a grace period ends with time alone', async () => {
    const { h, other, account, auth } = twoProcesses();
    h.clock.advance(40 * DAY); // the account is older than any grace period
    expect(await status(auth())).toBe('ok');
    publishTos(other.db, { version: '2026-04', effectiveAt: h.clock.t - 31 * DAY, now: h.clock.t });
    expect(await status(auth())).toBe(403);
    recordAcceptance(other.db, { accountId: account.id, version: '2026-04', ip: null, userAgent: null, now: h.clock.t });
    expect(await status(auth())).toBe('ok');
    // A document dated in the future takes effect when its time comes, with no write at all.
    publishTos(other.db, { version: '2026-06', effectiveAt: h.clock.t + DAY, now: h.clock.t });
    expect((await auth()).meta).toEqual({});
    h.clock.advance(DAY + 1);
    expect((await auth()).meta).toMatchObject({ tos_version: '2026-06' });
    h.clock.advance(30 * DAY);
    expect(await status(auth())).toBe(403);
  });
});

describe('group-committed charges', () => {
  const input = (accountId: string, now: number, burstQuota: number) => ({
    accountId,
    keyId: null,
    period: '2026-03',
    minute: now - (now % 60_000),
    cost: 1,
    monthlyQuota: 1_000_000,
    burstQuota,
    route: '/v1/data',
    ip: null,
    now,
  });

  it('charges arriving together share one transaction and stay exact: 100 against a burst of 60', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'batch@example.com', plan: 'free', now: h.clock.t });
    const batcher = chargeBatcherOf(h.store.db);
    const before = batcher.stats.batches;
    const outs = await Promise.all(Array.from({ length: 100 }, () => batcher.charge(input(a.id, h.clock.t, 60))));
    expect(batcher.stats.batches - before).toBe(1);
    expect(outs.filter((o) => o.ok)).toHaveLength(60);
    expect(outs.filter((o) => !o.ok && o.limit === 'burst')).toHaveLength(40);
    // What another process reads once the promises settled: the committed counters.
    const other = openAccountsDb(h.file);
    expect(stmt(other, 'SELECT units, requests FROM usage_periods WHERE account_id = ?').get(a.id)).toEqual({ units: 60, requests: 60 });
    expect(stmt(other, 'SELECT count(*) AS n FROM request_log WHERE account_id = ?').get(a.id)).toEqual({ n: 60 });
    other.close();
  });

  it('after kill -9, every charge the process was told succeeded is in the database', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'kill@example.com', plan: 'enterprise', now: h.clock.t });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'charge-worker.ts'), h.file, a.id, String(h.clock.t)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (c) => (out += String(c)));
    // Let it get well into its run (at least a few hundred answered charges), then kill it.
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (Number(out.trim().split('\n').at(-1) ?? 0) >= 400) {
          clearInterval(t);
          resolve();
        }
      }, 5);
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const answered = Number(out.trim().split('\n').at(-1));
    const charged = (stmt(h.store.db, 'SELECT requests FROM usage_periods WHERE account_id = ?').get(a.id) as { requests: number })
      .requests;
    expect(answered).toBeGreaterThanOrEqual(400);
    expect(charged).toBeGreaterThanOrEqual(answered);
    // At most the one batch in flight (20) can be committed without having been reported.
    expect(charged - answered).toBeLessThanOrEqual(20);
  }, 60_000);
});
