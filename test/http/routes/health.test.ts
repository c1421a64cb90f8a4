// /health reports the build the stores were opened on (stores.build) and pings the real accounts
// database; it never re-reads the data directory.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LiveBuild } from '../../../src/context/stores.js';
import { AccountStore } from '../../../src/store/accounts/index.js';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import type { Manifest } from '../../../src/store/data-dir.js';
import { SERVICE_VERSION } from '../../../src/version.js';
import { emptyDataDir, makeApp } from '../support.js';

function liveBuild(manifest: Partial<Manifest> = {}): LiveBuild {
  return {
    dir: '/srv/builds/b1',
    manifest: { build_id: 'b1', created_at: '2026-04-04T00:00:00.000Z', steps: {}, ...manifest } as Manifest,
  };
}

function accounts(): AccountStore {
  return new AccountStore(openAccountsDb(path.join(emptyDataDir(), 'accounts.sqlite')));
}

describe('GET /health', () => {
  it('200 ok with build and database status, no key needed, no envelope', async () => {
    const app = await makeApp({ stores: { build: liveBuild(), accounts: accounts() } });
    const res = await app.inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      version: SERVICE_VERSION,
      data: { build_id: 'b1', built_at: '2026-04-04T00:00:00.000Z', synthetic: false },
      database: 'ok',
      database_error: null,
      source: null,
      unavailable_partitions: [],
      damaged_files: [],
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBeTruthy();
    await app.close();
  });

  it('503 degraded without data, naming what is missing', async () => {
    const app = await makeApp({ stores: { accounts: accounts() } });
    const res = await app.inject({ url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'degraded', data: null, database: 'ok' });
    await app.close();
  });

  it('503 degraded when the database is closed or missing, without details', async () => {
    const closed = accounts();
    closed.close();
    for (const store of [closed, undefined]) {
      const app = await makeApp({ stores: { build: liveBuild(), accounts: store } });
      const res = await app.inject({ url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'degraded', database: 'unavailable' });
      expect(res.body).not.toMatch(/sqlite|closed/i);
      await app.close();
    }
  });

  it('says when the live build is SYNTHETIC (benchmark data, not Census figures)', async () => {
    const app = await makeApp({ stores: { build: liveBuild({ build_id: 'synthetic-b2', synthetic: true }), accounts: accounts() } });
    const res = await app.inject({ url: '/health' });
    expect(res.json().data).toMatchObject({ build_id: 'synthetic-b2', synthetic: true });
    await app.close();
  });
});
