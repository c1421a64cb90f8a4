// The Census-API-compatible discovery documents on the real test build: shapes as the Bureau's
// clients read them, content checked against the Bureau's own files in ../shared/census (verbatim
// API labels, the value files held), the Bureau-style 404s, caching, and that these exact paths win
// in fastify's router over the query endpoint's parametric and catch-all routes.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildApp } from '../../../../src/http/app.js';
import { SHARED_CENSUS } from '../../../support/paths.js';
import { startService, type Service } from '../../../support/service.js';

let svc: Service;
const HOST = 'census.example.test';
const BASE = `http://${HOST}`;
const get = (url: string, headers: Record<string, string> = {}) => svc.app.inject({ url, headers: { host: HOST, ...headers } });
const local = (url: string) => url.replace(BASE, '');

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

/** The Bureau's verbatim API labels of one acs1 vintage: code → {label, type}. */
function apiLabels(vintage: number): Map<string, { label: string; type: string }> {
  const text = gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, 'metadata/api_labels/acs1', `${vintage}.csv.gz`))).toString('utf8');
  const rows = parse(text, { columns: true }) as Array<{ VARIABLE: string; LABEL: string; TYPE: string }>;
  return new Map(rows.map((r) => [r.VARIABLE, { label: r.LABEL, type: r.TYPE }]));
}

/**
 * The groups whose values the shared API files hold for a dataset, vintage and level: five-digit
 * tables and the six-digit allocation tables (B992521 and the like).
 */
function heldGroups(vintage: number, dataset: string, level: string): string[] {
  const dir = path.join(SHARED_CENSUS, 'api', String(vintage), 'acs', dataset, level);
  return fs
    .readdirSync(dir)
    .map((f) => f.replace(/\.json\.gz$/, ''))
    .filter((t) => /^[BC]\d{5,6}[A-Z]{0,4}$/.test(t))
    .sort();
}

interface Entry {
  label: string;
  concept: string;
  predicateType?: string;
  group: string;
  limit: number;
  predicateOnly?: boolean;
  attributes?: string;
}

