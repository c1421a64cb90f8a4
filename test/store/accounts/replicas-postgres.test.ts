// Three server processes on one PostgreSQL (what `npm start` runs, DATABASE_URL set), keys minted
// with the admin CLI: the concurrency cap is shared, and the slots of a process killed with SIGKILL
// lapse at their expiry. Exact burst limits and revocation across replicas are checked by the
// cluster suite (test/cluster), which runs the whole topology (S3-pulled builds too).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBuildDir, TEST_DATA_DIR } from '../../support/build.js';
import { REPO_ROOT } from '../../support/paths.js';
import { freshDatabase } from '../../support/postgres.js';
import { mintKey, startReplicas, type Replica } from '../../support/replicas.js';

// One state, one variable: 1 unit, allowed on Free.
const DATA = '/v1/data?variables=B01001_001E&geo=state:06&dataset=acs1&vintage=2018';
const LEASE_TTL_MS = 1_500;

let env: Record<string, string>;
let replicas: Replica[] = [];

beforeAll(async () => {
  await testBuildDir();
  env = {
    DATA_DIR: TEST_DATA_DIR,
    DATABASE_URL: await freshDatabase(),
    CONCURRENCY_LEASE_TTL_MS: String(LEASE_TTL_MS),
    AUTH_GENERATION_POLL_MS: '250',
    LOG_LEVEL: 'info',
  };
  replicas = await startReplicas(3, env);
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
});

async function get(base: string, key: string): Promise<{ status: number; body: { limit_type?: string } }> {
  const r = await fetch(base + DATA, { headers: { 'x-api-key': key } });
  const text = await r.text();
  return { status: r.status, body: text.startsWith('{') ? JSON.parse(text) : {} };
}

describe('replicas on one PostgreSQL', () => {
  it('the concurrency cap is shared, and the slots of a process killed with SIGKILL lapse at their expiry', async () => {
    const key = await mintKey(env, 'lease@example.org', 'free');
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'test/store/accounts/lease-holder.ts'), env.DATABASE_URL!, key, '2', String(LEASE_TTL_MS)],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (d) => String(d).includes('held') && resolve());
      holder.on('exit', (c) => reject(new Error(`lease holder exited ${c}`)));
    });
    // Both Free slots are held by another process: every replica refuses, for concurrency.
    for (const r of replicas) expect(await get(r.base, key)).toMatchObject({ status: 429, body: { limit_type: 'concurrency' } });
    // Still held after more than one TTL: the live holder renews its slots.
    await new Promise((r) => setTimeout(r, LEASE_TTL_MS + 500));
    expect((await get(replicas[0]!.base, key)).body.limit_type).toBe('concurrency');
    holder.kill('SIGKILL');
    const killedAt = Date.now();
    let freedAfter = Infinity;
    while (Date.now() - killedAt < 10_000) {
      if ((await get(replicas[(Date.now() % 3) | 0]!.base, key)).status === 200) {
        freedAfter = Date.now() - killedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(freedAfter).toBeLessThanOrEqual(LEASE_TTL_MS + 1_000);
  }, 30_000);

  it('replica health reports the shared database', async () => {
    for (const r of replicas) {
      const h = await fetch(`${r.base}/health`);
      expect(h.status).toBe(200);
      expect(await h.json()).toMatchObject({ database: 'ok' });
    }
  });
});
