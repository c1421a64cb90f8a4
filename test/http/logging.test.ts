import http from 'node:http';
import type net from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/plugins/logging.js';
import { Drainer } from '../../src/http/drain.js';
import { redactSecrets } from '../../src/presentation/credentials.js';
import { fixtureRoutes } from './fixture-routes.js';
import { captureLogger, KEYS, makeApp } from './support.js';

/** The service's own logger (createLogger) writing into memory: what production writes, line for line. */
function serviceLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: createLogger({ LOG_LEVEL: 'info' }, stream), text: () => lines.join('') };
}

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

  it('redactSecrets replaces only the key value', () => {
    expect(redactSecrets('/v1/data?geo=state:06&api_key=svc_live_x&vintage=2020')).toBe(
      '/v1/data?geo=state:06&api_key=[REDACTED]&vintage=2020',
    );
    expect(redactSecrets('/v1/data?API_KEY=abc')).toBe('/v1/data?API_KEY=[REDACTED]');
    expect(redactSecrets('/v1/data?my_api_key=abc')).toBe('/v1/data?my_api_key=abc');
    expect(redactSecrets('/data/2018/acs/acs1?get=NAME&k%65y=abc&for=us:*')).toBe('/data/2018/acs/acs1?get=NAME&k%65y=[REDACTED]&for=us:*');
  });

  // Names are percent-decoded before authentication (the query parser), so every spelling that
  // authenticates must be redacted in the request line: was, only the literal `api_key=`/`key=`.
  it('redacts a key sent under an encoded parameter name that authenticated the request', async () => {
    const log = serviceLogger();
    const app = await makeApp({ extraRoutes: fixtureRoutes, logger: log.logger });
    const v1 = ['api%5Fkey', '%61pi_key', 'api_k%65y', '%61%70%69%5f%6b%65%79'];
    for (const name of v1) {
      const res = await app.inject({ url: `/t/items?geo=state:06&${name}=${KEYS.pro}` });
      expect(res.statusCode, name).toBe(200); // the key authenticated
    }
    // The Census Data API's `key=` (its routes answer 503 here, with no data stores: after authentication).
    for (const name of ['k%65y', '%6Bey', 'ke%79', 'key']) {
      const res = await app.inject({ url: `/data/2018/acs/acs1?get=NAME&for=state:06&${name}=${KEYS.pro}` });
      expect(res.statusCode, name).toBe(503); // authenticated (a missing key redirects: 302)
    }
    await app.close();
    await new Promise((r) => setTimeout(r, 300)); // the service logger's batch timer
    log.logger.flush();
    const text = log.text();
    expect(text).toContain('request completed');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(KEYS.pro);
  });

  // At shutdown the in-flight URLs are logged (src/server.ts): was, only `api_key=` was redacted,
  // so a Census-API request's `key=` was written in clear.
  it('redacts keys in the shutdown log of in-flight requests', async () => {
    const log = serviceLogger();
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const server = http.createServer((_req, res) => void hold.then(() => res.end('ok')));
    const drainer = new Drainer(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const paths = [
      `/data/2018/acs/acs1?get=NAME&for=county:*&key=${KEYS.pro}`,
      `/data/2018/acs/acs1?get=NAME&k%65y=${KEYS.free}`,
      `/v1/data?geo=state:06&api%5Fkey=${KEYS.revoked}`,
    ];
    const answers = paths.map(
      (p) => new Promise((r) => http.get({ port, host: '127.0.0.1', path: p }, (res) => res.resume().on('end', r))),
    );
    while (drainer.inFlight < paths.length) await new Promise((r) => setTimeout(r, 5));
    log.logger.error({ aborted: drainer.leftovers() }, 'grace period elapsed with responses still in progress: aborting them');
    release();
    await Promise.all(answers);
    server.close();
    log.logger.flush();
    await new Promise((r) => setTimeout(r, 50));
    const text = log.text();
    expect(text).toContain('/data/2018/acs/acs1');
    for (const secret of [KEYS.pro, KEYS.free, KEYS.revoked]) expect(text).not.toContain(secret);
  });
});
