// Custom regions on /v1/data (geo=region(…)): sums of members with their MOE, derived percents of
// the summed components, nulls that name the members, one level per region, costs as the members'.
// Numbers are checked against the raw Census API files, read here without the ETL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';
import { readApiFile } from '../../support/census-api-file.js';
import { loadPriceIndex } from '../../../src/store/price-index.js';

let svc: Service;
const as = (plan: keyof Service['keys']) => ({ 'x-api-key': svc.keys[plan] });

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const get = (url: string, plan: keyof Service['keys'] = 'pro') => svc.app.inject({ url, headers: as(plan) });
const raw2022 = () => new Map(readApiFile(2022, 'acs5', 'county', 'B25001').map((r) => [`county:${r.state}${r.county}`, r]));

describe('GET /v1/data with an inline region', () => {
  it('sums three Bay Area counties and gives the MOE √ΣMOE² of the published members', async () => {
    const res = await get('/v1/data?variables=B25001_001E&geo=region(county:06075,county:06001,county:06013)&vintage=2022');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const raw = raw2022();
    const members = ['county:06001', 'county:06013', 'county:06075'].map((k) => raw.get(k)!);
    const sum = members.reduce((s, r) => s + Number(r.B25001_001E), 0);
    const rss = Math.sqrt(members.reduce((s, r) => s + Number(r.B25001_001M) ** 2, 0));
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({
      geo_key: 'region(county:06001,county:06013,county:06075)',
      geo_type: 'region',
      variable: 'B25001_001E',
      estimate: sum,
      estimate_annotation: null,
      moe_annotation: null,
    });
    expect(body.data[0].moe_numeric).toBeCloseTo(rss, 9);
    expect(body.data[0].geo_name).toBe(
      'Region of 3 counties: Alameda County, California; Contra Costa County, California; San Francisco County, California',
    );
    expect(body.meta.geography_count).toBe(1);
    expect(body.meta.regions).toEqual([
      {
        geo_key: 'region(county:06001,county:06013,county:06075)',
        geo_name: body.data[0].geo_name,
        level: 'county',
        member_count: 3,
        members: ['county:06001', 'county:06013', 'county:06075'],
        missing: [],
        caveats: [],
      },
    ]);
    expect(body.meta.notes.join(' ')).toMatch(/approximation/);
    expect(body.meta.notes.join(' ')).toMatch(/Understanding and Using American Community Survey Data.*2020, ch\. 8/);
  });

  it('takes members by name, as any geo, and answers listed geographies beside the region', async () => {
    const res = await get(
      '/v1/data?variables=B25001_001E&geo=county:06075;region(county:Alameda County, CA,county:Contra Costa County, CA)&vintage=2022',
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const raw = raw2022();
    expect(body.data.map((c: { geo_key: string }) => c.geo_key)).toEqual(['county:06075', 'region(county:06001,county:06013)']);
    expect(body.data[1].estimate).toBe(Number(raw.get('county:06001')!.B25001_001E) + Number(raw.get('county:06013')!.B25001_001E));
    expect(body.meta.geography_count).toBe(2);
  });

  it('passes on that the source has no MOEs (2023 county files hold estimates only)', async () => {
    const res = await get('/v1/data?variables=B01003_001E&geo=region(county:06001,county:06013)&vintage=2023');
    const raw = new Map(readApiFile(2023, 'acs5', 'county', 'B01003').map((r) => [`${r.state}${r.county}`, r]));
    expect(res.json().data[0]).toMatchObject({
      estimate: Number(raw.get('06001')!.B01003_001E) + Number(raw.get('06013')!.B01003_001E),
      moe_numeric: null,
      moe_annotation: { code: 'missing_in_source' },
    });
  });

  it('makes the aggregate null when a member has no value, naming the member and its reason', async () => {
    // Connecticut's legacy county 09001 does not exist in ACS 2022 (planning regions from 2022).
    const res = await get('/v1/data?variables=B25001_001E&geo=region(county:06001,county:09001)&vintage=2022');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data[0]).toMatchObject({ estimate: null, moe_numeric: null, estimate_annotation: { code: 'region_member_missing' } });
    expect(body.meta.regions[0].missing).toEqual([
      {
        variable: 'B25001_001E',
        vintage: 2022,
        reason: 'region_member_missing',
        members: [{ geo_key: 'county:09001', reason: 'geography_not_defined' }],
      },
    ]);
  });

  it('computes a percent of a region from its summed numerator and denominator, never from members’ percents', async () => {
    // acs1 2018 states: core_poverty_rate = pct(B17001_002E, B17001_001E).
    const res = await get(
      '/v1/data?variables=core_poverty_rate,B17001_002E,B17001_001E&geo=region(state:41,state:53,state:16)&dataset=acs1&vintage=2018',
    );
    expect(res.statusCode).toBe(200);
    const cells = res.json().data as { variable: string; estimate: number; moe_numeric: number }[];
    const rows = readApiFile(2018, 'acs1', 'state', 'B17001').filter((r) => ['41', '53', '16'].includes(r.state!));
    const sum = (c: string) => rows.reduce((s, r) => s + Number(r[c]), 0);
    const rss = (c: string) => Math.sqrt(rows.reduce((s, r) => s + Number(r[c]) ** 2, 0));
    const [x, y] = [sum('B17001_002E'), sum('B17001_001E')];
    const [mx, my] = [rss('B17001_002M'), rss('B17001_001M')];
    const p = x / y;
    // Proportion MOE (2020 handbook ch. 8): √(MOE_X² − p²·MOE_Y²)/Y, ×100 for a percent.
    const radicand = mx * mx - p * p * my * my;
    const moe = (Math.sqrt(radicand >= 0 ? radicand : mx * mx + p * p * my * my) / y) * 100;
    const byVar = Object.fromEntries(cells.map((c) => [c.variable, c]));
    expect(byVar.B17001_002E!.estimate).toBe(x);
    expect(byVar.B17001_001E!.estimate).toBe(y);
    expect(byVar.core_poverty_rate!.estimate).toBeCloseTo(p * 100, 9);
    expect(byVar.core_poverty_rate!.moe_numeric).toBeCloseTo(moe, 9);
  });

  it('never sums medians: a published median of a region without a known distribution is null, not_additive', async () => {
    // Median gross rent as a percentage of household income: no distribution is tabulated beside it.
    const res = await get('/v1/data?variables=B25071_001E&geo=region(state:41,state:53)&dataset=acs1&vintage=2018');
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0]).toMatchObject({ estimate: null, estimate_annotation: { code: 'not_additive' } });
  });

  it('refuses a region whose members are of two levels with 422, and malformed regions with 400', async () => {
    const mixed = await get('/v1/data?variables=B25001_001E&geo=region(county:06001,state:06)&vintage=2022');
    expect(mixed.statusCode).toBe(422);
    expect(mixed.headers['content-type']).toMatch(/problem\+json/);
    expect(mixed.json().detail).toMatch(/mixes geography levels \(county, state\)/);
    for (const geo of ['region(county:06001', 'region()', 'region(region(county:06001))', 'region:Bad Name']) {
      const res = await get(`/v1/data?variables=B25001_001E&geo=${encodeURIComponent(geo)}&vintage=2022`);
      expect(res.statusCode, geo).toBe(400);
      expect(res.json().type, geo).toMatch(/invalid-geo-format/);
    }
  });

  it('costs what its members cost asked as a plain list', async () => {
    const units = async (geo: string) => {
      const before = await get(`/v1/data?variables=B25001_001E&geo=county:06001&vintage=2022`, 'business');
      const r0 = Number(/r=(\d+)/.exec(String(before.headers.ratelimit))?.[1]);
      const res = await get(`/v1/data?variables=B25001_001E,B01003_001E&geo=${geo}&vintage=2022`, 'business');
      expect(res.statusCode).toBe(200);
      return r0 - Number(/r=(\d+)/.exec(String(res.headers.ratelimit))?.[1]);
    };
    const list = await units('county:06001;county:06013;county:06075');
    const region = await units('region(county:06001,county:06013,county:06075)');
    expect(list).toBe(4);
    expect(region).toBe(list);
    // A wildcard member is priced by its expansion, as the wildcard alone would be.
    expect(await units('region(county:48*)')).toBe(await units('county:48*'));
  });
});

