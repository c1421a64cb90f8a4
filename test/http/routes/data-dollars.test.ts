// dollars= on /v1/data, /v1/compare, /v1/timeseries and compare_to= on /v1/timeseries, through
// HTTP on the real test build. Expected values come from the Bureau's published API files in
// ../shared (read here) and the R-CPI-U-RS file in catalog/ (read through its loader), computed
// by the handbook's formulas in this test, independently of the service's code path.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPriceIndex } from '../../../src/store/price-index.js';
import { SHARED_CENSUS } from '../../support/paths.js';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const as = (plan: keyof Service['keys']) => ({ 'x-api-key': svc.keys[plan] });
const cpi = loadPriceIndex().index!;
const factor = (from: number, to: number) => cpi.annual.get(to)! / cpi.annual.get(from)!;

/** The published estimate and MOE of one code, from the Census Data API body in ../shared. */
function published(vintage: number, dataset: string, level: string, table: string, code: string, row = 1) {
  const file = path.join(SHARED_CENSUS, 'api', String(vintage), 'acs', dataset, level, `${table}.json.gz`);
  const rows = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8')) as (string | null)[][];
  const head = rows[0]!;
  const r = rows[row]!;
  return { e: Number(r[head.indexOf(`${code}E`)]), m: Number(r[head.indexOf(`${code}M`)]) };
}
const californiaRow = (vintage: number, table: string) => {
  const file = path.join(SHARED_CENSUS, 'api', String(vintage), 'acs', 'acs1', 'state', `${table}.json.gz`);
  const rows = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8')) as (string | null)[][];
  return rows.findIndex((r) => r.at(-1) === '06');
};

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

describe('dollars= on /v1/data', () => {
  it("restates California's 2018 median household income in 2023 dollars, MOE by the same factor, and leaves a count as published", async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=B19013_001E,B01001_001E&geo=state:06&dataset=acs1&vintage=2018&dollars=2023',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const income = published(2018, 'acs1', 'state', 'B19013', 'B19013_001', californiaRow(2018, 'B19013'));
    const pop = published(2018, 'acs1', 'state', 'B01001', 'B01001_001', californiaRow(2018, 'B01001'));
    expect(income).toEqual({ e: 75277, m: 317 });
    const f = factor(2018, 2023);
    const [inc, people] = body.data;
    expect(inc.variable).toBe('B19013_001E');
    expect(inc.estimate).toBeCloseTo(income.e * f, 6);
    expect(inc.moe_numeric).toBeCloseTo(income.m * f, 6);
    expect(inc.dollars).toEqual({
      adjusted: true,
      factor: f,
      source_year: 2018,
      target_year: 2023,
      source_index: cpi.annual.get(2018),
      target_index: cpi.annual.get(2023),
      index: 'R-CPI-U-RS, All items',
    });
    expect(people.variable).toBe('B01001_001E');
    expect(people.estimate).toBe(pop.e);
    expect(people.dollars).toEqual({ adjusted: false, reason: 'not_dollars' });
    expect(body.meta.dollars).toMatchObject({
      target_year: 2023,
      index: 'R-CPI-U-RS, All items',
      publisher: 'U.S. Bureau of Labor Statistics',
      base: 'December 1977 = 100',
      release: cpi.release,
      years: { first: cpi.first, last: cpi.last },
      source_url: 'https://www.bls.gov/cpi/research-series/r-cpi-u-rs-allitems.xlsx',
    });
  });

  it('restates a catalog dollar variable too, and without dollars= nothing changes', async () => {
    const url = '/v1/data?variables=core_median_household_income&geo=state:06&dataset=acs1&vintage=2018';
    const plain = (await svc.app.inject({ url, headers: as('free') })).json();
    expect(plain.data[0]).toMatchObject({ estimate: 75277, moe_numeric: 317, unit: 'dollar' });
    expect(plain.data[0].dollars).toBeUndefined();
    expect(plain.meta.dollars).toBeUndefined();
    const restated = (await svc.app.inject({ url: `${url}&dollars=2010`, headers: as('free') })).json();
    expect(restated.data[0].estimate).toBeCloseTo(75277 * factor(2018, 2010), 6);
    expect(restated.data[0].dollars).toMatchObject({ adjusted: true, source_year: 2018, target_year: 2010 });
  });

  it('a year outside the index is a 422 naming the years held, charged nothing; a non-year is refused as vintage=abc is', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018&dollars=1950',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const problem = res.json();
    expect(problem.detail).toContain(`${cpi.first}–${cpi.last}`);
    expect(problem.errors[0].field).toMatch(/dollars/);
    expect(problem.available_years).toEqual({ first: cpi.first, last: cpi.last });
    // Refused before charging: two refusals leave the monthly remainder where it was, a real answer lowers it.
    const url = '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018';
    const remaining = async (u: string) =>
      Number(/r=(\d+)/.exec(String((await svc.app.inject({ url: u, headers: as('pro') })).headers.ratelimit))?.[1]);
    const r1 = await remaining(`${url}&dollars=1950`);
    const r2 = await remaining(`${url}&dollars=1950`);
    const r3 = await remaining(`${url}&dollars=2020`);
    expect(Number.isFinite(r1)).toBe(true);
    expect(r2).toBe(r1);
    expect(r3).toBeLessThan(r2);
    const bad = await svc.app.inject({ url: '/v1/data?variables=B19013_001E&geo=state:06&dollars=abc', headers: as('free') });
    const badVintage = await svc.app.inject({ url: '/v1/data?variables=B19013_001E&geo=state:06&vintage=abc', headers: as('free') });
    expect(bad.statusCode).toBe(badVintage.statusCode);
    expect(bad.json().errors[0]).toMatchObject({ field: expect.stringMatching(/dollars/), type: 'int_parsing' });
  });

  it('format=compact with dollars= is refused with 422 (a table has no place for each cell’s adjustment)', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018&dollars=2023&format=compact',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toMatch(/format=compact/);
  });
});

