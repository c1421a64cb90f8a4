// The service on the PostgreSQL accounts store when PostgreSQL goes away and comes back: data and
// account requests answer 503 dependency-unavailable (problem+json, nothing of the driver's
// message), /health says why, nothing crashes, and service resumes by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/postgres.js';
import { startService, type Service } from '../support/service.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const DATA = '/v1/data?variables=B01001_001E&geo=state:06&dataset=acs1&vintage=2018';
let proxy: TcpProxy;
let svc: Service;

beforeAll(async () => {
  const url = new URL(await freshDatabase());
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  url.port = String(proxy.port);
  svc = await startService({ config: { DATABASE_URL: url.toString(), AUTH_GENERATION_POLL_MS: 50 } });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await proxy?.close();
});

const get = (path: string, key?: string) => svc.app.inject({ method: 'GET', url: path, headers: key ? { 'x-api-key': key } : {} });

describe('PostgreSQL accounts store unreachable', () => {
  it('serves normally through the store', async () => {
    expect((await get(DATA, svc.keys.pro)).statusCode).toBe(200);
    expect(svc.stores.accounts?.kind).toBe('postgres');
  });

  it('answers 503 dependency-unavailable without internals while the database is away, and recovers', async () => {
    await proxy.cut();
    await new Promise((r) => setTimeout(r, 150)); // the generation poll notices and drops the key cache
    for (const key of [svc.keys.pro, svc.keys.free]) {
      const r = await get(DATA, key);
      expect(r.statusCode).toBe(503);
      expect(r.headers['content-type']).toContain('application/problem+json');
      const body = r.json();
      expect(body.type).toMatch(/dependency-unavailable$/);
      expect(r.body).not.toMatch(/ECONN|postgres|pg_|SQLSTATE|127\.0\.0\.1|stack/i);
    }
    const health = await get('/health');
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ database: 'unavailable' });

    await proxy.restore();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await get(DATA, svc.keys.pro)).statusCode;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect((await get('/health')).json()).toMatchObject({ database: 'ok' });
  }, 30_000);
});
