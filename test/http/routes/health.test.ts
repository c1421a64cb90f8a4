import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyDataDir, makeApp, testConfig } from '../support.js';

function dataDirWithBuild(): string {
  const dataDir = emptyDataDir();
  const build = path.join(dataDir, 'builds', 'b1');
  fs.mkdirSync(build, { recursive: true });
  fs.writeFileSync(path.join(build, 'manifest.json'), JSON.stringify({ build_id: 'b1', created_at: '2026-04-04T00:00:00.000Z', steps: {} }));
  fs.symlinkSync(path.join('builds', 'b1'), path.join(dataDir, 'current'));
  return dataDir;
}

describe('GET /health', () => {
  it('200 ok with build and database status, no key needed, no envelope', async () => {
    const app = await makeApp({ config: testConfig({ DATA_DIR: dataDirWithBuild() }), stores: { accounts: { ping: () => true } } });
    const res = await app.inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', version: '1.2.0', data: { build_id: 'b1', built_at: '2026-04-04T00:00:00.000Z', synthetic: false }, database: 'ok', database_error: null, unavailable_partitions: [] });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBeTruthy();
    await app.close();
  });

  it('503 degraded without data, naming what is missing', async () => {
    const app = await makeApp({ stores: { accounts: { ping: () => true } } });
    const res = await app.inject({ url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'degraded', data: null, database: 'ok' });
    await app.close();
  });

  it('503 degraded when the database ping fails or throws', async () => {
    for (const ping of [() => false, () => { throw new Error('SQLITE_BUSY /srv/secret.sqlite'); }]) {
      const app = await makeApp({ config: testConfig({ DATA_DIR: dataDirWithBuild() }), stores: { accounts: { ping } } });
      const res = await app.inject({ url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'degraded', database: 'unavailable' });
      expect(res.body).not.toContain('secret');
      await app.close();
    }
  });

  it('says when the live build is SYNTHETIC (benchmark data, not Census figures)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-health-synth-'));
    const build = path.join(dataDir, 'builds', 'synthetic-b2');
    fs.mkdirSync(build, { recursive: true });
    fs.writeFileSync(path.join(build, 'manifest.json'), JSON.stringify({ build_id: 'synthetic-b2', created_at: '2026-04-04T00:00:00.000Z', synthetic: true, steps: {} }));
    fs.symlinkSync(path.join('builds', 'synthetic-b2'), path.join(dataDir, 'current'));
    const synthApp = await makeApp({ config: testConfig({ DATA_DIR: dataDir }) });
    const res = await synthApp.inject({ url: '/health' });
    expect(res.json().data).toMatchObject({ build_id: 'synthetic-b2', synthetic: true });
    await synthApp.close();
  });
});
