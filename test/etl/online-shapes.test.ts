// Issue 34 §1: the Bureau's cartographic boundary files. `etl build --online` against the stand-in
// (test/support/census-standin.ts + standin/shapefiles.ts) into a source tree holding no other shapes
// at all: every boundary comes from the downloaded cb zips (tracts and block groups per state at
// 500k, the national state and county files), one of them first answered with an HTML page and one
// cut short. Then the service serves Travis County's tracts and geocodes a point into the tract
// and block group the stand-in drew around it. The shapes and values are the stand-in's truth.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FeatureCollection, Polygon } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchSourceTree } from '../../etl/online/fetch.js';
import { shapePaths } from '../../etl/online/shapes.js';
import { build } from '../../etl/build.js';
import type { Level } from '../../etl/online/plan.js';
import { boundariesStep } from '../../etl/steps/boundaries.js';
import { BoundaryStore } from '../../src/store/boundaries.js';
import { entryForVintage } from '../../src/verbs/boundaries-geometries.js';
import { startCensusStandin, type CensusStandin, type StandinGeography } from '../support/census-standin.js';
import { SHARED_CENSUS } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { centreOf, type ShapeTruth } from '../support/standin/shapefiles.js';

const COUNTIES: Array<[string, string, string, string]> = [
  ['48', '453', 'Travis County', 'Texas'],
  ['48', '491', 'Williamson County', 'Texas'],
  ['06', '075', 'San Francisco County', 'California'],
];

/** Real codes (the first tracts of each county and their block groups), as the API names them. */
function truth() {
  const csv = (rel: string) =>
    gunzipSync(readFileSync(path.join(SHARED_CENSUS, rel)))
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
  const tracts = csv('geo/cenpop/2020/tract.csv.gz');
  const bgs = csv('geo/cenpop/2020/block_group.csv.gz');
  const tn = (t: string) => `Census Tract ${String(Number(t.slice(0, 4)))}${t.slice(4) === '00' ? '' : `.${t.slice(4)}`}`;
  const geographies: StandinGeography[] = [
    { level: 'nation', fips: ['1'], name: 'United States' },
    { level: 'state', fips: ['06'], name: 'California' },
    { level: 'state', fips: ['48'], name: 'Texas' },
  ];
  const counties: Record<string, string> = {};
  const tractBgs: Record<string, string[]> = {};
  for (const [st, co, cname, sname] of COUNTIES) {
    geographies.push({ level: 'county', fips: [st, co], name: `${cname}, ${sname}` });
    counties[`${st}${co}`] = cname;
    for (const t of tracts.filter((r) => r[0] === st && r[1] === co).slice(0, 3)) {
      const name = `${tn(t[2]!)}; ${cname}; ${sname}`;
      geographies.push({ level: 'tract', fips: [st, co, t[2]!], name });
      const codes = bgs.filter((r) => r[0] === st && r[1] === co && r[2] === t[2]).map((r) => r[3]!);
      tractBgs[`${st}${co}${t[2]}`] = codes;
      for (const b of codes) geographies.push({ level: 'block_group', fips: [st, co, t[2]!, b], name: `Block Group ${b}; ${name}` });
    }
  }
  return {
    seed: 341,
    vintage: 2023,
    dataset: 'acs5' as const,
    geographies,
    tables: { B01003: 1 },
    shapes: {
      states: { '06': ['California', 'CA'], '48': ['Texas', 'TX'] } as Record<string, [string, string]>,
      counties,
      tracts: tractBgs,
    },
  };
}

let standin: CensusStandin;
let tmp: string;
let svc: Service;
let shapes: ShapeTruth;
const quiet = { info: () => {}, warn: () => {}, progress: () => ({ increment: () => {}, stop: () => {} }) } as never;
const SELECTION = { vintages: [2023], levels: ['nation', 'state', 'county', 'tract', 'block_group'] as Level[], states: ['06', '48'] };

// What `etl build --online` does for the shapes of a selection, without the rest of the build so
// the test takes seconds: the plan's cb zips downloaded into the cache (fetchSourceTree, as the CLI
// does), then the build's boundaries step on that cache alone — no shared tree at all — and the
// service on the result. The CLI's whole path is test/etl/no-shared-build.test.ts.
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'online-shapes-'));
  standin = await startCensusStandin(truth());
  shapes = standin.shapes!;
  standin.inject({ match: 'cb_2023_48_tract_500k.zip', kind: 'html200' });
  standin.inject({ match: 'cb_2023_48_bg_500k.zip', kind: 'truncate' });
  const cacheDir = path.join(tmp, 'cache');
  const plan = { api: [], reference: shapePaths(SELECTION, path.join(tmp, 'empty')) };
  const r = await fetchSourceTree({ cacheDir, plan, filesBase: standin.filesBase, retryBaseMs: 1, maxRetryDelayMs: 5, log: quiet });
  expect(r.failed).toEqual([]);
  const built = await build({ sourceDir: cacheDir, dataDir: path.join(tmp, 'data'), steps: [boundariesStep], log: quiet, mode: 'online' });
  svc = await startService({ buildDir: built.buildDir });
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const get = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });

