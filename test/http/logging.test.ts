import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/plugins/logging.js';
import { fixtureRoutes } from './fixture-routes.js';
import { captureLogger, KEYS, makeApp } from './support.js';

describe('key redaction in logs', () => {
  it('never writes the key, whether sent by header or query, on success or failure', async () => {
    const log = captureLogger('trace');
    const app = await makeApp({ extraRoutes: fixtureRoutes, logger: log.logger });
    const requests = [
      { url: '/t/items?geo=state:06', headers: { 'X-API-Key': KEYS.pro } },
      { url: `/t/items?geo=state:06&api_key=${KEYS.pro}` },
      { url: `/t/items?api_key=${KEYS.pro}&geo=state:06&vintage=abc` },
      { url: `/t/items?API_KEY=${KEYS.pro}` },
      { url: '/t/throw', headers: { 'x-api-key': KEYS.pro } },
      { url: `/t/throw?api_key=${KEYS.pro}` },
      { url: `/t/nowhere?api_key=${KEYS.revoked}`, headers: { authorization: `Bearer ${KEYS.unknown}` } },
      { url: '/t/items', headers: { 'x-api-key': KEYS.revoked } },
    ];
    for (const r of requests) await app.inject(r);
    await app.close();
    const text = log.text();
    expect(log.lines.length).toBeGreaterThan(requests.length); // something was logged
    expect(text).toContain('[REDACTED]');
    for (const secret of [KEYS.pro, KEYS.revoked, KEYS.unknown, KEYS.pro.slice(9)]) expect(text).not.toContain(secret);
  });

  it('applies redaction to an injected logger too (headers logged by a custom serializer)', async () => {
    const log = captureLogger('trace');
    const app = await makeApp({
      extraRoutes: (a) => {
        a.get('/t/dump', async (req) => {
          req.log.info({ req: { ...req, headers: req.headers, url: req.url }, headers: req.headers }, 'dump');
          return { ok: true };
        });
      },
      logger: log.logger,
    });
    await app.inject({ url: `/t/dump?x=1&api_key=${KEYS.pro}`, headers: { 'x-api-key': KEYS.free } });
    await app.close();
    expect(log.text()).toContain('dump');
    expect(log.text()).not.toContain(KEYS.pro);
    expect(log.text()).not.toContain(KEYS.free);
  });

  it('keeps /health out of the request log', async () => {
    const log = captureLogger('info');
    const app = await makeApp({ logger: log.logger });
    await app.inject({ url: '/health' });
    await app.inject({ url: '/nope' });
    await app.close();
    expect(log.text()).not.toContain('/health');
    expect(log.text()).toContain('/nope');
  });

  it('redactUrl replaces only the key value', () => {
    expect(redactUrl('/v1/data?geo=state:06&api_key=svc_live_x&vintage=2020')).toBe(
      '/v1/data?geo=state:06&api_key=[REDACTED]&vintage=2020',
    );
    expect(redactUrl('/v1/data?API_KEY=abc')).toBe('/v1/data?API_KEY=[REDACTED]');
    expect(redactUrl('/v1/data?my_api_key=abc')).toBe('/v1/data?my_api_key=abc');
  });
});
