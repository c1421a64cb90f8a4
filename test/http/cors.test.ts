import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { fixtureRoutes } from './fixture-routes.js';
import { KEYS, makeApp } from './support.js';

describe('CORS allow-list', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { CORS_ORIGINS: ['https://dashboard.example.org'] } });
  });
  afterAll(() => app.close());

  it('allows a listed origin and exposes the request id and rate-limit headers', async () => {
    const res = await app.inject({ url: '/t/public', headers: { origin: 'https://dashboard.example.org' } });
    expect(res.headers['access-control-allow-origin']).toBe('https://dashboard.example.org');
    const exposed = String(res.headers['access-control-expose-headers']);
    for (const h of ['X-Request-ID', 'RateLimit', 'Retry-After']) expect(exposed).toContain(h);
  });

  it('answers a preflight for a listed origin with the allowed headers only', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/t/items',
      headers: {
        origin: 'https://dashboard.example.org',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(res.statusCode).toBeLessThan(300);
    expect(res.headers['access-control-allow-origin']).toBe('https://dashboard.example.org');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    expect(allowed).toContain('x-api-key');
    expect(allowed).not.toContain('*');
  });

  it('gives no CORS grant to other origins', async () => {
    for (const origin of ['https://evil.example', 'https://dashboard.example.org.evil.example', 'null']) {
      const res = await app.inject({ url: '/t/items?geo=state:06', headers: { origin, 'x-api-key': KEYS.pro } });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await app.inject({ method: 'OPTIONS', url: '/t/items', headers: { origin, 'access-control-request-method': 'GET' } });
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('grants nothing when CORS_ORIGINS is empty', async () => {
    const closed = await makeApp({ extraRoutes: fixtureRoutes });
    const res = await closed.inject({ url: '/t/public', headers: { origin: 'https://dashboard.example.org' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    await closed.close();
  });
});