describe('cartographic boundary files from the stand-in', () => {
  it('downloaded the per-state tract and block-group zips and the national ones, retrying an HTML page and a cut body', async () => {
    const cb = await fs.readdir(path.join(tmp, 'cache/boundaries/census_cb'));
    expect(cb.sort()).toEqual(
      [
        ...['06', '48'].flatMap((s) => [`cb_2023_${s}_bg_500k.zip`, `cb_2023_${s}_tract_500k.zip`]),
        ...['500k', '5m', '20m'].flatMap((r) => [`cb_2023_us_county_${r}.zip`, `cb_2023_us_state_${r}.zip`]),
        'cb_2023_us_nation_20m.zip',
        'cb_2023_us_nation_5m.zip',
      ].sort(),
    );
    // Stored verbatim: the bytes the stand-in serves.
    const tx = await fs.readFile(path.join(tmp, 'cache/boundaries/census_cb/cb_2023_48_tract_500k.zip'));
    expect(tx.equals(shapes.file('/geo/tiger/GENZ2023/shp/cb_2023_48_tract_500k.zip')!)).toBe(true);
    const faulted = standin.requests.filter((r) => r.fault).map((r) => `${r.fault} ${path.basename(r.url)}`);
    expect(faulted.sort()).toEqual(['html200 cb_2023_48_tract_500k.zip', 'truncate cb_2023_48_bg_500k.zip']);
  });

  it('serves the tracts of Travis County from the downloaded shapes, each the box the stand-in drew', async () => {
    const res = await get('/v1/boundaries/tract?within=county:48453');
    expect(res.statusCode, res.body).toBe(200);
    const fc = res.json() as FeatureCollection<Polygon>;
    const want = shapes.tractsOf('48453');
    expect(want.length).toBeGreaterThan(0);
    expect(fc.features.map((f) => f.properties!.geo_key).sort()).toEqual(want.map((t) => `tract:${t}`).sort());
    for (const f of fc.features) {
      const xs = f.geometry.coordinates[0]!.map((p) => p[0]!);
      const ys = f.geometry.coordinates[0]!.map((p) => p[1]!);
      // Served coordinates carry 6 decimals (about 0.1 m).
      const box = shapes.tractBox(String(f.properties!.geoid)).map((v) => Math.round(v * 1e6) / 1e6);
      expect([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]).toEqual(box);
    }
    const bgs = await get('/v1/boundaries/block_group?within=county:48453');
    expect(bgs.statusCode, bgs.body).toBe(200);
    expect((bgs.json() as FeatureCollection).features.length).toBe(want.reduce((n, t) => n + shapes.opts.tracts[t]!.length, 0));
  });

  it('geocodes a point to the generated tract and block group that contain it (polygons, not nearest centres)', async () => {
    for (const tract of shapes.tractsOf('48453')) {
      const bg = `${tract}${shapes.opts.tracts[tract]!.at(-1)}`;
      const { lat, lng } = centreOf(shapes.blockGroupBox(bg));
      const res = await get(`/v1/geocode?lat=${lat}&lng=${lng}`);
      expect(res.statusCode, res.body).toBe(200);
      const g = res.json().data.geographies;
      expect(g.county.key).toBe('county:48453');
      expect(g.state.key).toBe('state:48');
      expect(g.tract_2020).toMatchObject({ key: `tract:${tract}`, method: 'polygon', approximate: false });
      expect(g.block_group).toMatchObject({ key: `block_group:${bg}`, method: 'polygon', approximate: false });
    }
  });
});

describe('a cartographic boundary download that is not a shapefile zip', () => {
  const plan = { api: [], reference: ['boundaries/census_cb/cb_2023_06_tract_500k.zip'] };

  // `body`: a 200 whose body is the first half of the real zip with a matching length (a proxy's
  // cut copy), which only the zip check can catch; `truncate`: the connection drops mid-body.
  it.each([
    ['html200', /malformed body: not a zip archive \(an HTML page\) \(after 3 tries\)/],
    ['body', /malformed body: a damaged or incomplete zip archive .* \(after 3 tries\)/],
    ['truncate', /network error: .* \(after 3 tries\)/],
  ] as const)('%s on every try fails the file with the reason, after the retries', async (kind, reason) => {
    const cacheDir = await fs.mkdtemp(path.join(tmp, 'bad-'));
    const zip = shapes.file('/geo/tiger/GENZ2023/shp/cb_2023_06_tract_500k.zip')!;
    const half = zip.subarray(0, Math.floor(zip.length / 2)).toString('latin1');
    standin.inject({ match: 'cb_2023_06_tract_500k.zip', kind, times: 3, body: half });
    const before = standin.requests.length;
    const r = await fetchSourceTree({
      cacheDir,
      plan,
      filesBase: standin.filesBase,
      retries: 2,
      retryBaseMs: 1,
      maxRetryDelayMs: 2,
      log: quiet,
    });
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0]!.error).toMatch(reason);
    expect(standin.requests.slice(before).filter((q) => q.fault === kind)).toHaveLength(3);
    await expect(fs.access(path.join(cacheDir, plan.reference[0]!))).rejects.toThrow();
  });

  it('plans per-state files for the selected states and definitions, national files only where the fallback has no shapes', () => {
    const sel = { vintages: [2019, 2023], levels: ['tract', 'county'] as const, states: ['48'] };
    expect(shapePaths({ ...sel, levels: [...sel.levels] }, path.join(tmp, 'empty')).sort()).toEqual(
      [
        'boundaries/census_cb/cb_2019_48_tract_500k.zip',
        'boundaries/census_cb/cb_2023_48_tract_500k.zip',
        ...['500k', '5m', '20m'].flatMap((r) => [
          `boundaries/census_cb/cb_2023_us_county_${r}.zip`,
          `boundaries/census_cb/cb_2023_us_state_${r}.zip`,
        ]),
      ].sort(),
    );
    expect(shapePaths({ ...sel, levels: [...sel.levels] }, SHARED_CENSUS)).toEqual([
      'boundaries/census_cb/cb_2019_48_tract_500k.zip',
      'boundaries/census_cb/cb_2023_48_tract_500k.zip',
    ]);
  });
});

