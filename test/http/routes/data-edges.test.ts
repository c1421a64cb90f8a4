// Issue 10 regressions at the data's edges, through HTTP on the real build: requests a new user
// makes that used to answer 500 or 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const get = (url: string, plan: keyof Service['keys'] = 'enterprise') => svc.app.inject({ url, headers: { 'x-api-key': svc.keys[plan] } });

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

describe('a request in which no requested cell has a stored value', () => {
  it('core_total_population for California acs1 2018 is null no_data_loaded, not 500 (its table is not loaded)', async () => {
    const res = await get('/v1/data?variables=core_total_population&geo=state:06&dataset=acs1&vintage=2018');
    expect(res.statusCode).toBe(200);
    const [cell] = res.json().data;
    expect(cell).toMatchObject({ estimate: null, moe_numeric: null, estimate_annotation: { code: 'no_data_loaded' } });
  });

  it('B19013E_001E for Ohio acs1 2005 (a row the Bureau published empty) is null not_published, not 500', async () => {
    const res = await get('/v1/data?variables=B19013E_001E&geo=state:39&dataset=acs1&vintage=2005');
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0]).toMatchObject({ estimate: null, estimate_annotation: { code: 'not_published' } });
  });

  it.each([
    ['compare', '/v1/compare?variables=core_total_population&geo=state:06;state:48&dataset=acs1&vintage=2018'],
    ['timeseries', '/v1/timeseries?variables=core_total_population&geo=state:06&dataset=acs1&from=2017&to=2018'],
    ['csv', '/v1/data?variables=core_total_population&geo=state:06&dataset=acs1&vintage=2018&format=csv'],
  ])('%s answers 200 with nulls too', async (_name, url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
  });
});

describe('bare nation and us', () => {
  it.each(['nation', 'us'])('geo=%s is the nation', async (geo) => {
    const res = await get(`/v1/data?variables=B19013_001E&geo=${geo}&dataset=acs1&vintage=2018`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0]).toMatchObject({ geo_key: 'nation:1', estimate: 61937, moe_numeric: 94 });
  });
});

describe('every catalog variable against one geography of every loaded partition', () => {
  it('never answers 5xx, and every null carries a reason', async () => {
    const obs = svc.stores.observations!;
    const names = svc.stores.catalog!.list({ offset: 0, limit: 1000 }).items.map((v) => v.api_name);
    expect(names).toHaveLength(392);
    const sample: Record<string, string> = { nation: 'nation:1', state: 'state:06', county: 'county:48453', metro: 'metro:12420' };
    const partitions = [...obs.partitions].map((p) => p.split('/'));
    expect(partitions.length).toBeGreaterThan(25);
    const failures: string[] = [];
    for (const [dataset, vintage, level] of partitions) {
      for (let i = 0; i < names.length; i += 50) {
        const vars = names.slice(i, i + 50).join(',');
        const res = await get(`/v1/data?variables=${vars}&geo=${sample[level!]}&dataset=${dataset}&vintage=${vintage}`);
        if (res.statusCode !== 200) {
          failures.push(`${dataset} ${vintage} ${level} [${i}]: ${res.statusCode}`);
          continue;
        }
        for (const c of res.json().data)
          if (c.estimate === null && !c.estimate_annotation) failures.push(`${dataset} ${vintage} ${c.variable}: null without reason`);
      }
    }
    expect(failures).toEqual([]);
  }, 240_000);
});