describe('medians of a region, from the distribution', () => {
  const incomeLower = [
    null,
    10_000,
    15_000,
    20_000,
    25_000,
    30_000,
    35_000,
    40_000,
    45_000,
    50_000,
    60_000,
    75_000,
    100_000,
    125_000,
    150_000,
    200_000,
  ];

  /** Computed here from the raw B19001 file: the members' households per interval summed, then interpolated. */
  function expectedMedian(states: string[]): number {
    const rows = readApiFile(2018, 'acs1', 'state', 'B19001').filter((r) => states.includes(r.state!));
    const counts = incomeLower.map((_, i) => rows.reduce((s, r) => s + Number(r[`B19001_${String(i + 2).padStart(3, '0')}E`]), 0));
    const total = counts.reduce((s, c) => s + c, 0);
    let below = 0;
    for (let i = 0; i < counts.length; i++) {
      if (below + counts[i]! >= total / 2) {
        const [a1, a2] = [incomeLower[i]!, incomeLower[i + 1]!];
        return a1 + ((50 - (below / total) * 100) / ((counts[i]! / total) * 100)) * (a2 - a1);
      }
      below += counts[i]!;
    }
    throw new Error('no median');
  }

  it('estimates median household income of a region from summed B19001, never a sum of medians; MOE null with the reason', async () => {
    const res = await get(
      '/v1/data?variables=B19013_001E,core_median_household_income&geo=region(state:41,state:53)&dataset=acs1&vintage=2018',
    );
    expect(res.statusCode).toBe(200);
    const [code, catalog] = res.json().data;
    expect(code.estimate).toBeCloseTo(expectedMedian(['41', '53']), 6);
    expect(code.moe_numeric).toBeNull();
    expect(code.moe_annotation.code).toBe('moe_design_factor_unavailable');
    expect(catalog.estimate).toBe(code.estimate);
    // Far from the sum of the two published medians.
    const published = readApiFile(2018, 'acs1', 'state', 'B19013').filter((r) => ['41', '53'].includes(r.state!));
    const sumOfMedians = published.reduce((s, r) => s + Number(r.B19013_001E), 0);
    expect(code.estimate).toBeLessThan(sumOfMedians / 1.5);
  });

  it("lands near the Bureau's own median for a single state (within the interval holding it)", async () => {
    const res = await get('/v1/data?variables=B19013_001E&geo=region(state:06)&dataset=acs1&vintage=2018');
    const estimate = res.json().data[0].estimate as number;
    // California 2018 acs1: published median 75,277; the 16-interval interpolation lies in $75,000–$99,999.
    expect(estimate).toBeCloseTo(expectedMedian(['06']), 6);
    expect(estimate).toBeGreaterThanOrEqual(75_000);
    expect(estimate).toBeLessThan(100_000);
    expect(Math.abs(estimate - 75_277) / 75_277).toBeLessThan(0.05);
  });

  // Median age (B01002) from B01001's 23 age intervals, each the sum of its male and female lines:
  // lower bounds 0, 5, 10, 15, 18, 20, 21, 22, 25, …, 85 ("85 years and over" open).
  const ageLower = [0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55, 60, 62, 65, 67, 70, 75, 80, 85];
  function expectedMedianAge(states: string[]): number {
    const rows = readApiFile(2018, 'acs1', 'state', 'B01001').filter((r) => states.includes(r.state!));
    const line = (n: number) => `B01001_${String(n).padStart(3, '0')}E`;
    const counts = ageLower.map((_, i) => rows.reduce((s, r) => s + Number(r[line(i + 3)]) + Number(r[line(i + 27)]), 0));
    const total = counts.reduce((s, c) => s + c, 0);
    let below = 0;
    for (let i = 0; i < counts.length; i++) {
      if (below + counts[i]! >= total / 2) return ageLower[i]! + ((total / 2 - below) / counts[i]!) * (ageLower[i + 1]! - ageLower[i]!);
      below += counts[i]!;
    }
    throw new Error('no median');
  }

  it('estimates median age of a region from summed B01001 (both sexes), near the published medians', async () => {
    const res = await get('/v1/data?variables=B01002_001E&geo=region(state:41,state:53);region(state:06)&dataset=acs1&vintage=2018');
    expect(res.statusCode).toBe(200);
    const [pnw, ca] = res.json().data;
    expect(pnw.estimate).toBeCloseTo(expectedMedianAge(['41', '53']), 9);
    expect(pnw.moe_numeric).toBeNull();
    expect(pnw.moe_annotation.code).toBe('moe_design_factor_unavailable');
    // A region of one state lands within a year of the Bureau's own median (computed from single
    // years of age, which the table does not publish).
    const published = Number(readApiFile(2018, 'acs1', 'state', 'B01002').find((r) => r.state === '06')!.B01002_001E);
    expect(ca.estimate).toBeCloseTo(expectedMedianAge(['06']), 9);
    expect(Math.abs(ca.estimate - published)).toBeLessThan(1);
  });
});

