// Strict-Transport-Security: sent on answers to requests that came over https through a trusted
// proxy (X-Forwarded-Proto: https from TRUSTED_PROXIES), errors included; never on plain http and
// never because an untrusted client claims https.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../support/service.js';

let behindProxy: Service;
let direct: Service;
beforeAll(async () => {
  // inject() comes from 127.0.0.1: the proxy is trusted as `loopback` in one, not in the other.
  [behindProxy, direct] = await Promise.all([startService({ config: { TRUSTED_PROXIES: ['loopback'] } }), startService()]);
});
afterAll(async () => {
  await behindProxy?.close();
  await direct?.close();
});

const hsts = (res: { headers: Record<string, unknown> }) => res.headers['strict-transport-security'];

describe('HSTS', () => {
  it('over https from a trusted proxy: on answers, errors and /health', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const ok = await behindProxy.app.inject({ url: '/v1/topics', headers: { ...https, 'x-api-key': behindProxy.keys.pro } });
    expect(ok.statusCode).toBe(200);
    expect(hsts(ok)).toBe('max-age=31536000');
    const missing = await behindProxy.app.inject({ url: '/v1/topics', headers: https });
    expect(missing.statusCode).toBe(401);
    expect(hsts(missing)).toBe('max-age=31536000');
    const notFound = await behindProxy.app.inject({ url: '/v1/nope', headers: https });
    expect(notFound.statusCode).toBe(404);
    expect(hsts(notFound)).toBe('max-age=31536000');
    expect(hsts(await behindProxy.app.inject({ url: '/health', headers: https }))).toBe('max-age=31536000');
  });

  it('never on plain http, from a trusted proxy or not', async () => {
    expect(hsts(await behindProxy.app.inject({ url: '/health', headers: { 'x-forwarded-proto': 'http' } }))).toBeUndefined();
    expect(hsts(await behindProxy.app.inject({ url: '/health' }))).toBeUndefined();
    expect(hsts(await direct.app.inject({ url: '/health' }))).toBeUndefined();
  });

  it('never because an untrusted client says X-Forwarded-Proto: https', async () => {
    const res = await direct.app.inject({ url: '/v1/topics', headers: { 'x-forwarded-proto': 'https', 'x-api-key': direct.keys.pro } });
    expect(res.statusCode).toBe(200);
    expect(hsts(res)).toBeUndefined();
  });
});
