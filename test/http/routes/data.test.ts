// /v1/data, /v1/compare, /v1/timeseries through HTTP, on real data, real keys and real quotas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertAuthMatrix } from '../auth-matrix.js';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const as = (plan: keyof Service['keys']) => ({ 'x-api-key': svc.keys[plan] });

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

describe('GET /v1/data', () => {
  it("returns California's 2018 acs1 median household income 75277 ± 317 in the envelope", async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018',
      headers: { ...as('free'), 'x-request-id': '6f1c0c59-5d2b-4c55-9d0c-1df0e7d0b0a1' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toEqual([
      expect.objectContaining({
        geo_key: 'state:06',
        geo_name: 'California',
        variable: 'B19013_001E',
        census_code: 'B19013_001E',
        estimate: 75277,
        moe_numeric: 317,
        unit: 'dollar',
        vintage: 2018,
        table_id: 'B19013',
      }),
    ]);
    expect(body.meta).toMatchObject({
      variable_count: 1,
      geography_count: 1,
      request_id: '6f1c0c59-5d2b-4c55-9d0c-1df0e7d0b0a1',
      source: { dataset: 'acs1', vintage_year: 2018 },
    });
    expect(body.links.self).toContain('/v1/data?');
    expect(res.headers['x-request-id']).toBe('6f1c0c59-5d2b-4c55-9d0c-1df0e7d0b0a1');
    expect(res.headers.ratelimit).toBeTruthy();
    expect(res.headers['ratelimit-policy']).toBeTruthy();
  });

  it('serves CSV to Pro with typed numbers and a filename, and refuses it to Free with 403', async () => {
    const url = '/v1/data?variables=B19013_001E&geo=state:06;state:01&dataset=acs1&vintage=2018&format=csv';
    const pro = await svc.app.inject({ url, headers: as('pro') });
    expect(pro.statusCode).toBe(200);
    expect(pro.headers['content-type']).toMatch(/^text\/csv/);
    expect(pro.headers['content-disposition']).toMatch(/attachment; filename="data-acs1-2018\.csv"/);
    const lines = pro.body.trim().split('\n');
    expect(lines[0]).toBe(
      'geo_key,geo_name,geo_type,variable,census_code,label,unit,dataset,vintage,estimate,moe_numeric,estimate_annotation,moe_annotation',
    );
    expect(lines[1]).toMatch(/^state:06,California,state,B19013_001E,B19013_001E,.*,dollar,acs1,2018,75277,317,,$/);
    const free = await svc.app.inject({ url, headers: as('free') });
    expect(free.statusCode).toBe(403);
    expect(free.json()).toMatchObject({ status: 403, upgrade_url: expect.any(String) });
    expect(free.json().type).toMatch(/\/feature-requires-upgrade$/);
  });

  it('refuses a CSV over 10,000 rows with 413 before reading values, telling how to narrow it', async () => {
    // 254 Texas counties × 40 variables = 10,160 rows.
    const vars = svc.stores
      .catalog!.list({ offset: 0, limit: 40 })
      .items.map((v) => v.api_name)
      .join(',');
    const res = await svc.app.inject({ url: `/v1/data?variables=${vars}&geo=county:48*&vintage=2023&format=csv`, headers: as('pro') });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ row_count: 10_160, row_cap: 10_000 });
    expect(res.json().detail).toMatch(/Narrow the request/);
  });

  it('gives 422 with the errors array for a non-integer vintage and for a missing geo', async () => {
    const a = await svc.app.inject({ url: '/v1/data?variables=B19013_001E&geo=state:06&vintage=abc', headers: as('pro') });
    expect(a.statusCode).toBe(422);
    expect(a.json().errors).toEqual([expect.objectContaining({ field: 'query → vintage', type: 'int_parsing' })]);
    const b = await svc.app.inject({ url: '/v1/data?variables=B19013_001E', headers: as('pro') });
    expect(b.statusCode).toBe(422);
    expect(b.json().errors).toEqual([expect.objectContaining({ field: 'query → geo', type: 'missing' })]);
  });

  it.each([
    ['geo=tx', 400, 'invalid-geo-format'],
    ['geo=state:6', 404, 'geography-not-found'],
    ['geo=state:06&dataset=acs9', 400, 'invalid-dataset'],
    ['geo=state:06&vintage=2001', 400, 'invalid-vintage'],
  ])('maps %s to %i %s', async (q, status, slug) => {
    const res = await svc.app.inject({ url: `/v1/data?variables=B19013_001E&${q}`, headers: as('pro') });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().type).toMatch(new RegExp(`/${slug}$`));
  });

  it('charges a wildcard by its expansion against the monthly quota', async () => {
    const before = await svc.app.inject({ url: '/v1/account/usage', headers: as('business') });
    void before;
    const res = await svc.app.inject({ url: '/v1/data?variables=B01003_001E&geo=county:48*&vintage=2023', headers: as('business') });
    expect(res.statusCode).toBe(200);
    expect(res.json().meta.geography_count).toBe(254);
    // RateLimit: "monthly";r=<remaining>;t=<seconds> — 26 units (254 counties / 10, rounded up) were used.
    const quota = 2_000_000;
    const remaining = Number(/r=(\d+)/.exec(String(res.headers.ratelimit))?.[1]);
    expect(quota - remaining).toBe(26);
  });

  it('requires a key on every data route (auth matrix)', async () => {
    await assertAuthMatrix(
      svc.app,
      [
        { url: '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018' },
        { url: '/v1/compare?variables=B19013_001E&geo=state:06;state:01&dataset=acs1&vintage=2018' },
        { url: '/v1/timeseries?variables=B19013_001E&geo=nation:1&dataset=acs1&from=2017&to=2018' },
      ],
      { valid: svc.keys.pro },
    );
  });
});

describe('GET /v1/datasets', () => {
  it('says which vintages this deployment holds values for, per level', async () => {
    const res = await svc.app.inject({ url: '/v1/datasets', headers: as('free') });
    const acs1 = res.json().data.find((d: { dataset: string }) => d.dataset === 'acs1');
    // The shared tree: acs1 nation and state files for 2005-2015, 2017, 2018 (README §1a).
    expect(acs1.loaded_vintages).toEqual({
      nation: [2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 2013, 2014, 2015, 2017, 2018],
      state: [2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 2013, 2014, 2015, 2017, 2018],
    });
    const acs5 = res.json().data.find((d: { dataset: string }) => d.dataset === 'acs5');
    expect(acs5.loaded_vintages).toEqual({ county: [2022, 2023], metro: [2017] });
  });
});

describe('GET /v1/compare and /v1/timeseries', () => {
  it('compares two states with the significance of the difference', async () => {
    const res = await svc.app.inject({
      url: '/v1/compare?variables=B19013_001E&geo=state:06&geo=state:01&dataset=acs1&vintage=2018',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data[1].comparison).toMatchObject({ reference_geo_key: 'state:06', difference: 49861 - 75277, significant: true });
  });

  it('returns the national series with nulls for vintages not published', async () => {
    const res = await svc.app.inject({
      url: '/v1/timeseries?variables=B19013_001E&geo=nation:1&dataset=acs1&from=2017&to=2021',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((c: { vintage: number; estimate: number | null }) => [c.vintage, c.estimate])).toEqual([
      [2017, 60336],
      [2018, 61937],
      [2019, null],
      [2021, null],
    ]);
  });
});
