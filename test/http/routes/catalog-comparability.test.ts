// Catalog comparability judgements as a user meets them over HTTP (issue 10): vintages the catalog
// used to withhold by mistake now answer with the Bureau's published numbers.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';
import { SHARED_CENSUS } from '../../support/paths.js';

let svc: Service;
const headers = () => ({ 'x-api-key': svc.keys.pro });

beforeAll(async () => {
  svc = await startService();
}, 600_000);
afterAll(() => svc?.close());

/** A state's (or the nation's) row of a raw acs1 file, as published. */
function rawRow(vintage: number, level: 'nation' | 'state', group: string, geo: string): Record<string, string | null> {
  const rows = JSON.parse(
    gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, `api/${vintage}/acs/acs1/${level}/${group}.json.gz`))).toString(),
  ) as (string | null)[][];
  const head = rows[0]!;
  const row = rows.slice(1).find((r) => r[head.indexOf(level === 'nation' ? 'us' : 'state')] === geo)!;
  return Object.fromEntries(head.map((h, i) => [h, row[i]!]));
}

type Cell = { variable: string; census_code: string | null; estimate: number | null; moe_numeric: number | null; vintage: number };

describe('catalog comparability over HTTP', () => {
  it('2008 B25010: average household size of owners and renters in acs1 2008 is served, 2.70 and 2.44 for the nation', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=housing_average_household_size_owner,housing_average_household_size_renter&geo=nation:1&dataset=acs1&vintage=2008',
      headers: headers(),
    });
    expect(res.statusCode).toBe(200);
    const raw = rawRow(2008, 'nation', 'B25010', '1');
    const byVar = new Map((res.json().data as Cell[]).map((c) => [c.variable, c]));
    expect(byVar.get('housing_average_household_size_owner')).toMatchObject({
      census_code: 'B25010_002E',
      estimate: 2.7,
      moe_numeric: Number(raw.B25010_002M),
    });
    expect(byVar.get('housing_average_household_size_renter')).toMatchObject({
      census_code: 'B25010_003E',
      estimate: 2.44,
      moe_numeric: Number(raw.B25010_003M),
    });
    expect(raw.B25010_002E).toBe('2.70');
  });

  it('uninsured 2009–2016: core_uninsured_rate and health_people_uninsured have values for a 2010 state', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=core_uninsured_rate,health_people_uninsured&geo=state:06&dataset=acs1&vintage=2010',
      headers: headers(),
    });
    expect(res.statusCode).toBe(200);
    const raw = rawRow(2010, 'state', 'B27010', '06');
    const uninsured = ['017', '033', '050', '066'].reduce((a, l) => a + Number(raw[`B27010_${l}E`]), 0);
    const byVar = new Map((res.json().data as Cell[]).map((c) => [c.variable, c]));
    expect(byVar.get('health_people_uninsured')!.estimate).toBe(uninsured);
    expect(byVar.get('core_uninsured_rate')!.estimate).toBeCloseTo((100 * uninsured) / Number(raw.B27010_001E), 1);
    expect(byVar.get('core_uninsured_rate')!.moe_numeric).toEqual(expect.any(Number));
  });

  it('Food Stamps/SNAP consistency: the 2008 SNAP-with-disability share is served like the other SNAP variables', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=health_households_snap_with_disability,health_households_snap_with_disability_count,economics_households_with_snap&geo=nation:1&dataset=acs1&vintage=2008',
      headers: headers(),
    });
    expect(res.statusCode).toBe(200);
    const raw = rawRow(2008, 'nation', 'B22010', '1');
    const byVar = new Map((res.json().data as Cell[]).map((c) => [c.variable, c]));
    expect(byVar.get('health_households_snap_with_disability_count')!.estimate).toBe(Number(raw.B22010_003E));
    expect(byVar.get('health_households_snap_with_disability')!.estimate).toBeCloseTo(
      (100 * Number(raw.B22010_003E)) / Number(raw.B22010_002E),
      1,
    );
    expect(byVar.get('economics_households_with_snap')!.estimate).toBe(Number(rawRow(2008, 'nation', 'B22003', '1').B22003_002E));
  });

  it('a vintage still withheld answers null with its reason, not another number', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=health_uninsured_under_19&geo=state:06&dataset=acs1&vintage=2010',
      headers: headers(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0]).toMatchObject({ estimate: null });
    expect(JSON.stringify(res.json().data[0])).toMatch(/not_comparable/);
  });
});