describe('every published census code is addressable', () => {
  it("B07009_025E for Oregon acs1 2018 is 88010 ± 5868, with that vintage's label, universe and table title (regression: 404)", async () => {
    const res = await get('/v1/data?variables=B07009_025E&geo=state:41&dataset=acs1&vintage=2018');
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0]).toMatchObject({
      variable: 'B07009_025E',
      census_code: 'B07009_025E',
      estimate: 88010,
      moe_numeric: 5868,
      label: 'Estimate!!Total!!Moved from different state',
      unit: 'count',
      table_id: 'B07009',
      universe: 'Population 25 Years and Over in the United States',
      label_changed: null,
    });
    expect(res.json().data[0].table_title).toMatch(/^Geographical Mobility in the Past Year by Educational Attainment/);
  });

  it('mixes codes of B19313H and C15010D with a catalog api_name; aggregates keep every digit', async () => {
    const res = await get(
      '/v1/data?variables=B19313H_001E,C15010D_003E,core_median_household_income&geo=state:41&dataset=acs1&vintage=2018',
    );
    expect(res.statusCode).toBe(200);
    const byVar = Object.fromEntries(res.json().data.map((c: { variable: string }) => [c.variable, c]));
    expect(byVar.B19313H_001E).toMatchObject({ estimate: 117746191500, moe_numeric: 1574327883, unit: 'dollar' });
    expect(byVar.C15010D_003E.label).toMatch(/Science and Engineering Related Fields/);
    expect(byVar.core_median_household_income.table_id).toBeUndefined();
  });

  it('C16002_004E asked by code for 2005 is the published value, flagged label_changed (regression: null not_comparable)', async () => {
    const res = await get('/v1/data?variables=C16002_004E&geo=nation&dataset=acs1&vintage=2005');
    const [cell] = res.json().data;
    expect(cell).toMatchObject({ estimate: 3419420, moe_numeric: 28599, label: 'Estimate!!Total!!Spanish!!Linguistically isolated' });
    expect(cell.label_changed).toMatchObject({ code: 'label_changed', label_differs: true, latest_vintage: 2024 });
    expect(cell.label_changed.latest_label).toMatch(/Limited English speaking household/);
  });

  it('a code never published in that vintage is 404 naming the vintages that have it', async () => {
    const res = await get('/v1/data?variables=B28002_001E&geo=nation&dataset=acs1&vintage=2010');
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toMatch(/\/variable-not-found$/);
    expect(res.json().detail).toMatch(/not published in acs1 2010\. It was published in acs1 2013, /);
  });

  it('a code published in no vintage at all is 404', async () => {
    const res = await get('/v1/data?variables=B99999_001E&geo=nation&dataset=acs1&vintage=2018');
    expect(res.statusCode).toBe(404);
  });

  it('a whole table with B01001* gives its 49 lines in line order', async () => {
    const res = await get('/v1/data?variables=B01001*&geo=state:06&dataset=acs1&vintage=2018');
    expect(res.statusCode).toBe(200);
    const codes = res.json().data.map((c: { variable: string }) => c.variable);
    expect(codes).toHaveLength(49);
    expect(codes[0]).toBe('B01001_001E');
    expect(codes[48]).toBe('B01001_049E');
    expect(res.json().meta.variable_count).toBe(49);
  });

  it('a timeseries over a raw code shows every published vintage and flags the one whose wording differs', async () => {
    const res = await get('/v1/timeseries?variables=C16002_004E&geo=nation&dataset=acs1&from=2005&to=2018');
    expect(res.statusCode).toBe(200);
    const byYear = Object.fromEntries(res.json().data.map((c: { vintage: number }) => [c.vintage, c]));
    expect(byYear[2005].label_changed?.code).toBe('label_changed');
    expect(byYear[2018].estimate).toEqual(expect.any(Number));
    expect(byYear[2018].label_changed).toBeNull();
  });
});

describe('six-digit tables (the B99 allocation tables)', () => {
  it('B992701_003E for the nation, acs1 2012, is the published number, and the table is loaded there', async () => {
    // ../shared/census/api/2012/acs/acs1/nation/B992701.json.gz: B992701_003E = "277508642".
    const res = await get('/v1/data?variables=B992701_003E,B992701_001E&geo=nation&dataset=acs1&vintage=2012');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((c: { estimate: number }) => c.estimate)).toEqual([277508642, 308896460]);
    const table = await get('/v1/tables/B992701');
    expect(table.statusCode).toBe(200);
    expect(table.json().data.loaded.acs1.nation).toContain(2012);
  });

  it('a whole six-digit table is asked as B992701*', async () => {
    const res = await get('/v1/data?variables=B992701*&geo=nation&dataset=acs1&vintage=2012');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toHaveLength(3);
  });
});
