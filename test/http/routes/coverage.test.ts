// GET /v1/coverage over the test build, real keys and real quotas: its counts are checked against
// the real /v1/timeseries answer for the same variables, dataset and years (the oracle is the
// service itself, not a number written here), its rows against the dataset registry, its price
// against the Free key's usage, and its refusals against what a single place is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetKeys, datasetSpec } from '../../../src/domain/datasets.js';
import { accountUsage } from '../../../src/verbs/account-usage.js';
import { authenticate } from '../../../src/verbs/authenticate.js';
import { HEADLINE_VARIABLES } from '../../../web/profile/layout.js';
import { verbContext } from '../../support/context.js';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const as = (plan: keyof Service['keys']) => ({ 'x-api-key': svc.keys[plan] });

interface Row {
  dataset: string;
  vintage: number;
  with_values: number;
  variables: number;
  loaded: boolean;
}
interface Cell {
  variable: string;
  vintage: number;
  estimate: number | null;
}

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const VARIABLES = HEADLINE_VARIABLES.join(',');

async function coverage(query: string, plan: keyof Service['keys'] = 'free') {
  return svc.app.inject({ url: `/v1/coverage?${query}`, headers: as(plan) });
}

/** Non-null estimates per vintage in the real /v1/timeseries answers, in ranges of at most 16 points. */
async function timeseriesCounts(dataset: string, geo: string): Promise<Map<number, number>> {
  const vintages = datasetSpec(dataset).vintages;
  const counts = new Map<number, number>(vintages.map((v) => [v, 0]));
  for (let i = 0; i < vintages.length; i += 16) {
    const range = vintages.slice(i, i + 16);
    const url = `/v1/timeseries?variables=${VARIABLES}&geo=${encodeURIComponent(geo)}&dataset=${dataset}&from=${range[0]}&to=${range.at(-1)}`;
    const res = await svc.app.inject({ url, headers: as('enterprise') });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const cells = (res.json() as { data: Cell[] }).data;
    expect(new Set(cells.map((c) => c.vintage))).toEqual(new Set(range));
    for (const c of cells) if (c.estimate !== null) counts.set(c.vintage, counts.get(c.vintage)! + 1);
  }
  return counts;
}

async function unitsUsed(key: string): Promise<number> {
  const ctx = verbContext(svc.stores, { plan: null });
  const caller = (await authenticate({ ctx, input: { apiKey: key } })).data;
  const usage = await accountUsage({ ctx: { ...ctx, caller }, input: {} });
  return (usage.data.units as { used: number }).used;
}

