import path from 'node:path';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import type { Polygon, MultiPolygon } from 'geojson';
import { beforeAll, describe, expect, it } from 'vitest';
import { BoundaryStore, type BoundaryFeature } from '../../src/store/boundaries.js';
import { testBuildDir } from '../support/build.js';

let dir: string;
let store: BoundaryStore;
beforeAll(async () => {
  dir = path.join(await testBuildDir(), 'boundaries');
  store = await BoundaryStore.open(dir);
});

describe('BoundaryStore', () => {
  it('gives a stable strong ETag derived from the file content', async () => {
    const e1 = BoundaryStore.etag(store.entry('county', '20m')!);
    const again = await BoundaryStore.open(dir);
    expect(BoundaryStore.etag(again.entry('county', '20m')!)).toBe(e1);
    expect(e1).toMatch(/^"[0-9a-f]{32}"$/);
    expect(BoundaryStore.etag(store.entry('state', '20m')!)).not.toBe(e1);
  });

  it('featuresFor: the same frozen shapes for every answer, equal to a fresh decode, in the order asked', async () => {
    const entry = store.entry('state', '20m')!;
    const keys = ['state:06', 'state:99', 'state:11'];
    const first: BoundaryFeature[] = [];
    for await (const f of store.featuresFor(entry, keys)) first.push(f);
    expect(first.map((f) => f.properties.geo_key)).toEqual(['state:06', 'state:11']);
    const again: BoundaryFeature[] = [];
    for await (const f of store.featuresFor(entry, keys)) again.push(f);
    expect(again[0]).toBe(first[0]);
    expect(Object.isFrozen(first[0]!.geometry)).toBe(true);
    expect(Object.isFrozen((first[0]!.geometry as MultiPolygon).coordinates[0]![0]![0])).toBe(true);
    expect(() => ((first[0]!.geometry as { type: string }).type = 'Point')).toThrow(TypeError);
    const fresh = await (await BoundaryStore.open(dir)).feature(entry, 'state:06');
    expect(JSON.stringify(first[0])).toBe(JSON.stringify(fresh));
  });

  it('finds one feature by key and its shape contains the Gazetteer-known point', async () => {
    const f = await store.feature(store.entry('county', '20m')!, 'county:11001');
    expect(f?.properties).toMatchObject({ geo_key: 'county:11001', geoid: '11001' });
    expect(booleanPointInPolygon([-77.0365, 38.8977], f!.geometry as Polygon | MultiPolygon)).toBe(true);
    expect(await store.feature(store.entry('county', '20m')!, 'county:99999')).toBeNull();
  });

  it('streams all features, or only those meeting a bbox', async () => {
    const entry = store.entry('state', '20m')!;
    let all = 0;
    for await (const _ of store.features(entry)) all++;
    expect(all).toBe(entry.feature_count);
    const keys: string[] = [];
    for await (const f of store.features(entry, [-77.1, 38.85, -77.0, 38.95])) keys.push(f.properties.geo_key);
    expect(keys).toContain('state:11');
    expect(keys.length).toBeLessThan(5);
  });

  it('serves the legacy Connecticut counties as a separate edition', async () => {
    expect(await store.feature(store.entry('county', '20m', '2017')!, 'county:09001')).not.toBeNull();
    expect(await store.feature(store.entry('county', '20m')!, 'county:09001')).toBeNull();
    expect(await store.feature(store.entry('county', '20m')!, 'county:09110')).not.toBeNull();
  });
});