describe('GET /data.json', () => {
  it('is a DCAT-US catalog of exactly the datasets and vintages the build holds, every link pointing here', async () => {
    const res = await get('/data.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.json();
    expect(doc).toMatchObject({ '@type': 'dcat:Catalog', conformsTo: 'https://project-open-data.cio.gov/v1.1/schema' });
    const ids = doc.dataset.map((d: { identifier: string }) => d.identifier.split('/').at(-1)).sort();
    const acs1 = fs
      .readdirSync(path.join(SHARED_CENSUS, 'api'))
      .filter((v) => fs.existsSync(path.join(SHARED_CENSUS, 'api', v, 'acs/acs1')));
    expect(ids).toEqual([...acs1.map((v) => `ACSDT1Y${v}`), 'ACSDT5Y2017', 'ACSDT5Y2022', 'ACSDT5Y2023'].sort());
    const e2018 = doc.dataset.find((d: { identifier: string }) => d.identifier.endsWith('ACSDT1Y2018'));
    expect(e2018).toMatchObject({
      c_vintage: 2018,
      c_dataset: ['acs', 'acs1'],
      c_variablesLink: `${BASE}/data/2018/acs/acs1/variables.json`,
      c_geographyLink: `${BASE}/data/2018/acs/acs1/geography.json`,
      c_groupsLink: `${BASE}/data/2018/acs/acs1/groups.json`,
      distribution: [{ accessURL: `${BASE}/data/2018/acs/acs1`, format: 'API' }],
      temporal: '2018/2018',
    });
    expect(
      doc.dataset.find((d: { c_vintage: number; c_dataset: string[] }) => d.c_vintage === 2022 && d.c_dataset[1] === 'acs5').temporal,
    ).toBe('2018/2022');
    // What cenpy and censusapi read from each entry.
    for (const d of doc.dataset) {
      expect(d.identifier.split('id').at(-1).replace(/^\//, '')).toMatch(/^ACSDT[15]Y\d{4}$/);
      for (const k of ['title', 'c_vintage', 'temporal', 'spatial', 'modified', 'description']) expect(d[k], k).toBeDefined();
      expect(d.contactPoint).toHaveProperty('hasEmail');
      for (const link of [d.c_variablesLink, d.c_geographyLink, d.c_groupsLink])
        expect((await get(local(link))).statusCode, link).toBe(200);
    }
  });

  it('/data/{vintage}/acs/{ds}.json is the catalog of that one dataset', async () => {
    const doc = (await get('/data/2017/acs/acs5.json')).json();
    expect(doc.dataset).toHaveLength(1);
    expect(doc.dataset[0]).toMatchObject({ c_vintage: 2017, c_dataset: ['acs', 'acs5'], temporal: '2013/2017' });
    const res = await get('/data/2016/acs/acs1.json');
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatch(/^error: unknown\/unsupported dataset '2016\/acs\/acs1'/);
  });

  it('builds links from BASE_URL when the deployment sets one', async () => {
    const app = await buildApp({
      config: { ...svc.config, BASE_URL: 'https://census.example.org/api' },
      stores: svc.stores,
      logger: pino({ level: 'silent' }),
    });
    try {
      const doc = (await app.inject({ url: '/data.json' })).json();
      expect(doc.dataset[0].c_variablesLink).toMatch(/^https:\/\/census\.example\.org\/api\/data\/\d{4}\/acs\/acs[15]\/variables\.json$/);
    } finally {
      await app.close();
    }
  });
});

describe('variables.json', () => {
  it('acs1 2012: every estimate of every table held, labels and predicateType exactly as the API published them', async () => {
    const res = await get('/data/2012/acs/acs1/variables.json');
    expect(res.statusCode).toBe(200);
    const vars = res.json().variables as Record<string, Entry>;
    const labels = apiLabels(2012);
    const codes = Object.keys(vars).filter((k) => /_\d{3}E$/.test(k));
    const groups = [...new Set(codes.map((c) => c.split('_')[0]!))].sort();
    expect(groups).toEqual(heldGroups(2012, 'acs1', 'state'));
    let checked = 0;
    for (const code of codes) {
      const v = vars[code]!;
      const api = labels.get(code);
      expect(api, code).toBeDefined();
      expect(v.label, code).toBe(api!.label);
      expect(v.predicateType, code).toBe(api!.type === 'null' ? undefined : api!.type);
      const base = code.slice(0, -1);
      expect(v.attributes, code).toBe(labels.has(`${base}M`) ? `${base}EA,${base}M,${base}MA` : `${base}EA`);
      expect(v.group).toBe(code.split('_')[0]);
      checked++;
    }
    // Every estimate the API listed for those groups is listed here.
    const apiEstimates = [...labels.keys()].filter((k) => k.endsWith('E') && groups.includes(k.split('_')[0]!));
    expect(checked).toBe(apiEstimates.length);
    expect(checked).toBeGreaterThan(20_000);
    expect(vars.B19013_001E).toMatchObject({
      label: 'Estimate!!Median household income in the past 12 months (in 2012 inflation-adjusted dollars)',
      concept: expect.stringMatching(/^MEDIAN HOUSEHOLD INCOME IN THE PAST 12 MONTHS \(IN 2012 INFLATION-ADJUSTED DOLLARS\)$/),
      predicateType: 'int',
      group: 'B19013',
      limit: 0,
    });
    expect(vars.for).toMatchObject({ predicateType: 'fips-for', predicateOnly: true, concept: 'Census API Geography Specification' });
    expect(vars.NAME).toMatchObject({ label: 'Geographic Area Name', predicateType: 'string' });
    // Every entry carries a label and a concept (the census package and tidycensus read both).
    for (const [k, v] of Object.entries(vars)) expect(typeof v.label === 'string' && typeof v.concept === 'string', k).toBe(true);
    // tidycensus takes the first columns after the name: label, then concept.
    expect(Object.keys(vars.for!).slice(0, 2)).toEqual(['label', 'concept']);
  });

  it('acs5 2022 (labels from the table shells): only the two tables held, with the API prefix', async () => {
    const vars = (await get('/data/2022/acs/acs5/variables.json')).json().variables as Record<string, Entry>;
    const groups = [
      ...new Set(
        Object.keys(vars)
          .filter((k) => /_\d{3}E$/.test(k))
          .map((c) => c.split('_')[0]),
      ),
    ].sort();
    expect(groups).toEqual(heldGroups(2022, 'acs5', 'county'));
    expect(vars.B01003_001E!.label).toMatch(/^Estimate!!Total/);
    expect(vars.B01003_001E!.attributes).toBe('B01003_001EA,B01003_001M,B01003_001MA');
  });
});

describe('groups', () => {
  it('groups.json lists every table held with its title, universe ("universe " as the Bureau spells it) and a link that resolves', async () => {
    const doc = (await get('/data/2018/acs/acs1/groups.json')).json();
    expect(doc.groups.map((g: { name: string }) => g.name)).toEqual(heldGroups(2018, 'acs1', 'nation'));
    const b19013 = doc.groups.find((g: { name: string }) => g.name === 'B19013');
    expect(b19013).toEqual({
      name: 'B19013',
      description: expect.stringMatching(/^MEDIAN HOUSEHOLD INCOME/),
      variables: `${BASE}/data/2018/acs/acs1/groups/B19013.json`,
      'universe ': 'Households',
    });
    expect((await get(local(b19013.variables))).statusCode).toBe(200);
  });

  it('groups/{table}.json: estimates, margins and annotations with the API labels, over 40 tables of 3 vintages', async () => {
    for (const vintage of [2005, 2012, 2018]) {
      const labels = apiLabels(vintage);
      const held = heldGroups(vintage, 'acs1', 'state');
      // A spread of tables: every 25th held one, B99 allocation tables (no MOE) included when held.
      const sample = held.filter((t, i) => i % 25 === 0 || t.startsWith('B99')).slice(0, 40);
      for (const table of sample) {
        const res = await get(`/data/${vintage}/acs/acs1/groups/${table}.json`);
        expect(res.statusCode, table).toBe(200);
        const vars = res.json().variables as Record<string, Entry>;
        const apiCodes = [...labels.keys()].filter((k) => k.startsWith(`${table}_`));
        const expected = apiCodes.flatMap((k) => [k, `${k}A`]).sort();
        expect(Object.keys(vars).sort(), `${vintage} ${table}`).toEqual(expected);
        for (const code of apiCodes) {
          expect(vars[code]!.label, code).toBe(labels.get(code)!.label);
          expect(vars[`${code}A`]).toMatchObject({
            label: `Annotation of ${labels.get(code)!.label}`,
            predicateType: 'string',
            predicateOnly: true,
          });
        }
      }
    }
  });

  it('an unknown or unheld table is the Bureau-style 404', async () => {
    for (const [url, body] of [
      ['/data/2018/acs/acs1/groups/B99999.json', "error: unknown group 'B99999'"],
      // Published in acs1 2018 but not among the values held here.
      ['/data/2018/acs/acs1/groups/B01003.json', "error: unknown group 'B01003'"],
      ['/data/2018/acs/acs1/groups/B19013.html', "error: unknown group 'B19013.html'"],
    ]) {
      const res = await get(url!);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/plain/);
      expect(res.body, url).toBe(body);
    }
  });
});

describe('variables/{code}.json', () => {
  it('answers an estimate, a margin, an annotation and the fixed variables, with their name', async () => {
    const e = (await get('/data/2018/acs/acs1/variables/B19013_001E.json')).json();
    expect(e).toMatchObject({
      name: 'B19013_001E',
      group: 'B19013',
      predicateType: 'int',
      attributes: 'B19013_001EA,B19013_001M,B19013_001MA',
    });
    const m = (await get('/data/2018/acs/acs1/variables/B19013_001M.json')).json();
    expect(m).toMatchObject({ name: 'B19013_001M', label: apiLabels(2018).get('B19013_001M')!.label, predicateOnly: true });
    const ma = (await get('/data/2018/acs/acs1/variables/B19013_001MA.json')).json();
    expect(ma.label).toBe(`Annotation of ${m.label}`);
    expect((await get('/data/2018/acs/acs1/variables/NAME.json')).json()).toMatchObject({ name: 'NAME', label: 'Geographic Area Name' });
  });

  it('an unknown code, a code of an unheld vintage and bad input are 404s, never a 5xx', async () => {
    const cases = [
      ['/data/2018/acs/acs1/variables/B19013_999E.json', "error: unknown variable 'B19013_999E'"],
      ['/data/2018/acs/acs1/variables/B99171_001M.json', "error: unknown variable 'B99171_001M'"],
      ['/data/2018/acs/acs1/variables/%C3%A9t%C3%A9.json', "error: unknown variable 'été'"],
    ];
    for (const [url, body] of cases) {
      const res = await get(url!);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toBe(body);
    }
    for (const url of [
      '/data/2016/acs/acs1/variables.json',
      '/data/2020/acs/acs5/variables.json',
      '/data/abc/acs/acs1/groups.json',
      '/data/2018/acs/acs3/geography.json',
      `/data/2018/acs/${'x'.repeat(90)}/variables.json`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toMatch(
        /^error: unknown\/unsupported dataset '.*'\. This service holds acs\/acs1 2005–2015, 2017, 2018; acs\/acs5 2017, 2022, 2023/,
      );
    }
  });
});

describe('geography.json', () => {
  it('lists the levels held, named and nested as the Bureau names them', async () => {
    expect((await get('/data/2018/acs/acs1/geography.json')).json()).toEqual({
      fips: [
        { name: 'us', geoLevelDisplay: '010', referenceDate: '2018-01-01' },
        { name: 'state', geoLevelDisplay: '040', referenceDate: '2018-01-01' },
      ],
    });
    expect((await get('/data/2017/acs/acs5/geography.json')).json().fips).toEqual([
      { name: 'metropolitan statistical area/micropolitan statistical area', geoLevelDisplay: '310', referenceDate: '2017-01-01' },
    ]);
    expect((await get('/data/2023/acs/acs5/geography.json')).json().fips).toEqual([
      {
        name: 'county',
        geoLevelDisplay: '050',
        referenceDate: '2023-01-01',
        requires: ['state'],
        wildcard: ['state'],
        optionalWithWCFor: 'state',
      },
    ]);
  });
});

describe('access and caching', () => {
  it('needs no key, ignores a key parameter, and answers If-None-Match with 304', async () => {
    const first = await get('/data/2018/acs/acs1/variables.json?key=anything');
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, max-age=3600');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    const again = await get('/data/2018/acs/acs1/variables.json', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Served from the rendered bytes: the same ETag for the same document.
    expect((await get('/data/2018/acs/acs1/variables.json')).headers.etag).toBe(etag);
  });

  it('sends the gzipped representation, with an ETag of its own, to a client that accepts gzip', async () => {
    const plain = await get('/data/2018/acs/acs1/variables.json');
    const gz = await get('/data/2018/acs/acs1/variables.json', { 'accept-encoding': 'gzip, deflate' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toMatch(/Accept-Encoding/);
    expect(gz.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(gz.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-gz"`);
    const revalidated = await get('/data/2018/acs/acs1/variables.json', {
      'accept-encoding': 'gzip',
      'if-none-match': String(gz.headers.etag),
    });
    expect(revalidated.statusCode).toBe(304);
    // Refused gzip, or a tiny document: as it is.
    expect(
      (await get('/data/2018/acs/acs1/variables.json', { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding'],
    ).toBeUndefined();
    expect((await get('/data/2018/acs/acs1/geography.json', { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBeUndefined();
  });

  it('an error is not cached', async () => {
    const res = await get('/data/2016/acs/acs1/variables.json');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe("fastify's router", () => {
  it('gives the exact document paths to discovery and the rest to the query routes', async () => {
    const res = (url: string) => svc.app.inject({ url });
    expect((await res('/data/2018/acs/acs1.json')).json().dataset).toHaveLength(1);
    expect((await res('/data/2018/acs/acs1/variables.json')).json().variables.B19013_001E).toBeDefined();
    expect((await res('/data/2018/acs/acs1/groups/B19013.json')).json().variables.B19013_001M).toBeDefined();
    expect((await res('/data.json')).json()['@type']).toBe('dcat:Catalog');
    // The query endpoint: without a key, the Bureau's missing-key answer (a redirect), not a document.
    const query = await res('/data/2018/acs/acs1?get=NAME&for=us:1');
    expect(query.statusCode).toBe(302);
    // Everything else under /data is the query routes' unknown-dataset answer.
    for (const url of ['/data/2018/acs/acs1s.json', '/data/2018/acs/acs1/subject/variables.json', '/data/2020/dec/pl']) {
      const r = await res(url);
      expect(r.statusCode, url).toBe(404);
      expect(r.body, url).toMatch(/^error: unknown(\/unsupported)? dataset/);
    }
  });
});
