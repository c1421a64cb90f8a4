import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeFgb, type FgbFeature } from '../../etl/steps/boundaries/fgb.js';
import { readGeoJsonGz, readShapefileZip } from '../../etl/steps/boundaries/sources.js';
import type { BoundaryIndex } from '../../src/store/boundaries/manifest.js';
import { testBuildDir } from '../support/build.js';
import { SHARED_CENSUS } from '../support/paths.js';

let dir: string;
let index: BoundaryIndex;
beforeAll(async () => {
  dir = path.join(await testBuildDir(), 'boundaries');
  index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as BoundaryIndex;
});

const square = (x: number, y: number, s: number, key: string): FgbFeature => ({
  type: 'Feature',
  properties: { geo_key: key, geoid: key, name: key, source: 't' },
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [x, y],
        [x + s, y],
        [x + s, y + s],
        [x, y + s],
        [x, y],
      ],
    ],
  },
});

describe('FlatGeobuf writer with spatial index', () => {
  it("answers bbox queries through flatgeobuf's own index reader exactly like brute force", async () => {
    vi.spyOn(console, 'debug').mockImplementation(() => {});
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.double({ min: -170, max: 170, noNaN: true }),
            fc.double({ min: -80, max: 80, noNaN: true }),
            fc.double({ min: 0.01, max: 5, noNaN: true }),
          ),
          { minLength: 1, maxLength: 300 },
        ),
        fc.tuple(
          fc.double({ min: -170, max: 170, noNaN: true }),
          fc.double({ min: -80, max: 80, noNaN: true }),
          fc.double({ min: 0, max: 60, noNaN: true }),
        ),
        async (boxes, [qx, qy, qs]) => {
          const feats = boxes.map(([x, y, s], i) => square(x, y, s, `k${i}`));
          const { data } = encodeFgb(feats);
          const got: string[] = [];
          for await (const f of deserialize(data, { rect: { minX: qx, minY: qy, maxX: qx + qs, maxY: qy + qs } }))
            got.push(String(f.properties!.geo_key));
          const want = boxes.flatMap(([x, y, s], i) => (x <= qx + qs && x + s >= qx && y <= qy + qs && y + s >= qy ? [`k${i}`] : []));
          expect(got.sort()).toEqual(want.sort());
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('boundaries build output', () => {
  it('records source, vintage, true resolution, derivation and a matching hash for every file', () => {
    expect(index.files.length).toBeGreaterThan(8);
    for (const f of [...index.files, ...index.centroids]) {
      const bytes = fs.readFileSync(path.join(dir, f.path));
      expect(createHash('sha256').update(bytes).digest('hex'), f.path).toBe(f.sha256);
      expect(bytes.length).toBe(f.bytes);
      expect(JSON.parse(fs.readFileSync(path.join(dir, f.path.replace(/\.fgb$/, '.keys.json')), 'utf8'))).toHaveLength(f.feature_count);
    }
    for (const f of index.files) {
      expect(f.source.length).toBeGreaterThan(5);
      expect(f.true_resolution.length).toBeGreaterThan(1);
      expect(f.derived ? f.derivation : 'n/a').toBeTruthy();
    }
  });

  it('never fills a slot with a coarser source: 10m-class us-atlas only in 20m, 5m/500k absent for those levels', () => {
    for (const f of index.files.filter((x) => x.true_resolution.includes('10m-class'))) expect(f.resolution).toBe('20m');
    for (const level of ['nation', 'state', 'county', 'metro'] as const) {
      for (const res of ['5m', '500k'] as const) {
        expect(index.files.find((f) => f.level === level && f.resolution === res)).toBeUndefined();
        expect(index.absent.find((a) => a.level === level && a.resolution === res)?.reason).toBeTruthy();
      }
    }
    const coarseCd = index.files.find((f) => f.level === 'cd' && f.true_resolution.includes('coarser'))!;
    expect(coarseCd.served).toBe(false);
    expect(coarseCd.resolution).toBeNull();
    expect(index.absent.filter((a) => a.level === 'block_group')).toHaveLength(3);
  });

  it('keeps every feature of the sources (states from the shapefile, tracts from the 45 files)', async () => {
    const states = await readShapefileZip(path.join(SHARED_CENSUS, 'boundaries/cb_2020_us_state_20m.zip'));
    expect(index.files.find((f) => f.level === 'state' && f.resolution === '20m')!.feature_count).toBe(states.length);
    const tractDir = path.join(SHARED_CENSUS, 'boundaries/tract_cb2018_500k');
    let tracts = 0;
    for (const n of fs.readdirSync(tractDir)) tracts += (await readGeoJsonGz(path.join(tractDir, n))).length;
    for (const res of ['500k', '5m', '20m'])
      expect(index.files.find((f) => f.level === 'tract' && f.resolution === res)!.feature_count).toBe(tracts);
    const t500 = index.files.find((f) => f.level === 'tract' && f.resolution === '500k')!;
    expect(t500).toMatchObject({ derived: false, true_resolution: '500k', definition_vintage: '2010' });
    expect(index.files.find((f) => f.level === 'tract' && f.resolution === '20m')!.bytes).toBeLessThan(t500.bytes);
  });

  it('labels each centroid level with one kind of point', () => {
    const kinds = Object.fromEntries(index.centroids.map((c) => [c.level, c.kind]));
    expect(kinds).toEqual({
      state: 'population_center',
      nation: 'population_center',
      county: 'internal_point',
      metro: 'internal_point',
      cd: 'internal_point',
      tract: 'population_center',
      block_group: 'population_center',
    });
  });
});
