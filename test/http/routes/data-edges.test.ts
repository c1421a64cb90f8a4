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
        for (const c of res.json().data) if (c.estimate === null && !c.estimate_annotation) failures.push(`${dataset} ${vintage} ${c.variable}: null without reason`);
      }
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