describe('regions in compare and timeseries', () => {
  it('compares a region with a county: the difference, its MOE from both MOEs, and the verdict', async () => {
    const res = await get('/v1/compare?variables=B25001_001E&geo=county:06075;region(county:06001,county:06013)&vintage=2022');
    expect(res.statusCode).toBe(200);
    const [sf, region] = res.json().data;
    const raw = raw2022();
    const [a, c, s] = ['county:06001', 'county:06013', 'county:06075'].map((k) => raw.get(k)!);
    const regionMoe = Math.sqrt(Number(a!.B25001_001M) ** 2 + Number(c!.B25001_001M) ** 2);
    expect(sf.geo_key).toBe('county:06075');
    expect(region).toMatchObject({ geo_key: 'region(county:06001,county:06013)', comparison: { reference_geo_key: 'county:06075' } });
    expect(region.comparison.difference).toBe(Number(a!.B25001_001E) + Number(c!.B25001_001E) - Number(s!.B25001_001E));
    expect(region.comparison.difference_moe).toBeCloseTo(Math.sqrt(regionMoe ** 2 + Number(s!.B25001_001M) ** 2), 9);
    expect(region.comparison.significant).toBe(Math.abs(region.comparison.difference) > region.comparison.difference_moe);
    expect(res.json().meta.regions[0].member_count).toBe(2);
  });

  it('compares two regions with each other', async () => {
    const res = await get(
      '/v1/compare?variables=B25001_001E&geo=region(county:06001,county:06013);region(county:06075,county:06081)&vintage=2022',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((c: { geo_key: string }) => c.geo_key)).toEqual([
      'region(county:06001,county:06013)',
      'region(county:06075,county:06081)',
    ]);
  });

  it('answers a region in each vintage of a series, null where a member is not defined, naming it', async () => {
    // Connecticut's planning region 09110 is a county equivalent from ACS 2022 on.
    const res = await get('/v1/timeseries?variables=B25001_001E&geo=region(county:06001,county:09110)&from=2021&to=2023');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((c: { vintage: number }) => c.vintage)).toEqual([2021, 2022, 2023]);
    const b2022 = new Map(readApiFile(2022, 'acs5', 'county', 'B25001').map((r) => [`${r.state}${r.county}`, Number(r.B25001_001E)]));
    const b2023 = new Map(readApiFile(2023, 'acs5', 'county', 'B25001').map((r) => [`${r.state}${r.county}`, Number(r.B25001_001E)]));
    expect(body.data[1].estimate).toBe(b2022.get('06001')! + b2022.get('09110')!);
    expect(body.data[2].estimate).toBe(b2023.get('06001')! + b2023.get('09110')!);
    expect(body.data[0]).toMatchObject({ estimate: null, estimate_annotation: { code: 'region_member_missing' } });
    expect(body.meta.regions[0].missing).toEqual([
      {
        variable: 'B25001_001E',
        vintage: 2021,
        reason: 'region_member_missing',
        members: [
          { geo_key: 'county:06001', reason: 'no_data_loaded' },
          { geo_key: 'county:09110', reason: 'geography_not_defined' },
        ],
      },
    ]);
  });
});

