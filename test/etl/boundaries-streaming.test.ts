// Tracts and block groups at national scale in bounded memory (issue 34 §3): the boundaries step
// reads each state's cartographic zip one feature at a time into on-disk spools (FgbSpool) and
// writes the indexed FlatGeobuf afterwards. These check that the spooled file is the one the
// in-memory writer makes, byte for byte, and that each state's features are on disk before the
// next state's file is read. Peak RSS at national scale is measured by `npm run bench:national-shapes`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cbSmallAreaLevel, listCbFiles, type CbFile } from '../../etl/steps/boundaries/census-cb.js';
import { encodeFgb, FgbSpool, type FgbFeature } from '../../etl/steps/boundaries/fgb.js';
import { readShapefileZip } from '../../etl/steps/boundaries/sources.js';
import { centreOf, ShapeTruth } from '../support/standin/shapefiles.js';

const STATES: Record<string, [string, string]> = {
  '11': ['District of Columbia', 'DC'],
  '44': ['Rhode Island', 'RI'],
  '48': ['Texas', 'TX'],
  '50': ['Vermont', 'VT'],
};

/** A few states, each with 3 counties of 4–7 tracts of 1–3 block groups, rings of 40 vertices. */
function truth(): ShapeTruth {
  const counties: Record<string, string> = {};
  const tracts: Record<string, string[]> = {};
  for (const st of Object.keys(STATES))
    for (let c = 1; c <= 3; c++) {
      const county = `${st}${String(2 * c - 1).padStart(3, '0')}`;
      counties[county] = `County ${c}`;
      for (let t = 0; t < 4 + ((Number(st) + c) % 4); t++)
        tracts[`${county}${String(100 * (t + 1)).padStart(6, '0')}`] = ['1', '2', '3'].slice(0, 1 + ((t + c) % 3));
    }
  return new ShapeTruth({ states: STATES, counties, tracts, vertices: 40 });
}

