// The contract over every route, enumerated from the app itself (app.routeTable, filled as routes
// are registered): the auth matrix, feature flags, a missing store answering 503, and rate-limit
// headers on every response to a valid key — including 404, 405 and 414, which match no route.
// A route added tomorrow is covered without touching this file.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp, type RouteEntry } from '../../src/http/app.js';
import { startService, type Service } from '../support/service.js';

let svc: Service;
let routes: RouteEntry[];

/** A value for each path parameter that names something the test build has. */
const SAMPLE_PARAMS: Record<string, string> = {
  api_name: 'core_median_household_income',
  geo_key: 'state:06',
  target: 'state',
  geo_type: 'state',
  id: 'key_000000000000',
  vintage: '2018',
};

/** Required query parameters, so that checks after validation (stores, admission) are reached. */
const SAMPLE_QUERY: Record<string, string> = {
  '/v1/data': 'variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018',
  '/v1/compare': 'variables=B19013_001E&geo=state:06;state:48&dataset=acs1&vintage=2018',
  '/v1/timeseries': 'variables=B19013_001E&geo=state:06&dataset=acs1&from=2016&to=2018',
  '/v1/coverage': 'variables=B19013_001E&geo=state:06&dataset=acs1',
  '/v1/geocode': 'lat=38.8977&lng=-77.0365',
  '/v1/geographies': 'search=Travis',
  '/v1/geographies/:geo_key/children': 'type=county',
  '/data/:vintage/acs/acs1': 'get=NAME,B19013_001E&for=state:06',
  '/data/:vintage/acs/acs5': 'get=NAME,B19013_001E&for=state:06',
};

function urlOf(route: RouteEntry): string {
  const path = route.url.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(SAMPLE_PARAMS[name] ?? 'x'));
  const query = SAMPLE_QUERY[route.url];
  return query ? `${path}?${query}` : path;
}

function request(route: RouteEntry, headers: Record<string, string> = {}): InjectOptions {
  const withBody = !['GET', 'HEAD', 'DELETE'].includes(route.method);
  return {
    method: route.method as InjectOptions['method'],
    url: urlOf(route),
    headers: withBody ? { 'content-type': 'application/json', ...headers } : headers,
    ...(withBody ? { payload: '{}' } : {}),
  };
}

const isProblem = (res: { headers: Record<string, unknown> }) => /^application\/problem\+json/.test(String(res.headers['content-type']));

/**
 * The Census-API-compatible paths answer in the Bureau's form instead of problem+json
 * (src/http/routes/census-api/bureau-errors.ts): a 302 to its key pages, `error: …` text.
 */
const isCensusApi = (route: RouteEntry) => route.url.startsWith('/data/');
const bureauText = (res: { headers: Record<string, unknown>; body: string }) => {
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  expect(res.body).toMatch(/^error: /);
  return res.body;
};

beforeAll(async () => {
  svc = await startService();
  // HEAD mirrors GET; the MCP endpoint has its own tests (test/mcp).
  routes = svc.app.routeTable.filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
});
afterAll(async () => svc?.close());

