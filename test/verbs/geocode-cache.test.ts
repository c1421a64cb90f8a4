// The geocode answer cache and the per-county nearest-center scan give exactly the answers of the
// uncached path: a few hundred real points (2020 tract population centers from ../shared, exact
// and moved a little, and random points at sea and abroad) through both.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { VerbContext } from '../../src/context/verb-context.js';
import { answerCacheOf } from '../../src/store/answer-cache.js';
import { BoundaryStore } from '../../src/store/boundaries.js';
import type { GeocodeGeographies, PointGeocoder } from '../../src/store/geocode/point-geocoder.js';
import type { PointLayer } from '../../src/store/geocode/layers.js';
import { GeographyStore } from '../../src/store/geographies.js';
import { GEOCODE_CACHE_POINTS, geocode } from '../../src/verbs/geocode.js';
import { testBuildDir } from '../support/build.js';
import { SHARED_CENSUS } from '../support/paths.js';

let boundaries: BoundaryStore;
let geographies: GeographyStore;
let point: PointGeocoder;
let ctx: VerbContext;
const points: [number, number][] = [];

beforeAll(async () => {
  const dir = await testBuildDir();
  boundaries = await BoundaryStore.open(path.join(dir, 'boundaries'));
  geographies = await GeographyStore.load(dir);
  point = (await boundaries.geocoders()).point;
  ctx = {
    requestId: 'r',
    caller: null,
    stores: { boundaries, geographies },
    config: { DISABLED_FEATURES: [] as string[] } as Config,
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    via: 'test',
  };
  const rows = parse(zlib.gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, 'geo/cenpop/2020/tract.csv.gz'))).toString('utf8'), {
    columns: true,
  }) as Record<string, string>[];
  let seed = 20261123;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 250; i++) {
    const r = rows[Math.floor(rnd() * rows.length)]!;
    const [lat, lng] = [Number(r.LATITUDE), Number(r.LONGITUDE)];
    points.push([lat, lng], [lat + (rnd() - 0.5) * 0.02, lng + (rnd() - 0.5) * 0.02]);
  }
  for (let i = 0; i < 50; i++) points.push([15 + rnd() * 56, -170 + rnd() * 105]);
});

/** The answer as the verb computed it before the cache: locate, then each hit's name from get(). */
function uncached(lat: number, lng: number): GeocodeGeographies {
  const g = point.locate(lat, lng);
  const out = { ...g };
  for (const [level, answer] of Object.entries(g) as [keyof GeocodeGeographies, GeocodeGeographies[keyof GeocodeGeographies]][]) {
    const name = answer.key ? geographies.get(answer.key)?.name : undefined;
    if (name) out[level] = { ...answer, name } as typeof answer;
  }
  return out;
}

describe('geocode answer cache', () => {
  it('answers every point as the uncached path does, the first time and from the cache', async () => {
    let named = 0;
    for (const [lat, lng] of points) {
      const want = JSON.stringify(uncached(lat, lng));
      const first = await geocode({ ctx, input: { lat, lng } });
      const again = await geocode({ ctx, input: { lat, lng } });
      expect(JSON.stringify(first.data.geographies)).toBe(want);
      expect(JSON.stringify(again.data.geographies)).toBe(want);
      expect(again.data.input).toEqual({ lat, lng });
      if (first.data.geographies?.county.key) named++;
    }
    // Most of the sample is on land, with named answers; the rest at sea or abroad.
    expect(named).toBeGreaterThan(450);
  });

  it('keys on the exact coordinates: a point 1e-9 degrees away is its own entry', async () => {
    const cache = answerCacheOf<GeocodeGeographies>('geocode-point', GEOCODE_CACHE_POINTS, [point, geographies]);
    const before = cache.size;
    await geocode({ ctx, input: { lat: 38.8977, lng: -77.0365 } });
    await geocode({ ctx, input: { lat: 38.8977, lng: -77.0365 } });
    await geocode({ ctx, input: { lat: 38.897700001, lng: -77.0365 } });
    expect(cache.size - before).toBe(2);
  });

  it('hands out frozen answers, so no caller can change what the next one gets', async () => {
    const r = await geocode({ ctx, input: { lat: 40.758, lng: -73.9855 } });
    const g = r.data.geographies!;
    expect(Object.isFrozen(g) && Object.isFrozen(g.county)).toBe(true);
    expect(() => {
      (g.county as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  it('starts empty for new stores (a build switch) and for a different geographies store', async () => {
    const fresh = await BoundaryStore.open(path.join(await testBuildDir(), 'boundaries'));
    const freshPoint = (await fresh.geocoders()).point;
    expect(answerCacheOf('geocode-point', GEOCODE_CACHE_POINTS, [freshPoint, geographies]).size).toBe(0);
    const noNames = { ...ctx, stores: { boundaries } };
    const r = await geocode({ ctx: noNames, input: { lat: 38.8977, lng: -77.0365 } });
    // Without the geography reference the boundary file's own names are served, not cached named ones.
    expect(r.data.geographies).toEqual(point.locate(38.8977, -77.0365));
    expect(answerCacheOf('geocode-point', GEOCODE_CACHE_POINTS, [point, null]).size).toBe(1);
  });
});

describe('nearest population center', () => {
  it('matches the Flatbush best-first search for tracts in the county and block groups in the tract', () => {
    const layers = point as unknown as { tractCenters: { layer: PointLayer }; bgCenters: { layer: PointLayer } };
    let found = 0;
    for (const [lat, lng] of points) {
      const county = point.locate(lat, lng).county.key;
      if (!county) continue;
      const t = layers.tractCenters.layer.nearest(lng, lat, county.slice(7));
      expect(t).toEqual(layers.tractCenters.layer.nearestByIndex(lng, lat, county.slice(7)));
      if (!t) continue;
      found++;
      const bg = layers.bgCenters.layer.nearest(lng, lat, t.key.slice(6));
      expect(bg).toEqual(layers.bgCenters.layer.nearestByIndex(lng, lat, t.key.slice(6)));
    }
    expect(found).toBeGreaterThan(400);
    // A prefix with no points, and one whose points are all farther than 5 degrees.
    expect(layers.tractCenters.layer.nearest(-77, 38.9, '99999')).toBeNull();
    expect(layers.tractCenters.layer.nearest(-40, 35, '11001')).toBeNull();
    expect(layers.tractCenters.layer.nearestByIndex(-40, 35, '11001')).toBeNull();
  });
});
