// Fidelity of custom regions: 200 random regions of 2–20 counties (seeded), in ACS 5-year 2022 and
// 2023 (the county values the sources hold), asked over HTTP ten at a time. Each region's count
// must equal the sum of its members' published values and its MOE the root of the sum of their
// squared published MOEs (with the handbook's zero-estimate rule), both computed here from the raw
// Census API files, not from the build. 2023's county files publish no MOE: the MOE is null there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiFile } from '../support/census-api-file.js';
import { startService, type Service } from '../support/service.js';
import { rng } from './sample.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const REGIONS = 200;
const PER_REQUEST = 10;

/** Root of the sum of squared MOEs; of members estimated at 0 only the largest MOE counts (handbook 2018/2020, ch. 8). */
function independentRss(members: { e: number; m: number }[]): number {
  const nonzero = members.filter((x) => x.e !== 0).reduce((s, x) => s + x.m * x.m, 0);
  const zero = Math.max(0, ...members.filter((x) => x.e === 0).map((x) => x.m));
  return Math.sqrt(nonzero + zero * zero);
}

describe.each([2022, 2023])('200 random county regions, acs5 %i', (vintage) => {
  it('every aggregate equals the sum of the published members, its MOE their root-sum-of-squares', async () => {
    const raw = new Map<string, Record<string, Record<string, string | null>>>();
    for (const group of ['B25001', 'B01003']) {
      for (const r of readApiFile(vintage, 'acs5', 'county', group)) {
        const key = `county:${r.state}${r.county}`;
        raw.set(key, { ...raw.get(key), [group]: r });
      }
    }
    const counties = [...raw.keys()].sort();
    const random = rng(vintage * 7919);
    const regions = Array.from({ length: REGIONS }, () => {
      const size = 2 + Math.floor(random() * 19);
      const picked = new Set<string>();
      while (picked.size < size) picked.add(counties[Math.floor(random() * counties.length)]!);
      return [...picked].sort();
    });
    let checked = 0;
    for (let i = 0; i < regions.length; i += PER_REQUEST) {
      const batch = regions.slice(i, i + PER_REQUEST);
      const geo = batch.map((members) => `region(${members.join(',')})`).join(';');
      const res = await svc.app.inject({
        url: `/v1/data?variables=B25001_001E,B01003_001E&geo=${encodeURIComponent(geo)}&vintage=${vintage}`,
        headers: { 'x-api-key': svc.keys.enterprise },
      });
      expect(res.statusCode).toBe(200);
      const cells = res.json().data as { geo_key: string; variable: string; estimate: number | null; moe_numeric: number | null }[];
      expect(cells).toHaveLength(batch.length * 2);
      for (const [j, members] of batch.entries()) {
        for (const [group, variable] of [
          ['B25001', 'B25001_001E'],
          ['B01003', 'B01003_001E'],
        ] as const) {
          const cell = cells[j * 2 + (group === 'B25001' ? 0 : 1)]!;
          expect(cell.geo_key).toBe(`region(${members.join(',')})`);
          expect(cell.variable).toBe(variable);
          const published = members.map((k) => raw.get(k)![group]!);
          expect(cell.estimate).toBe(published.reduce((s, r) => s + Number(r[variable]), 0));
          const moeColumn = variable.replace(/E$/, 'M');
          if (published.every((r) => r[moeColumn] != null)) {
            const rss = independentRss(published.map((r) => ({ e: Number(r[variable]), m: Number(r[moeColumn]) })));
            expect(cell.moe_numeric).not.toBeNull();
            expect(Math.abs(cell.moe_numeric! - rss)).toBeLessThanOrEqual(1e-9 * Math.max(1, rss));
          } else {
            expect(cell.moe_numeric).toBeNull();
          }
          checked++;
        }
      }
    }
    expect(checked).toBe(REGIONS * 2);
  }, 120_000);
});