describe('the route table', () => {
  it('holds every documented operation', async () => {
    const doc = (await svc.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const table = new Set(routes.map((r) => `${r.method} ${r.url}`));
    // HEAD is fastify's own counterpart of every GET route (documented, not a route of the table).
    for (const op of documented) expect(table.has(op.replace(/^HEAD /, 'GET ')), op).toBe(true);
    expect(routes.length).toBeGreaterThanOrEqual(25);
  });
});

describe('auth matrix on every route', () => {
  it('API-key routes: 401 missing-api-key without a key, 401 invalid-api-key with a bad one, both with WWW-Authenticate', async () => {
    for (const route of routes.filter((r) => r.meta.auth === 'api-key')) {
      if (isCensusApi(route)) {
        const none = await svc.app.inject(request(route));
        expect([none.statusCode, none.headers.location, none.headers['x-datawebapi-keyerror']], route.url).toEqual([
          302,
          '/data/missing_key.html',
          '1',
        ]);
        const bad = await svc.app.inject(request(route, { 'x-api-key': 'svc_live_00000000000000000000000000000000' }));
        expect([bad.statusCode, bad.headers.location, bad.headers['x-datawebapi-keyerror']], route.url).toEqual([
          302,
          '/data/invalid_key.html',
          '1',
        ]);
        continue;
      }
      const none = await svc.app.inject(request(route));
      expect(none.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(none.json().type, route.url).toMatch(/\/missing-api-key$/);
      expect(none.headers['www-authenticate'], route.url).toMatch(/^ApiKey /);
      const bad = await svc.app.inject(request(route, { 'x-api-key': 'svc_live_00000000000000000000000000000000' }));
      expect(bad.statusCode, route.url).toBe(401);
      expect(bad.json().type, route.url).toMatch(/\/invalid-api-key$/);
    }
  });

  it('dashboard routes: 401 invalid-token with a Bearer challenge; an API key is not a sign-in token', async () => {
    const dashboard = routes.filter((r) => r.meta.auth === 'user-token');
    expect(dashboard.length).toBeGreaterThan(0);
    for (const route of dashboard) {
      for (const headers of [{}, { 'x-api-key': svc.keys.enterprise }] as Record<string, string>[]) {
        const res = await svc.app.inject(request(route, headers));
        expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
        expect(res.headers['www-authenticate'], route.url).toMatch(/^Bearer /);
      }
    }
  });

  it('public routes answer without credentials', async () => {
    for (const route of routes.filter((r) => r.meta.auth === 'none')) {
      const res = await svc.app.inject(request(route));
      expect(res.statusCode, `${route.method} ${route.url}`).not.toBe(401);
    }
  });
});

describe('feature flags and missing stores on every route', () => {
  let flagged: FastifyInstance;
  let bare: FastifyInstance;
  const features = () => [...new Set(routes.flatMap((r) => (r.meta.feature ? [r.meta.feature] : [])))];

  beforeAll(async () => {
    const logger = pino({ level: 'silent' });
    flagged = await buildApp({ config: { ...svc.config, DISABLED_FEATURES: features() }, stores: svc.stores, logger });
    // Only the accounts database: keys still authenticate, every data store is missing.
    bare = await buildApp({ config: svc.config, stores: { accounts: svc.stores.accounts }, logger });
    await Promise.all([flagged.ready(), bare.ready()]);
  });
  afterAll(async () => {
    await flagged?.close();
    await bare?.close();
  });

  it('a feature in DISABLED_FEATURES answers 503 feature-unavailable naming it, for every plan', async () => {
    const gated = routes.filter((r) => r.meta.feature && r.meta.auth === 'api-key');
    expect(gated.length).toBeGreaterThan(0);
    for (const route of gated) {
      const res = await flagged.inject(request(route, { 'x-api-key': svc.keys.enterprise }));
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(503);
      if (isCensusApi(route)) {
        expect(bureauText(res), route.url).toContain(route.meta.feature);
        continue;
      }
      expect(res.json(), route.url).toMatchObject({ feature: route.meta.feature });
      expect(res.json().type, route.url).toMatch(/\/feature-unavailable$/);
    }
  });

  it('a route whose store is missing answers 503 dependency-unavailable without naming the store', async () => {
    const needing = routes.filter((r) => r.meta.auth === 'api-key' && r.meta.needs.length > 0);
    expect(needing.length).toBeGreaterThan(0);
    for (const route of needing) {
      const res = await bare.inject(request(route, { 'x-api-key': svc.keys.enterprise }));
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(503);
      if (isCensusApi(route)) {
        for (const store of route.meta.needs) expect(bureauText(res), route.url).not.toContain(store);
        continue;
      }
      expect(res.json().type, route.url).toMatch(/\/dependency-unavailable$/);
      for (const store of route.meta.needs) expect(res.json().detail, route.url).not.toContain(store);
    }
  });
});

describe('rate-limit headers on every keyed response', () => {
  function expectRateLimit(res: { statusCode: number; headers: Record<string, unknown> }, what: string) {
    expect(res.headers.ratelimit, `${what} → ${res.statusCode}`).toMatch(/"monthly";r=\d+/);
    expect(res.headers['ratelimit-policy'], `${what} → ${res.statusCode}`).toMatch(/"monthly";q=\d+/);
  }

  it('on every API-key route, whatever the status', async () => {
    for (const route of routes.filter((r) => r.meta.auth === 'api-key')) {
      const res = await svc.app.inject(request(route, { 'x-api-key': svc.keys.free }));
      expectRateLimit(res, `${route.method} ${route.url}`);
    }
  });

  it('on 404, 405 and 414 for a valid key', async () => {
    const headers = { 'x-api-key': svc.keys.free };
    const notFound = await svc.app.inject({ url: '/v1/nope', headers });
    expect(notFound.statusCode).toBe(404);
    expectRateLimit(notFound, '404');
    for (const route of routes.filter((r) => r.meta.auth === 'api-key' && r.method === 'GET')) {
      const wrong = await svc.app.inject({ method: 'DELETE', url: urlOf(route), headers });
      expect(wrong.statusCode, route.url).toBe(405);
      expect(isProblem(wrong)).toBe(true);
      expectRateLimit(wrong, `DELETE ${route.url}`);
      if (route.url.includes(':')) {
        const long = await svc.app.inject({ url: route.url.replace(/:(\w+)/g, () => 'x'.repeat(300)), headers });
        expect(long.statusCode, route.url).toBe(414);
        expectRateLimit(long, `414 ${route.url}`);
      }
    }
  });
});
