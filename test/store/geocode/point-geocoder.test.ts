import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LevelMatch, PointGeocoder } from '../../../src/store/geocode/point-geocoder.js';
import { BoundaryStore } from '../../../src/store/boundaries.js';
import { testBuildDir } from '../../support/build.js';
import { SHARED_CENSUS } from '../../support/paths.js';

let store: BoundaryStore;
let geo: PointGeocoder;
beforeAll(async () => {
  store = await BoundaryStore.open(path.join(await testBuildDir(), 'boundaries'));
  geo = (await store.geocoders()).point;
});

const key = (a: { key: string | null }) => a.key;

describe('point geocoder on the real boundaries', () => {
  it('puts the White House in DC', () => {
    const r = geo.locate(38.8977, -77.0365);
    expect(key(r.state)).toBe('state:11');
    expect(key(r.county)).toBe('county:11001');
    expect(key(r.nation)).toBe('nation:1');
    expect(key(r.cd)).toBe('cd:1198');
    expect(key(r.metro)).toBe('metro:47900');
    expect((r.county as LevelMatch).boundary_vintage).toBe('2023');
  });

  it('puts Times Square in New York County, the New York metro and NY-12', () => {
    const r = geo.locate(40.758, -73.9855);
    expect(key(r.county)).toBe('county:36061');
    expect(key(r.metro)).toBe('metro:35620');
    expect(key(r.cd)).toBe('cd:3612');
    expect((r.cd as LevelMatch).boundary_vintage).toBe('2022');
    // NY has no tract polygons in the sources: null with a reason, and an approximate 2020 tract.
    expect(r.tract).toMatchObject({ key: null });
    expect((r.tract as { reason: string }).reason).toMatch(/no tract boundaries for state 36/);
    expect(r.tract_2020).toMatchObject({ method: 'nearest_population_center', approximate: true });
    expect(key(r.tract_2020)!.startsWith('tract:36061')).toBe(true);
    expect(key(r.block_group)!.startsWith(key(r.tract_2020)!.replace('tract:', 'block_group:'))).toBe(true);
  });

  it('answers a point in the Atlantic with no match and a reason at every level', () => {
    const r = geo.locate(35.0, -40.0);
    for (const level of Object.values(r)) {
      expect(level.key).toBeNull();
      expect((level as { reason: string }).reason.length).toBeGreaterThan(10);
    }
  });

  it('finds 2010 tracts by polygon where the source covers the state (Meagher County, MT)', () => {
    const r = geo.locate(46.55, -110.9);
    expect(key(r.county)).toBe('county:30059');
    expect(r.tract).toMatchObject({ method: 'polygon', definition_vintage: '2010' });
    expect(key(r.tract)!.startsWith('tract:30059')).toBe(true);
  });

  it('resolves a point exactly on a shared county vertex to the lowest GEOID, every time', async () => {
    // A vertex shared by two county shapes (TopoJSON arcs are shared, so coordinates are equal).
    const f = await store.file(store.entry('county', '20m')!.path);
    const a = f.indexOf('county:11001')!;
    const ring = (f.feature(a).geometry as { coordinates: number[][][] }).coordinates[0]!;
    let checked = 0;
    for (const [lng, lat] of ring) {
      const hits = geo['county']!.layer.containing(lng!, lat!).map((h: { key: string }) => h.key);
      if (hits.length < 2) continue;
      const r1 = geo.locate(lat!, lng!);
      const r2 = geo.locate(lat!, lng!);
      expect(key(r1.county)).toBe([...hits].sort()[0]);
      expect(key(r2.county)).toBe(key(r1.county));
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("puts every county's Gazetteer point in its own county, except explained cases", async () => {
    const rows = parse(zlib.gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, 'geo/gazetteer2023/counties.csv.gz'))).toString('utf8'), {
      columns: true,
    }) as Record<string, string>[];
    const shapes = await store.file(store.entry('county', '20m')!.path);
    const explained = { water: 0, no_shape: 0, tiny_island: 0, tiny_city: 0 };
    const unexplained: string[] = [];
    for (const r of rows) {
      const got = geo.locate(Number(r.Latitude), Number(r.Longitude)).county.key;
      if (got === `county:${r.GEOID}`) continue;
      const land = Number(r['Land Area']);
      const water = Number(r['Water Area']);
      // Census county polygons include water, but cartographic outlines are clipped to the
      // shore, so an internal point placed in a county's lake or sea falls outside every shape.
      if (got === null && water / (land + water) >= 0.3) explained.water++;
      else if (shapes.indexOf(`county:${r.GEOID}`) === undefined) explained.no_shape++;
      // Small islands (American Samoa's Manu'a) vanish or shift in the 10m-class simplification.
      else if (got === null && land < 30) explained.tiny_island++;
      // Independent cities of a few square miles (VA) are shifted by the simplification.
      else if (got !== null && land < 5) explained.tiny_city++;
      else unexplained.push(`${r.GEOID} → ${got}`);
    }
    const misses = Object.values(explained).reduce((a, b) => a + b, 0);
    console.info(`county internal points: ${rows.length - misses - unexplained.length}/${rows.length} in own county`, explained);
    expect(unexplained).toEqual([]);
    expect(misses / rows.length).toBeLessThan(0.025);
  });
});
