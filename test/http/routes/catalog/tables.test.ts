// /v1/tables and the census-code side of /v1/variables search, on the real build (issue 10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../../support/service.js';
import { assertAuthMatrix } from '../../auth-matrix.js';

let svc: Service;
const get = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

describe('GET /v1/tables', () => {
  it('finds a table by id prefix and by words of its title', async () => {
    const byId = await get('/v1/tables?search=B07009');
    expect(byId.statusCode).toBe(200);
    expect(byId.json().data[0]).toMatchObject({ table_id: 'B07009', vintages: { acs1: expect.arrayContaining([2018]) } });
    const byWords = await get('/v1/tables?search=geographical%20mobility%20educational%20attainment');
    expect(byWords.json().data.map((t: { table_id: string }) => t.table_id)).toContain('B07009');
  });

  it('says so when nothing matches', async () => {
    const res = await get('/v1/tables?search=zzzzqqq');
    expect(res.json()).toMatchObject({ data: [], meta: { total_count: 0, hint: expect.stringMatching(/No Detailed Table matches/) } });
  });
});

describe('GET /v1/tables/{table_id}', () => {
  it('describes B19013 in acs1 2018: title, universe, columns, published and loaded vintages', async () => {
    const res = await get('/v1/tables/B19013?dataset=acs1&vintage=2018');
    expect(res.statusCode).toBe(200);
    const t = res.json().data;
    expect(t).toMatchObject({ table_id: 'B19013', dataset: 'acs1', vintage: 2018, universe: 'Households' });
    expect(t.title).toMatch(/^Median Household Income/);
    expect(t.columns).toEqual([{ code: 'B19013_001E', label: expect.stringMatching(/Median household income/), indent: 0 }]);
    expect(t.published.acs1).toEqual(expect.arrayContaining([2005, 2018]));
    expect(t.loaded.acs1.state).toEqual(expect.arrayContaining([2005, 2018]));
    expect(t.loaded.acs5.metro).toEqual([2017]);
    expect(t.request).toContain('variables=B19013*');
  });

  it('defaults to acs5 and the latest vintage that has the table', async () => {
    const res = await get('/v1/tables/b01001');
    expect(res.json().data).toMatchObject({ table_id: 'B01001', dataset: 'acs5', vintage: 2024 });
    expect(res.json().data.columns).toHaveLength(49);
  });

  it('404 for a table never published, and for a vintage without it', async () => {
    expect((await get('/v1/tables/B99999')).statusCode).toBe(404);
    const res = await get('/v1/tables/B28002?dataset=acs1&vintage=2010');
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toMatch(/It was in acs1 2013/);
  });

  it('requires a key', async () => {
    await assertAuthMatrix(svc.app, [{ url: '/v1/tables/B19013' }, { url: '/v1/tables?search=B19' }], { valid: svc.keys.free });
  });
});

describe('GET /v1/variables?search= finds census codes too, and says which is which', () => {
  it('search=B07009 lists the published codes of the table as census_code results', async () => {
    const res = await get('/v1/variables?search=B07009&limit=100');
    expect(res.statusCode).toBe(200);
    const codes = res.json().data.filter((v: { kind: string }) => v.kind === 'census_code');
    expect(codes.map((v: { census_code: string }) => v.census_code)).toContain('B07009_025E');
    const c = codes.find((v: { census_code: string }) => v.census_code === 'B07009_025E');
    expect(c).toMatchObject({
      api_name: 'B07009_025E',
      table_id: 'B07009',
      unit: 'count',
      availability: { acs1: expect.arrayContaining([2018]) },
    });
    expect(res.json().meta.matching_tables[0].table_id).toBe('B07009');
  });

  it('search=B19013 gives the catalog variable first (kind catalog), then the raw code', async () => {
    const res = await get('/v1/variables?search=B19013&limit=100');
    const kinds = res.json().data.map((v: { kind: string }) => v.kind);
    expect(kinds[0]).toBe('catalog');
    expect(kinds.indexOf('census_code')).toBeGreaterThan(kinds.lastIndexOf('catalog'));
  });

  it('/v1/variables/{code} for a published code outside the catalog points to the data request and the table', async () => {
    const res = await get('/v1/variables/B07009_025E');
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toMatch(/\/v1\/tables\/B07009/);
  });
});