describe('GET /v1/coverage', () => {
  for (const geo of ['state:48', 'county:48453']) {
    it(`counts, for ${geo} and the profile's ${HEADLINE_VARIABLES.length} headline variables, what /v1/timeseries serves, in every published vintage`, async () => {
      const res = await coverage(`variables=${VARIABLES}&geo=${encodeURIComponent(geo)}`);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = res.json() as { data: Row[]; meta: Record<string, unknown> };
      // Every published vintage of every dataset, registry order then ascending.
      expect(body.data.map((r) => [r.dataset, r.vintage])).toEqual(
        datasetKeys().flatMap((d) => datasetSpec(d).vintages.map((v) => [d, v])),
      );
      expect(body.meta).toMatchObject({ geo_key: geo, name: expect.any(String), counted: expect.stringMatching(/non-null/) });
      expect(JSON.stringify(body.meta)).not.toMatch(/margin|moe/i);
      let nonZero = 0;
      for (const d of datasetKeys()) {
        const oracle = await timeseriesCounts(d, geo);
        for (const r of body.data.filter((x) => x.dataset === d)) {
          expect(r.with_values, `${d} ${r.vintage}`).toBe(oracle.get(r.vintage));
          expect(r.variables).toBe(HEADLINE_VARIABLES.length);
          if (r.with_values > 0) nonZero++;
        }
      }
      // The test build holds figures for both places: an answer of zeros would not test the count.
      expect(nonZero).toBeGreaterThan(0);
    }, 60_000);
  }

  it('says per row whether the deployment holds the place level in that vintage, as /v1/datasets loaded_vintages', async () => {
    const res = await coverage(`variables=B01003_001E&geo=county:48453`);
    const rows = (res.json() as { data: Row[] }).data;
    const datasets = (await svc.app.inject({ url: '/v1/datasets', headers: as('free') })).json() as {
      data: { dataset: string; loaded_vintages: Record<string, number[]> }[];
    };
    for (const r of rows) {
      const loaded = datasets.data.find((d) => d.dataset === r.dataset)!.loaded_vintages.county ?? [];
      expect(r.loaded, `${r.dataset} ${r.vintage}`).toBe(loaded.includes(r.vintage));
      // No values where nothing is loaded.
      if (!r.loaded) expect(r.with_values).toBe(0);
    }
    expect(rows.some((r) => r.loaded)).toBe(true);
  });

  it('takes one dataset, a name of the level, and a code published in one dataset only', async () => {
    const one = (await coverage(`variables=${VARIABLES}&geo=state:48&dataset=acs1`)).json() as { data: Row[] };
    expect(one.data.map((r) => r.vintage)).toEqual(datasetSpec('acs1').vintages);
    expect(new Set(one.data.map((r) => r.dataset))).toEqual(new Set(['acs1']));
    const byName = await coverage(`variables=B01003_001E&geo=${encodeURIComponent('county:Travis County, TX')}&dataset=acs1`);
    expect(byName.statusCode, byName.body.slice(0, 300)).toBe(200);
    expect(byName.json().meta).toMatchObject({ geo_key: 'county:48453' });
    // B02003 is published in acs1 only (/v1/tables): asked of every dataset, it counts in acs5 without values.
    const tables = (await svc.app.inject({ url: '/v1/tables/B02003', headers: as('free') })).json() as {
      data: { published: Record<string, number[]> };
    };
    expect(tables.data.published.acs5).toEqual([]);
    const both = (await coverage('variables=B01003_001E,B02003_001E&geo=state:48')).json() as {
      data: Row[];
      meta: Record<string, unknown>;
    };
    const alone = (await coverage('variables=B01003_001E&geo=state:48&dataset=acs5')).json() as { data: Row[] };
    expect(both.meta.not_published).toEqual({ acs5: ['B02003_001E'] });
    const acs5 = both.data.filter((r) => r.dataset === 'acs5');
    expect(acs5.map((r) => r.variables)).toEqual(acs5.map(() => 2));
    expect(acs5.map((r) => r.with_values)).toEqual(alone.data.map((r) => r.with_values));
  });

  it('costs a Free key exactly 1 unit per request, whatever the variables and years', async () => {
    const key = svc.keys.free;
    const before = await unitsUsed(key);
    const res = await coverage(`variables=${VARIABLES}&geo=state:48`);
    expect(res.statusCode).toBe(200);
    expect(await unitsUsed(key)).toBe(before + 1);
    await coverage(`variables=${VARIABLES}&geo=county:48453&dataset=acs5`);
    expect(await unitsUsed(key)).toBe(before + 2);
  });

  it('refuses what is not one place, too many or unknown variables and an unknown dataset as problem+json, never 5xx', async () => {
    const fifty1 = Array.from({ length: 51 }, (_, i) => `B01001_${String(i + 1).padStart(3, '0')}E`).join(',');
    const cases: [string, number, RegExp][] = [
      [`variables=B01003_001E&geo=${encodeURIComponent('county:48*')}`, 400, /one place/i],
      [`variables=B01003_001E&geo=${encodeURIComponent('state:48;state:06')}`, 400, /one place/i],
      [`variables=B01003_001E&geo=state:48&geo=state:06`, 400, /one place/i],
      [`variables=B01003_001E&geo=${encodeURIComponent('region(county:48453,county:48491)')}`, 400, /one place/i],
      [`variables=B01003_001E&geo=${encodeURIComponent('county:Texas')}`, 400, /one place/i],
      [`variables=${fifty1}&geo=state:48`, 400, /at most 50/i],
      [`variables=B01003_001E&geo=state:48&dataset=acs3`, 400, /not recognized/i],
      // Unknown variables are 404 variable-not-found on every data route (SPEC: errors table).
      [`variables=not_a_variable_xyz&geo=state:48`, 404, /unknown variable/i],
    ];
    for (const [query, status, detail] of cases) {
      const res = await coverage(query);
      expect(res.statusCode, `${query} → ${res.body.slice(0, 300)}`).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = res.json() as { detail: string };
      expect(body.detail).toMatch(detail);
      expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|node_modules|duckdb|sqlite|stack/i);
    }
  });
});