describe('regions in every format', () => {
  it('compact and CSV carry the region row as the long format does', async () => {
    const q = '/v1/data?variables=B25001_001E,B01003_001E&geo=county:06075;region(county:06001,county:06013)&vintage=2022';
    const long = (await get(q)).json();
    const compact = (await get(`${q}&format=compact`)).json();
    expect(compact.data.geographies.map((g: { geo_key: string; geo_type: string }) => [g.geo_key, g.geo_type])).toEqual([
      ['county:06075', 'county'],
      ['region(county:06001,county:06013)', 'region'],
    ]);
    expect(compact.data.estimate[1]).toEqual([long.data[2].estimate, long.data[3].estimate]);
    expect(compact.data.moe_numeric[1]).toEqual([long.data[2].moe_numeric, null]);
    expect(compact.data.moe_annotation[1]).toEqual([null, 'missing_in_source']);
    const csv = await get(`${q}&format=csv`);
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[3]).toMatch(new RegExp(`^"region\\(county:06001,county:06013\\)",.*,region,B25001_001E,.*,${long.data[2].estimate},`));
  });
});

describe('regions with dollars= and compare_to=', () => {
  // Aggregate household income (B19025, dollars, additive) of Oregon + Washington: summed per vintage
  // with √ΣMOE², restated in 2018 dollars by the R-CPI-U-RS factor (estimate and MOE alike), then
  // compared with 2012 by the handbook's difference, its MOE √(MOE₁² + MOE₂²) and the 90% test.
  // Expected values are computed here from the raw API files and catalog/cpi-u-rs.csv.
  const cpi = loadPriceIndex().index!;
  function regionIn(vintage: number): { e: number; m: number } {
    const rows = readApiFile(vintage, 'acs1', 'state', 'B19025').filter((r) => ['41', '53'].includes(r.state!));
    const f = cpi.annual.get(2018)! / cpi.annual.get(vintage)!;
    const e = rows.reduce((s, r) => s + Number(r.B19025_001E), 0);
    const m = Math.sqrt(rows.reduce((s, r) => s + Number(r.B19025_001M) ** 2, 0));
    return { e: e * f, m: m * f };
  }

  it('sums, restates in constant dollars, then tests the change from the base year', async () => {
    const res = await get(
      `/v1/timeseries?variables=B19025_001E&geo=${encodeURIComponent('region(state:41,state:53)')}&dataset=acs1&from=2018&to=2018&compare_to=2012&dollars=2018`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const [cell] = res.json().data;
    const base = regionIn(2012);
    const later = regionIn(2018);
    const diffMoe = Math.sqrt(base.m ** 2 + later.m ** 2);
    expect(cell.geo_key).toBe('region(state:41,state:53)');
    expect(cell.estimate).toBeCloseTo(later.e, 0);
    expect(cell.moe_numeric).toBeCloseTo(later.m, 3);
    expect(cell.change.base_estimate).toBeCloseTo(base.e, 0);
    expect(cell.change.base_moe).toBeCloseTo(base.m, 3);
    expect(cell.change.difference).toBeCloseTo(later.e - base.e, 0);
    expect(cell.change.difference_moe).toBeCloseTo(diffMoe, 3);
    expect(cell.change.significant).toBe(Math.abs(later.e - base.e) > diffMoe);
    expect(cell.change.not_tested_reason).toBeNull();
    expect(res.json().meta.dollars.target_year).toBe(2018);
  });

  it("a region's median (no MOE) gets its change but no verdict, with the reason", async () => {
    const res = await get(
      `/v1/timeseries?variables=B19013_001E&geo=${encodeURIComponent('region(state:41,state:53)')}&dataset=acs1&from=2018&to=2018&compare_to=2012&dollars=2018`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const [cell] = res.json().data;
    expect(cell.estimate).toEqual(expect.any(Number));
    expect(cell.change.difference).toBeCloseTo(cell.estimate - cell.change.base_estimate, 6);
    expect(cell.change.significant).toBeNull();
    expect(cell.change.not_tested_reason).toBe('moe_design_factor_unavailable');
  });
});
