// Random and mutated requests to every route in the OpenAPI document: whatever arrives, the
// service never answers 5xx, and every 4xx is a well-formed problem body. Routes are read from
// /openapi.json, so a new route is fuzzed without touching this file.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../support/service.js';

interface Operation {
  method: string;
  path: string;
  query: string[];
  pathParams: string[];
}

let svc: Service;
/** Paths of the Census Data API's own shapes (not enveloped; errors are not problem+json). */
const CENSUS_API_PATH = /^\/data[/.]/;
let ops: Operation[];

const VALID_SAMPLES: Record<string, string[]> = {
  variables: ['B19013_001E', 'core_median_household_income', 'B01003_001E,B19013_001E'],
  geo: ['state:06', 'county:48*', 'tract:Travis County, TX', 'state:06;state:48', 'metro:12420', 'nation:1'],
  dataset: ['acs1', 'acs5'],
  vintage: ['2018', '2023', '2024'],
  from: ['2009', '2017'],
  to: ['2018', '2024'],
  format: ['csv', 'json'],
  include_geometry: ['true', 'false'],
  search: ['income', 'B19013', 'poverty rate'],
  topic: ['economics', 'housing'],
  limit: ['1', '10', '5000'],
  offset: ['0', '5'],
  type: ['county', 'tract', 'state'],
  parent: ['state:48', 'county:48453'],
  lat: ['38.8977'],
  lng: ['-77.0365'],
  address: ['1016-18 Willow Ave, Hoboken, NJ 07030'],
  resolution: ['20m', '5m', '500k'],
  api_name: ['core_median_household_income', 'B19013_001E'],
  geo_key: ['state:06', 'county:48453'],
  geo_type: ['state', 'county'],
  target: ['state', 'state:06'],
  // The Census Data API's parameters (/data/{vintage}/acs/…).
  get: ['NAME,B19013_001E', 'group(B19013)', 'B19013_001E,B19013_001M,B19013_001EA,B19013_001MA', 'GEO_ID'],
  for: ['state:06', 'state:*', 'us:1', 'county:*', 'metropolitan statistical area/micropolitan statistical area:12420'],
  in: ['state:06', 'state:06 county:037'],
  ucgid: ['0400000US06', '0500000US06037,0500000US48453'],
};

const nasty = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '',
    ' ',
    '*',
    '**',
    ':',
    'state:',
    ':06',
    'state:*',
    'tract:*',
    '%00',
    '../../etc/passwd',
    "'; DROP TABLE x;--",
    '=1+1',
    '9'.repeat(40),
    '-1',
    '1e309',
    'NaN',
    'null',
    '[]',
    '{}',
    'ñ',
    '𝔘',
    'state:06;;;',
    'B19013_001M',
    'b19013_001e',
  ),
  fc.integer().map(String),
  fc.double().map(String),
);

function valueFor(name: string): fc.Arbitrary<string> {
  const valid = VALID_SAMPLES[name];
  if (!valid) return nasty;
  // Half well-formed (to reach deep code paths), half mutated or hostile.
  return fc.oneof(
    fc.constantFrom(...valid),
    nasty,
    fc.tuple(fc.constantFrom(...valid), nasty).map(([a, b]) => a + b),
  );
}

function requestFor(op: Operation) {
  const query = fc
    .dictionary(fc.constantFrom(...op.query, 'unknown_param'), fc.array(fc.constant(null), { maxLength: 1 }), {
      maxKeys: op.query.length + 1,
    })
    .chain((keys) => fc.tuple(...Object.keys(keys).map((k) => valueFor(k).map((v) => [k, v] as const))));
  const params = fc.tuple(...op.pathParams.map((p) => valueFor(p).map((v) => [p, v] as const)));
  const body = fc.oneof(
    fc.constant(undefined),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 40 }),
  );
  const plan = fc.constantFrom<keyof Service['keys']>('free', 'pioneer', 'pro', 'business', 'enterprise');
  return fc.record({ query, params, body, plan });
}

beforeAll(async () => {
  svc = await startService();
  const doc = (await svc.app.inject({ url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
  };
  ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    // HEAD answers are their GET's without a body: the GET is fuzzed, and a HEAD has no problem body to read.
    Object.entries(methods)
      .filter(([method]) => method !== 'head')
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
      })),
  );
}, 300_000);
afterAll(() => svc?.close());

describe('fuzzing every route', () => {
  it('finds the routes to fuzz in the OpenAPI document', () => {
    const paths = ops.map((o) => `${o.method} ${o.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /v1/data',
        'GET /v1/compare',
        'GET /v1/timeseries',
        'GET /v1/variables',
        'GET /v1/topics',
        'GET /v1/datasets',
      ]),
    );
  });

  it('never answers 5xx and always answers 4xx with a problem body', async () => {
    for (const op of ops) {
      await fc.assert(
        fc.asyncProperty(requestFor(op), async ({ query, params, body, plan }) => {
          let url = op.path;
          for (const [k, v] of params) url = url.replace(`{${k}}`, encodeURIComponent(v));
          const qs = new URLSearchParams(query.map(([k, v]) => [k, v])).toString();
          const res = await svc.app.inject({
            method: op.method as 'GET',
            url: qs ? `${url}?${qs}` : url,
            headers: { 'x-api-key': svc.keys[plan], ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined && op.method !== 'GET' ? { payload: body } : {}),
          });
          const where = `${op.method} ${url}?${qs} [${plan}] → ${res.statusCode} ${res.body.slice(0, 300)}`;
          expect(res.statusCode, where).toBeLessThan(500);
          // The Census-API-compatible paths answer in the Bureau's convention, a plain-text `error:` line (docs/census-api.md).
          if (res.statusCode >= 400 && CENSUS_API_PATH.test(op.path)) {
            expect(String(res.headers['content-type']), where).toMatch(/^text\/plain/);
            expect(res.body, where).toMatch(/^error: /);
            expect(res.body, where).not.toMatch(/at .*\.(ts|js):\d+|node_modules|SELECT |duckdb/i);
          } else if (res.statusCode >= 400) {
            expect(String(res.headers['content-type']), where).toMatch(/^application\/problem\+json/);
            const p = res.json() as Record<string, unknown>;
            expect(typeof p.type, where).toBe('string');
            expect(typeof p.title, where).toBe('string');
            expect(p.status, where).toBe(res.statusCode);
            expect(typeof p.detail, where).toBe('string');
            expect(p.request_id, where).toBe(res.headers['x-request-id']);
            expect(String(p.detail), where).not.toMatch(/at .*\.(ts|js):\d+|node_modules|SELECT |duckdb/i);
          }
        }),
        { numRuns: 25, seed: 20261122 },
      );
    }
  }, 600_000);
});