describe('tracts of both decades of definitions in one build', () => {
  it('writes one edition per GENZ year, the 2020 definitions the default, and a vintage picks the edition of its definitions', async () => {
    const src = await fs.mkdtemp(path.join(tmp, 'decades-'));
    const cb = path.join(src, 'boundaries/census_cb');
    await fs.mkdir(cb, { recursive: true });
    for (const name of ['cb_2019_48_tract_500k.zip', 'cb_2023_48_tract_500k.zip', 'cb_2023_us_state_20m.zip'])
      await fs.writeFile(path.join(cb, name), shapes.file(`/geo/tiger/GENZ${name.slice(3, 7)}/shp/${name}`)!);
    const built = await build({ sourceDir: src, dataDir: path.join(src, 'data'), steps: [boundariesStep], log: quiet });
    const store = await BoundaryStore.open(path.join(built.buildDir, 'boundaries'));
    const tracts = store.index.files.filter((f) => f.level === 'tract' && f.resolution === '500k');
    expect(tracts.map((f) => [f.edition, f.definition_vintage, f.default, f.derived]).sort()).toEqual([
      ['2019', '2010', false, false],
      ['2023', '2020', true, false],
    ]);
    expect(entryForVintage(store, 'tract', '500k', 2018)?.edition).toBe('2019');
    expect(entryForVintage(store, 'tract', '500k', 2023)?.edition).toBe('2023');
    expect(entryForVintage(store, 'block_group', '500k', 2023)).toBeUndefined();
    // Levels with no file at all are absent with the reason, not built from npm or shared sources.
    expect(store.absentReason('county', '20m')).toMatch(/no source in this build/);
    expect(store.absentReason('block_group', '500k')).toBeDefined();
  });
});

describe('a real Bureau file through the same reader', () => {
  it("reads the shared tree's cb_2020_us_state_20m.zip (a census.gov download) as the state level's true 20m file", async () => {
    const src = await fs.mkdtemp(path.join(tmp, 'real-'));
    await fs.mkdir(path.join(src, 'boundaries/census_cb'), { recursive: true });
    await fs.copyFile(
      path.join(SHARED_CENSUS, 'boundaries/cb_2020_us_state_20m.zip'),
      path.join(src, 'boundaries/census_cb/cb_2020_us_state_20m.zip'),
    );
    const built = await build({ sourceDir: src, dataDir: path.join(src, 'data'), steps: [boundariesStep], log: quiet });
    const store = await BoundaryStore.open(path.join(built.buildDir, 'boundaries'));
    const entry = store.entry('state', '20m')!;
    expect(entry).toMatchObject({ edition: '2020', derived: false, true_resolution: '20m', feature_count: 52 });
    expect((await store.feature(entry, 'state:48'))?.properties).toMatchObject({ geoid: '48', name: 'Texas' });
    expect(store.absentReason('state', '500k')).toBe('no cartographic state file of 2020 at 500k or finer in this build');
  });
});

describe('--no-shapes', () => {
  it('plans no cartographic zip: the dry run of a Texas tract selection drops the one file it would download', async () => {
    const { execFile } = await import('node:child_process');
    const run = (extra: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          [
            '--import',
            'tsx',
            'etl/cli.ts',
            'build',
            '--online',
            '--dry-run',
            '--datasets',
            'acs5',
            '--vintages',
            '2023',
            '--levels',
            'tract',
          ].concat([
            '--states',
            '48',
            '--tables',
            'B19013',
            '--api-base',
            'http://127.0.0.1:9',
            '--files-base',
            'http://127.0.0.1:9',
            ...extra,
          ]),
          (err, stdout) => (err ? reject(err) : resolve(stdout)),
        ),
      );
    const files = (text: string) => Number(/total: (\d+) files/.exec(text)?.[1]);
    const [withShapes, without] = await Promise.all([run([]), run(['--no-shapes'])]);
    expect(files(withShapes)).toBe(2); // the tract values' file and cb_2023_48_tract_500k.zip
    expect(files(without)).toBe(1);
  }, 60_000);
});