let tmp: string;
let sourceDir: string;
let files: CbFile[];
const shapes = truth();
const stateNames = new Map(Object.entries(STATES).map(([k, v]) => [k, v[0]]));

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bounds-stream-'));
  sourceDir = path.join(tmp, 'src');
  const dir = path.join(sourceDir, 'boundaries/census_cb');
  fs.mkdirSync(dir, { recursive: true });
  for (const st of Object.keys(STATES))
    for (const level of ['tract', 'bg']) {
      const name = `cb_2023_${st}_${level}_500k.zip`;
      fs.writeFileSync(path.join(dir, name), shapes.file(`/geo/tiger/GENZ2023/shp/${name}`)!);
    }
});
beforeAll(async () => {
  files = await listCbFiles(sourceDir);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const square = (x: number, y: number, s: number, key: string, type: 'Polygon' | 'MultiPolygon' = 'Polygon'): FgbFeature => {
  const ring = [
    [x, y],
    [x + s, y],
    [x + s, y + s],
    [x, y + s],
    [x, y],
  ];
  return {
    type: 'Feature',
    properties: { geo_key: key, geoid: key, name: `Name ${key}`, source: 't' },
    geometry:
      type === 'Polygon' ? { type, coordinates: [ring] } : { type, coordinates: [[ring], [ring.map(([a, b]) => [a! + 2 * s, b!])]] },
  };
};

describe('FgbSpool', () => {
  it('writes the bytes and key order encodeFgb gives for the same features, flushed in pieces', async () => {
    // Mixed geometry types (header type Unknown), repeated centres (ties keep input order).
    const features = Array.from({ length: 700 }, (_, i) =>
      square(
        ((i * 37) % 101) / 10 - 100,
        ((i * 53) % 89) / 10 + 30,
        0.05 + (i % 7) / 100,
        `k${i}`,
        i % 5 === 0 ? 'MultiPolygon' : 'Polygon',
      ),
    );
    features.push(square(-95, 35, 0.1, 'dup-a'), square(-95, 35, 0.1, 'dup-b'));
    const spool = new FgbSpool(path.join(tmp, 'mixed.spool'));
    for (const [i, f] of features.entries()) {
      await spool.add(f);
      if (i % 97 === 0) await spool.flush();
    }
    const out = path.join(tmp, 'mixed.fgb');
    const written = await spool.finish(out);
    const { data, ordered } = encodeFgb(features);
    expect(Buffer.from(fs.readFileSync(out)).equals(Buffer.from(data))).toBe(true);
    expect(written.feature_count).toBe(features.length);
    expect(written.bytes).toBe(data.length);
    expect(JSON.parse(fs.readFileSync(path.join(tmp, 'mixed.keys.json'), 'utf8'))).toEqual(ordered.map((f) => f.properties.geo_key));
    expect(fs.existsSync(path.join(tmp, 'mixed.spool'))).toBe(false);
  });

  it('refuses a feature whose properties differ from the first', async () => {
    const spool = new FgbSpool(path.join(tmp, 'schema.spool'));
    await spool.add(square(0, 0, 1, 'a'));
    const odd = square(1, 1, 1, 'b');
    odd.properties = { geo_key: 'b', geoid: 'b', name: 'b' };
    await expect(spool.add(odd)).rejects.toThrow(/another property schema/);
    await spool.discard();
  });
});

describe('cartographic tracts and block groups, streamed state by state', () => {
  it("puts each state's features on disk before the next state's file is read", async () => {
    const reports: Array<{ scope: string; features: number; onDisk: number[]; spooled: number[] }> = [];
    const spoolDir = path.join(tmp, 'spool-bg');
    const planned = await cbSmallAreaLevel(
      sourceDir,
      'block_group',
      files.filter((f) => f.level === 'block_group'),
      stateNames,
      {
        spoolDir,
        onSourceRead: ({ file, features, spools }) =>
          reports.push({
            scope: file.scope,
            features,
            // What the file system holds at this moment, against what the spool says it wrote.
            onDisk: spools.map((s) => fs.statSync(s.spoolFile).size),
            spooled: spools.map((s) => s.spooledBytes),
          }),
      },
    );
    expect(reports.map((r) => r.scope)).toEqual(Object.keys(STATES));
    for (const r of reports) expect(r.onDisk).toEqual(r.spooled);
    for (let i = 1; i < reports.length; i++)
      for (let s = 0; s < 3; s++) expect(reports[i]!.onDisk[s]!).toBeGreaterThan(reports[i - 1]!.onDisk[s]!);
    // Nothing of a state is held back: the 500k spool after state k holds all of states 1..k.
    const perState = await Promise.all(
      files.filter((f) => f.level === 'block_group').map(async (f) => (await readShapefileZip(path.join(sourceDir, f.rel))).length),
    );
    expect(reports.map((r) => r.features)).toEqual(perState);

    const out = path.join(tmp, 'out/block_group/500k.fgb');
    const done = await (planned[0]!.features as FgbSpool).finish(out);
    expect(done.feature_count).toBe(perState.reduce((a, b) => a + b, 0));
    for (const p of planned.slice(1)) await (p.features as FgbSpool).discard();
    expect(fs.readdirSync(spoolDir)).toEqual([]);
  });

  it('writes the same file the in-memory writer made, and its index finds each tract by a point inside it', async () => {
    const tractFiles = files.filter((f) => f.level === 'tract');
    const planned = await cbSmallAreaLevel(sourceDir, 'tract', tractFiles, stateNames, { spoolDir: path.join(tmp, 'spool-tract') });
    expect(planned.map((p) => p.entry.resolution)).toEqual(['500k', '5m', '20m']);
    const out = path.join(tmp, 'out/tract/500k.fgb');
    await (planned[0]!.features as FgbSpool).finish(out);
    for (const p of planned.slice(1)) await (p.features as FgbSpool).discard();

    // The former path: every state's features in one array, then encoded at once.
    const all: FgbFeature[] = [];
    for (const f of tractFiles)
      for (const x of await readShapefileZip(path.join(sourceDir, f.rel)))
        all.push({
          type: 'Feature',
          geometry: x.geometry as FgbFeature['geometry'],
          properties: {
            geo_key: `tract:${String(x.properties.GEOID)}`,
            geoid: String(x.properties.GEOID),
            name: `Census Tract ${String(x.properties.NAME)}`,
            source: f.name.slice(0, -4),
          },
        });
    const bytes = fs.readFileSync(out);
    expect(Buffer.from(encodeFgb(all).data).equals(bytes)).toBe(true);

    // A point lookup through flatgeobuf's own index reader, as the point geocoder does.
    const tract = '48005000300';
    const { lng, lat } = centreOf(shapes.tractBox(tract));
    const hits: string[] = [];
    for await (const f of deserialize(new Uint8Array(bytes), { rect: { minX: lng, minY: lat, maxX: lng, maxY: lat } }))
      hits.push(String(f.properties?.geoid));
    expect(hits).toContain(tract);
    expect(hits.length).toBeLessThan(all.length / 4);
  });
});
