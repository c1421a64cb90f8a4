import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { assertAuthMatrix } from '../../auth-matrix.js';
import { readManifest } from '../../../../src/store/data-dir.js';
import { KEYS, makeApp, problemOf, testConfig } from '../../support.js';
import { catalogDataDir, type CatalogDataDir } from './catalog-build.js';

const pro = { 'x-api-key': KEYS.pro };
const free = { 'x-api-key': KEYS.free };

let fx: CatalogDataDir;
let app: FastifyInstance;

beforeAll(async () => {
  fx = await catalogDataDir();
  app = await makeApp({
    config: testConfig({ DATA_DIR: fx.dataDir }),
    stores: { catalog: fx.catalog, build: { dir: fx.buildDir, manifest: readManifest(fx.buildDir) } },
  });
}, 120_000);
afterAll(() => app?.close());

describe('GET /v1/variables', () => {
  it('lists the catalog with a default page of 50 and a total', async () => {
    const res = await app.inject({ url: '/v1/variables', headers: pro });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(50);
    expect(body.meta.total_count).toBe(392);
    expect(body.meta.source).toBeNull();
    expect(Object.keys(body.data[0]).sort()).toEqual(['api_name', 'census_code', 'display_format', 'kind', 'label', 'topic', 'unit']);
    expect(body.data[0].kind).toBe('catalog');
    expect(new URL(body.links.next).searchParams.get('offset')).toBe('50');
    expect(body.links.prev).toBeNull();
  });

  it('pages through everything without gaps or repeats', async () => {
    const seen = new Set<string>();
    let url: string | null = '/v1/variables?limit=100';
    while (url) {
      const body: { data: Array<{ api_name: string }>; links: { next: string | null } } = (await app.inject({ url, headers: pro })).json();
      for (const v of body.data) seen.add(v.api_name);
      url = body.links.next ? new URL(body.links.next).pathname + new URL(body.links.next).search : null;
    }
    expect(seen.size).toBe(392);
  });

  it('reduces limit to the plan maximum', async () => {
    const body = (await app.inject({ url: '/v1/variables?limit=1000', headers: free })).json();
    expect(body.data).toHaveLength(100);
    expect(new URL(body.links.next).searchParams.get('limit')).toBe('100');
  });

  it('filters by topic', async () => {
    const body = (await app.inject({ url: '/v1/variables?topic=core&limit=100', headers: pro })).json();
    expect(body.meta.total_count).toBe(20);
    expect(body.data.every((v: { topic: { topic_key: string } }) => v.topic.topic_key === 'core')).toBe(true);
  });

  it('rejects an unknown topic with 400 listing the topics', async () => {
    const res = await app.inject({ url: '/v1/variables?topic=sports', headers: pro });
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p.type).toMatch(/validation-error$/);
    expect(p.detail).toContain('housing');
    expect(p.errors?.[0]).toMatchObject({ field: 'query → topic', type: 'enum' });
  });

  it('searches labels and returns matched_census_codes for a code search', async () => {
    const words = (await app.inject({ url: '/v1/variables?search=median%20household%20income', headers: pro })).json();
    expect(words.data.map((v: { api_name: string }) => v.api_name)).toContain('core_median_household_income');
    const code = (await app.inject({ url: '/v1/variables?search=B19013_001E', headers: pro })).json();
    const hit = code.data.find((v: { api_name: string }) => v.api_name === 'core_median_household_income');
    expect(hit.matched_census_codes[0].code).toBe('B19013_001E');
    expect(hit.matched_census_codes[0].vintages.length).toBeGreaterThan(5);
  });

  it('gives a hint when nothing matches', async () => {
    const body = (await app.inject({ url: '/v1/variables?search=zzqxqz', headers: pro })).json();
    expect(body.data).toEqual([]);
    expect(body.meta.total_count).toBe(0);
    expect(body.meta.hint).toMatch(/zzqxqz/);
    expect(body.links.next).toBeNull();
  });

  it('validates paging parameters', async () => {
    expect((await app.inject({ url: '/v1/variables?limit=abc', headers: pro })).statusCode).toBe(422);
    expect((await app.inject({ url: '/v1/variables?limit=0', headers: pro })).statusCode).toBe(400);
    expect((await app.inject({ url: '/v1/variables?offset=-1', headers: pro })).statusCode).toBe(400);
  });
});

