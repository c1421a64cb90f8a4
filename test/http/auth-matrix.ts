// The authentication matrix every protected route must satisfy. Route owners call it with their
// app and routes:
//
//   await assertAuthMatrix(app, [{ url: '/v1/data?geo=state:06&variables=x' }], { valid: key, revoked, unknown });
//
// missing key → 401 missing-api-key; unknown, malformed, revoked → 401 invalid-api-key; both with
// WWW-Authenticate and problem+json; a valid key (header, any capitalisation, or api_key query
// parameter) → anything but 401.
import { expect } from 'vitest';
import type { FastifyInstance, HTTPMethods } from 'fastify';

export interface ProtectedRoute {
  method?: HTTPMethods;
  /** Path with query string, without api_key. */
  url: string;
  payload?: unknown;
}

export interface MatrixKeys {
  valid: string;
  /** A key that existed and was revoked. */
  revoked?: string;
  /** Well-formed but never issued. Default: a random svc_live_ key. */
  unknown?: string;
  malformed?: string;
}

function withQueryKey(url: string, key: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(key)}`;
}

function expect401(res: { statusCode: number; headers: Record<string, unknown>; body: string }, slug: string, label: string) {
  expect(res.statusCode, `${label}: status`).toBe(401);
  expect(String(res.headers['content-type']), `${label}: content-type`).toMatch(/^application\/problem\+json/);
  expect(res.headers['www-authenticate'], `${label}: WWW-Authenticate`).toBeTruthy();
  const body = JSON.parse(res.body) as { type: string; status: number; request_id: string };
  expect(body.type, `${label}: type`).toMatch(new RegExp(`/${slug}$`));
  expect(body.status).toBe(401);
  expect(body.request_id).toBe(res.headers['x-request-id']);
}

export async function assertAuthMatrix(app: FastifyInstance, routes: ProtectedRoute[], keys: MatrixKeys): Promise<void> {
  const unknown = keys.unknown ?? `svc_live_${'z'.repeat(32)}`;
  const bad: Array<[string, string]> = [
    ['unknown', unknown],
    ['malformed', keys.malformed ?? 'svc_live_short'],
  ];
  if (keys.revoked) bad.push(['revoked', keys.revoked]);

  for (const r of routes) {
    const method = r.method ?? 'GET';
    const base = { method, payload: r.payload as never };
    const where = `${method} ${r.url}`;

    expect401(await app.inject({ ...base, url: r.url }), 'missing-api-key', `${where} without key`);
    expect401(await app.inject({ ...base, url: r.url, headers: { 'x-api-key': '' } }), 'missing-api-key', `${where} empty key`);

    for (const [label, key] of bad) {
      expect401(
        await app.inject({ ...base, url: r.url, headers: { 'X-API-Key': key } }),
        'invalid-api-key',
        `${where} ${label} key (header)`,
      );
      expect401(await app.inject({ ...base, url: withQueryKey(r.url, key) }), 'invalid-api-key', `${where} ${label} key (query)`);
    }

    for (const headers of [{ 'X-API-Key': keys.valid }, { 'x-api-key': keys.valid }, { 'X-Api-KEY': keys.valid }]) {
      const res = await app.inject({ ...base, url: r.url, headers });
      expect(res.statusCode, `${where} valid key (${Object.keys(headers)[0]}): ${res.body.slice(0, 200)}`).not.toBe(401);
    }
    const viaQuery = await app.inject({ ...base, url: withQueryKey(r.url, keys.valid) });
    expect(viaQuery.statusCode, `${where} valid key (query): ${viaQuery.body.slice(0, 200)}`).not.toBe(401);
  }
}