describe('dollars= on /v1/compare', () => {
  it('compares two states in 2023 dollars: the difference scales, the verdict does not change', async () => {
    const res = await svc.app.inject({
      url: '/v1/compare?variables=B19013_001E&geo=state:06&geo=state:01&dataset=acs1&vintage=2018&dollars=2023',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    const f = factor(2018, 2023);
    const [ca, al] = res.json().data;
    expect(ca.dollars.factor).toBe(f);
    expect(al.comparison.difference).toBeCloseTo((49861 - 75277) * f, 6);
    expect(al.comparison.difference_moe).toBeCloseTo(Math.hypot(ca.moe_numeric, al.moe_numeric), 9);
    expect(al.comparison.significant).toBe(true);
    expect(res.json().meta.dollars.target_year).toBe(2023);
  });
});

describe('compare_to= on /v1/compare (the time form)', () => {
  it('compares one geography with itself in another vintage, the same change timeseries gives', async () => {
    const q = 'variables=B19013_001E&geo=nation:1&dataset=acs1&compare_to=2012&dollars=2018';
    const res = await svc.app.inject({ url: `/v1/compare?${q}&vintage=2018`, headers: as('free') });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(1);
    expect(body.meta.compare_to).toBe(2012);
    const series = (await svc.app.inject({ url: `/v1/timeseries?${q}&from=2018&to=2018`, headers: as('free') })).json();
    expect(body.data[0].change).toEqual(series.data[0].change);
    expect(body.data[0].change.significant).toEqual(expect.any(Boolean));
    const base = published(2012, 'acs1', 'nation', 'B19013', 'B19013_001');
    expect(body.data[0].change.base_estimate).toBeCloseTo(base.e * factor(2012, 2018), 6);
  });

  it('without compare_to, one geography is still refused', async () => {
    const res = await svc.app.inject({
      url: '/v1/compare?variables=B19013_001E&geo=nation:1&dataset=acs1&vintage=2018',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('compare_to= on /v1/timeseries', () => {
  it('gives each point its change from 2012 in constant 2018 dollars, with the handbook MOEs and the 90% test', async () => {
    const res = await svc.app.inject({
      url: '/v1/timeseries?variables=B19013_001E&geo=nation:1&dataset=acs1&from=2012&to=2018&compare_to=2012&dollars=2018',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta.compare_to).toBe(2012);
    expect(body.meta.dollars.target_year).toBe(2018);
    const base = published(2012, 'acs1', 'nation', 'B19013', 'B19013_001');
    const fb = factor(2012, 2018);
    const cells = body.data as { vintage: number; estimate: number | null; estimate_annotation: { code: string } | null; change: any }[];
    expect(cells.map((c) => c.vintage)).toEqual([2012, 2013, 2014, 2015, 2016, 2017, 2018]);
    expect(cells[0]!.change).toBeNull();
    let tested = 0;
    for (const c of cells.slice(1)) {
      if (c.estimate === null) {
        // 2016 is not in the test build: no verdict, and the reason is the value's own annotation.
        expect(c.change).toMatchObject({ significant: null, difference: null, not_tested_reason: c.estimate_annotation!.code });
        continue;
      }
      const p = published(c.vintage, 'acs1', 'nation', 'B19013', 'B19013_001');
      const f = factor(c.vintage, 2018);
      const x1 = base.e * fb;
      const m1 = base.m * fb;
      const x2 = p.e * f;
      const m2 = p.m * f;
      const diffMoe = Math.sqrt(m1 ** 2 + m2 ** 2);
      expect(c.estimate).toBeCloseTo(x2, 6);
      expect(c.change.base_estimate).toBeCloseTo(x1, 6);
      expect(c.change.difference).toBeCloseTo(x2 - x1, 6);
      expect(c.change.difference_moe).toBeCloseTo(diffMoe, 6);
      expect(c.change.percent_change).toBeCloseTo((100 * (x2 - x1)) / x1, 9);
      expect(c.change.percent_change_moe).toBeCloseTo((100 * Math.sqrt(m2 ** 2 + (x2 / x1) ** 2 * m1 ** 2)) / x1, 9);
      expect(c.change.significant).toBe(Math.abs(x2 - x1) / (diffMoe / 1.645) > 1.645);
      expect(c.change.not_tested_reason).toBeNull();
      tested++;
    }
    expect(tested).toBe(5);
  });

  it('a base year outside from..to is read and charged but not listed; without dollars= the hint says dollars are nominal', async () => {
    const res = await svc.app.inject({
      url: '/v1/timeseries?variables=B19013_001E&geo=nation:1&dataset=acs1&from=2017&to=2018&compare_to=2012',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((c: { vintage: number }) => c.vintage)).toEqual([2017, 2018]);
    const base = published(2012, 'acs1', 'nation', 'B19013', 'B19013_001');
    const y2018 = published(2018, 'acs1', 'nation', 'B19013', 'B19013_001');
    expect(body.data[1].change).toMatchObject({ base_vintage: 2012, base_estimate: base.e, difference: y2018.e - base.e });
    expect(body.meta.hint).toMatch(/dollars=YYYY/);
  });

  it('overlapping 5-year periods get no verdict, with the reason; the difference is still given', async () => {
    const res = await svc.app.inject({
      url: '/v1/timeseries?variables=B25001_001E&geo=county:06001&dataset=acs5&from=2022&to=2023&compare_to=2022',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    const [y2022, y2023] = res.json().data;
    expect(y2022.change).toBeNull();
    expect(y2023.change).toMatchObject({
      significant: null,
      difference_moe: null,
      difference: y2023.estimate - y2022.estimate,
      not_tested_reason: 'overlapping_periods',
    });
    expect(y2023.change.not_tested_detail).toContain('2018–2022 and 2019–2023 share 4 years');
  });

  it('a vintage the catalog marks not comparable gets no verdict, with that reason', async () => {
    // economics_occupation_service: acs1 2005–2009 used a different occupation coding (catalog).
    const res = await svc.app.inject({
      url: '/v1/timeseries?variables=economics_occupation_service&geo=nation:1&dataset=acs1&from=2009&to=2012&compare_to=2009',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(200);
    const [base, ...later] = res.json().data;
    expect(base.estimate_annotation.code).toBe('not_comparable');
    expect(later).toHaveLength(3);
    for (const c of later) expect(c.change).toMatchObject({ significant: null, difference: null, not_tested_reason: 'not_comparable' });
  });

  it('CSV carries the adjustment and the change as columns', async () => {
    const res = await svc.app.inject({
      url: '/v1/timeseries?variables=B19013_001E&geo=nation:1&dataset=acs1&from=2017&to=2018&compare_to=2017&dollars=2018&format=csv',
      headers: as('pro'),
    });
    expect(res.statusCode).toBe(200);
    const [head, y2017, y2018] = res.body.trim().split('\n');
    const columns = head!.split(',');
    expect(columns.slice(-13)).toEqual([
      'dollars_factor',
      'dollars_source_year',
      'dollars_target_year',
      'dollars_note',
      'change_base_vintage',
      'change_base_estimate',
      'change_base_moe',
      'change_difference',
      'change_difference_moe',
      'change_percent_change',
      'change_percent_change_moe',
      'change_significant',
      'change_not_tested_reason',
    ]);
    const json = (
      await svc.app.inject({
        url: '/v1/timeseries?variables=B19013_001E&geo=nation:1&dataset=acs1&from=2017&to=2018&compare_to=2017&dollars=2018',
        headers: as('pro'),
      })
    ).json().data;
    const col = (line: string, name: string) => line.split(',')[columns.indexOf(name)];
    expect(Number(col(y2017!, 'dollars_factor'))).toBe(json[0].dollars.factor);
    expect(col(y2017!, 'change_base_vintage')).toBe('');
    expect(Number(col(y2018!, 'change_difference'))).toBe(json[1].change.difference);
    expect(col(y2018!, 'change_significant')).toBe(String(json[1].change.significant));
  });

  it('a base vintage the dataset does not have is a 400', async () => {
    const res = await svc.app.inject({
      url: '/v1/timeseries?variables=B19013_001E&geo=nation:1&dataset=acs1&from=2017&to=2018&compare_to=1999',
      headers: as('free'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().status).toBe(400);
  });
});
