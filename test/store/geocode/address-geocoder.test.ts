import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAddrfeat } from '../../../etl/steps/boundaries/address.js';
import type { Geocoders } from '../../../src/store/boundaries.js';
import { BoundaryStore } from '../../../src/store/boundaries.js';
import { testBuildDir } from '../../support/build.js';
import { SHARED_CENSUS } from '../../support/paths.js';

let g: Geocoders;
beforeAll(async () => {
  g = await (await BoundaryStore.open(path.join(await testBuildDir(), 'boundaries'))).geocoders();
});

describe('address geocoder: TIGER ADDRFEAT, Meagher County MT (30059)', () => {
  it('interpolates addresses taken from the source ranges into Meagher County with the range ZIP', async () => {
    const edges = await readAddrfeat(path.join(SHARED_CENSUS, 'geocode/tiger/tl_2021_30059_addrfeat.zip'));
    // Every 25th edge with a right-side range: the middle number of the range, on that side.
    const sample = edges.filter((e) => e.right && e.right.zip && e.street).filter((_, i) => i % 25 === 0);
    expect(sample.length).toBeGreaterThan(5);
    for (const e of sample) {
      const s = e.right!;
      let n = Math.round((s.from + s.to) / 2);
      if (s.parity === 'O' && n % 2 === 0) n += n < Math.max(s.from, s.to) ? 1 : -1;
      if (s.parity === 'E' && n % 2 === 1) n += n < Math.max(s.from, s.to) ? 1 : -1;
      const r = g.address.geocode(`${n} ${e.fullname}, MT ${s.zip}`, g.point);
      expect(r.status, `${n} ${e.fullname}: ${r.reason}`).not.toBe('no_match');
      const inCounty = r.candidates.filter((c) => c.county === '30059' && c.state === '30' && c.zip === s.zip);
      expect(inCounty.length, `${n} ${e.fullname}`).toBeGreaterThan(0);
      expect(r.match!.quality).toBe('interpolated');
    }
  });

  it('places the number on the correct side of the street, between the edge ends', async () => {
    const edges = await readAddrfeat(path.join(SHARED_CENSUS, 'geocode/tiger/tl_2021_30059_addrfeat.zip'));
    const e = edges.find((x) => x.left && x.right && x.coords.length === 2 && x.left.from !== x.left.to)!;
    const r = g.address.geocode(`${e.left!.from} ${e.fullname}, MT`, g.point);
    const c = r.candidates.find(
      (k) => Math.abs(k.coordinates.lng - e.coords[0]![0]) < 0.001 && Math.abs(k.coordinates.lat - e.coords[0]![1]) < 0.001,
    )!;
    expect(c).toBeDefined();
    const [a, b] = e.coords as [[number, number], [number, number]];
    const cross = (b[0] - a[0]) * (c.coordinates.lat - a[1]) - (b[1] - a[1]) * (c.coordinates.lng - a[0]);
    expect(cross).toBeGreaterThan(0); // left of the from→to direction
  });
});

describe('address geocoder: OpenAddresses Willow Ave, Hoboken NJ', () => {
  const rows = parse(
    zlib.gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, 'geocode/openaddresses/hoboken_willow_ave.csv.gz'))).toString('utf8'),
    { columns: true },
  ) as Record<string, string>[];

  it('matches "1016-18 WILLOW AVE" exactly to its source point in Hudson County, NJ 07030', () => {
    const r = g.address.geocode('1016-18 WILLOW AVE, HOBOKEN, NJ 07030', g.point);
    expect(r.status).toBe('matched');
    expect(r.match).toMatchObject({ quality: 'exact', county: '34017', state: '34', zip: '07030', zip_source: 'input_checked' });
    const src = rows.filter((x) => x.NUMBER === '1016-18 WILLOW AVE');
    expect(src.some((x) => Math.abs(Number(x.LAT) - r.match!.coordinates.lat) < 1e-9)).toBe(true);
    expect(r.geographies!.metro.key).toBe('metro:35620');
  });

  it('finds a number inside a hyphenated building range', () => {
    const r = g.address.geocode('1017 Willow Avenue, Hoboken, NJ 07030', g.point);
    expect(r.match).toMatchObject({ county: '34017', zip: '07030' });
    expect(['exact', 'range_point']).toContain(r.match!.quality);
  });

  it('returns candidates when the same address exists in several NJ towns and no ZIP is given', () => {
    const numbers = new Map<string, Set<string>>();
    for (const x of rows) {
      const n = x.NUMBER!.split(' ')[0]!;
      if (!/^\d+$/.test(n) || x.STREET!.trim().replace(/^\d+[A-Z]?(-\d+[A-Z]?)?\s+(?=\D)/i, '') !== 'Willow Avenue') continue;
      (numbers.get(n) ?? numbers.set(n, new Set()).get(n)!).add(`${Number(x.LON).toFixed(2)},${Number(x.LAT).toFixed(2)}`);
    }
    const dup = [...numbers].find(([, places]) => places.size > 1)![0];
    const r = g.address.geocode(`${dup} Willow Ave, NJ`, g.point);
    expect(r.status).toBe('ambiguous');
    expect(r.candidates.length).toBeGreaterThan(1);
  });

  it('rejects a ZIP that does not fit any candidate, with a reason', () => {
    const r = g.address.geocode('1016-18 WILLOW AVE, HOBOKEN, NJ 59645', g.point);
    expect(r.status).toBe('no_match');
    expect(r.reason).toMatch(/outside the given ZIP 59645/);
  });

  it('answers outside-coverage and unparseable input with reasons', () => {
    expect(g.address.geocode('1600 Pennsylvania Ave NW, Washington, DC 20500', g.point)).toMatchObject({
      status: 'no_match',
      reason: expect.stringMatching(/outside the address coverage/),
    });
    expect(g.address.geocode('somewhere over the rainbow', g.point)).toMatchObject({
      status: 'no_match',
      reason: expect.stringMatching(/unparseable/),
    });
  });
});