describe('GET /v1/variables/{api_name}', () => {
  it('returns detail with availability', async () => {
    const body = (await app.inject({ url: '/v1/variables/core_median_household_income', headers: pro })).json();
    expect(body.data.api_name).toBe('core_median_household_income');
    expect(body.data.census_code).toBe('B19013_001E');
    expect(body.data.availability.acs5).toContain(2024);
    expect(body.data.census_codes[0]).toMatchObject({ code: 'B19013_001E' });
    expect(body.links.self).toMatch(/\/v1\/variables\/core_median_household_income$/);
  });

  it('accepts a census code (estimate or margin) as an alias', async () => {
    for (const alias of ['B19013_001E', 'b19013_001e', 'B19013_001M']) {
      const res = await app.inject({ url: `/v1/variables/${alias}`, headers: pro });
      expect(res.statusCode, alias).toBe(200);
      expect(res.json().data.api_name).toBe('core_median_household_income');
    }
  });

  it('404 variable-not-found, with advice when a year was appended', async () => {
    const res = await app.inject({ url: '/v1/variables/core_median_household_income_2019', headers: pro });
    expect(res.statusCode).toBe(404);
    const p = problemOf(res);
    expect(p.type).toMatch(/variable-not-found$/);
    expect(p.detail).toMatch(/no vintage year/);
  });
});

describe('GET /v1/topics and /v1/datasets', () => {
  it('lists the 9 topics with active-variable counts adding up to the catalog', async () => {
    const body = (await app.inject({ url: '/v1/topics', headers: pro })).json();
    expect(body.data.map((t: { topic_key: string }) => t.topic_key).sort()).toEqual([
      'core',
      'demographics',
      'economics',
      'environment',
      'equity',
      'health',
      'housing',
      'social',
      'transport',
    ]);
    expect(body.data.reduce((n: number, t: { variable_count: number }) => n + t.variable_count, 0)).toBeLessThanOrEqual(392);
    expect(body.meta.total_count).toBe(9);
  });

  it('lists both datasets with vintages and the default vintage', async () => {
    const body = (await app.inject({ url: '/v1/datasets', headers: pro })).json();
    const acs5 = body.data.find((d: { dataset: string }) => d.dataset === 'acs5');
    const acs1 = body.data.find((d: { dataset: string }) => d.dataset === 'acs1');
    expect(acs5.vintages[0]).toBe(2009);
    expect(acs5.default_vintage).toBe(2024);
    expect(acs1.vintages).not.toContain(2020);
  });
});

describe('codebook downloads', () => {
  it.each([
    ['json', /^application\/json/],
    ['csv', /^text\/csv/],
  ])('serves codebook.%s with a strong ETag and a 24-hour cache', async (ext, type) => {
    const res = await app.inject({ url: `/v1/codebook.${ext}`, headers: pro });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.headers['cache-control']).toContain('max-age=86400');
    expect(String(res.headers.etag)).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.rawPayload.equals(fs.readFileSync(path.join(fx.buildDir, 'catalog', `codebook.${ext}`)))).toBe(true);

    const etag = String(res.headers.etag);
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await app.inject({ url: `/v1/codebook.${ext}`, headers: { ...pro, 'if-none-match': inm } });
      expect(again.statusCode, inm).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    const stale = await app.inject({ url: `/v1/codebook.${ext}`, headers: { ...pro, 'if-none-match': '"stale"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('503 when the live build has no codebook', async () => {
    const empty = await makeApp({ stores: { catalog: fx.catalog } });
    const res = await empty.inject({ url: '/v1/codebook.json', headers: pro });
    expect(res.statusCode).toBe(503);
    expect(problemOf(res).detail).not.toContain('/tmp');
    await empty.close();
  });
});

describe('catalog routes without a catalog store', () => {
  it('answer 503 dependency-unavailable while /health keeps answering', async () => {
    const bare = await makeApp({
      config: testConfig({ DATA_DIR: fx.dataDir }),
      stores: { build: { dir: fx.buildDir, manifest: readManifest(fx.buildDir) } },
    });
    for (const url of ['/v1/variables', '/v1/variables/x', '/v1/topics', '/v1/datasets']) {
      const res = await bare.inject({ url, headers: pro });
      expect(res.statusCode, url).toBe(503);
      expect(problemOf(res).type).toMatch(/dependency-unavailable$/);
    }
    expect([200, 503]).toContain((await bare.inject({ url: '/health' })).statusCode);
    expect((await bare.inject({ url: '/v1/codebook.csv', headers: pro })).statusCode).toBe(200);
    await bare.close();
  });
});

describe('catalog auth', () => {
  it('satisfies the auth matrix', async () => {
    await assertAuthMatrix(
      app,
      [
        '/v1/variables',
        '/v1/variables/core_median_household_income',
        '/v1/topics',
        '/v1/datasets',
        '/v1/codebook.json',
        '/v1/codebook.csv',
      ].map((url) => ({ url })),
      { valid: KEYS.pro, revoked: KEYS.revoked },
    );
  });
});
