// Issue 34, first judging scenario: a machine with no ../shared (CENSUS_SOURCE_DIR and
// --fallback-source an empty directory), the census.gov stand-in alone at --api-base/--files-base.
// 1. The reference files the geography levels need come from the stand-in in the Bureau's formats
//    and the geographies step builds every level from them (the step alone).
// 2. `etl build --online` of acs5 2023 for two states (DC and Texas) at all levels, then the
//    service: a Travis County tract's values cell for cell, its name, its shape within the county,
//    geocoding to it, `tract:Travis County, TX` and `tract:TX-35`, and its profile page. The
//    stand-in's world is small (6 tracts), so the whole build takes seconds.
// The values and reference facts are the stand-in's truth (random), in temporary directories only.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUREAU_REFERENCE_FILES } from '../../etl/online/reference-bureau.js';
import { prepareOnlineSource } from '../../etl/online/prepare.js';
import { buildGeoFile } from '../../etl/steps/geographies/build.js';
import type { GeoFile } from '../../src/store/geographies/format.js';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import { headlinePath } from '../../web/profile/load.js';
import { captureLog } from '../support/census-emulator.js';
import { startCensusStandin, StandinTruth, type CensusStandin, type StandinGeography } from '../support/census-standin.js';
import { REPO_ROOT } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { standinBuildArgs } from '../support/standin-build.js';
import { tractDistrictShares } from '../support/standin/reference-lists.js';
import { scenarioTruth, SCENARIO_TABLES } from '../support/standin/scenario.js';

const run = promisify(execFile);
const KEY = 'standin-key-no-shared-34';
const TRAVIS_TRACT = '48453000308';
const SPLIT_TRACT = '48453000309';

const rowsOf = (file: GeoFile, level: keyof GeoFile['levels']) => {
  const L = file.levels[level];
  return L.fips.map((fips, i) => ({ fips, name: L.name?.[i], to: L.valid_to[i], population: L.population[i], short: L.short_name?.[i] }));
};

describe('the reference the levels need, from the stand-in alone', () => {
  let standin: CensusStandin;
  let tmp: string;
  let file: GeoFile;
  let truth: StandinTruth;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'no-shared-ref-'));
    standin = await startCensusStandin(scenarioTruth(), { delayMs: 2 });
    truth = standin.truth;
    // census.gov misbehaves on the relationship file once: an HTML page with status 200.
    standin.inject({ match: 'tab20_cd11820_tract20_natl.txt', kind: 'html200' });
    const empty = path.join(tmp, 'empty');
    await fs.mkdir(empty);
    const cenpop = ([2010, 2020] as const).flatMap((y) =>
      ['state.csv', 'county.csv.gz', 'tract.csv.gz', 'block_group.csv.gz'].map((f) => `geo/cenpop/${y}/${f}`),
    );
    const reference = [
      'geo/state.txt',
      'geo/national_county_2010.txt',
      'geo/cbsa/list1_2023.xlsx',
      ...cenpop,
      ...BUREAU_REFERENCE_FILES.map((r) => r.path),
    ];
    const { sourceDir, linked } = await prepareOnlineSource({
      cacheDir: path.join(tmp, 'cache'),
      plan: { api: [], reference },
      filesBase: standin.filesBase,
      fallbackDir: empty,
      log: captureLog().log,
      retryBaseMs: 5,
    });
    expect(linked).toEqual([]);
    file = (await buildGeoFile(sourceDir, captureLog().log)).file;
  }, 120_000);
  afterAll(async () => {
    await standin?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  const truthOf = (level: StandinGeography['level']) => truth.opts.geographies.filter((g) => g.level === level);

  it('stored each Bureau file as census.gov serves it, retrying the HTML page', async () => {
    expect(standin.requests.filter((r) => r.fault).map((r) => r.url)).toEqual([expect.stringContaining('tab20_cd11820_tract20_natl.txt')]);
    for (const r of BUREAU_REFERENCE_FILES) {
      const res = await fetch(`${standin.filesBase}${r.url}`);
      const stored = await fs.readFile(path.join(tmp, 'cache', r.path));
      expect(stored.equals(Buffer.from(await res.arrayBuffer())), r.path).toBe(true);
    }
  });

  it('counties are named from the Gazetteer as the Data API names them', () => {
    const counties = rowsOf(file, 'county');
    expect(counties.map((c) => [c.fips, c.name])).toEqual(truthOf('county').map((g) => [g.fips.join(''), g.name]));
  });

  it('metros come from the List 1 workbook with Gazetteer points, short names from their titles', () => {
    const metros = rowsOf(file, 'metro');
    expect(metros.map((m) => [m.fips, m.name])).toEqual(truthOf('metro').map((g) => [g.fips.join(''), g.name]));
    expect(metros.find((m) => m.fips === '12420')!.short).toBe('Austin, TX');
    const members = file.crosswalks.metro_county;
    expect(members.cbsa.map((c, i) => `${c}:${members.county[i]}`).sort()).toEqual(['12420:48453', '12420:48491', '47900:11001']);
    // A metro's population is its counties' (the centers-of-population file's, from the stand-in).
    const county = new Map(rowsOf(file, 'county').map((c) => [c.fips, c.population!]));
    expect(metros.find((m) => m.fips === '12420')!.population).toBe(county.get('48453')! + county.get('48491')!);
  });

  it('districts are named from the relationship file, tracts shared among them by land area', () => {
    const cds = rowsOf(file, 'cd');
    expect(cds.map((c) => [c.fips, c.name])).toEqual(truthOf('cd').map((g) => [g.fips.join(''), g.name]));
    const xw = file.crosswalks.cd_tract;
    const parts = (tract: string) => new Map(xw.tract.flatMap((t, i) => (t === tract ? [[xw.cd[i]!, xw.afact[i]!] as const] : [])));
    expect(parts(TRAVIS_TRACT)).toEqual(new Map([['4835', 1]]));
    const split = truthOf('tract').find((g) => g.fips.join('') === SPLIT_TRACT)!;
    const shares = tractDistrictShares(truth, split);
    const got = parts(SPLIT_TRACT);
    expect([...got.keys()].sort()).toEqual(['4835', '4837']);
    for (const [cd, share] of shares) expect(got.get(cd)).toBeCloseTo(share, 5);
    // Its block groups follow the district with most of its land (the file stops at tracts).
    const bg = file.crosswalks.cd_bg_split;
    expect(bg.bg.map((b, i) => `${b}:${bg.cd[i]}`)).toEqual([1, 2, 3].map((b) => `${SPLIT_TRACT}${b}:4837`));
  });

  it('tracts and block groups are the centers-of-population files of the stand-in, with no Connecticut crosswalk needed', () => {
    const current = (level: 'tract' | 'block_group') =>
      rowsOf(file, level)
        .filter((r) => (r.to ?? 0) > 2022)
        .map((r) => r.fips);
    const codes = (level: 'tract' | 'block_group') =>
      truthOf(level)
        .map((g) => g.fips.join(''))
        .sort();
    expect(current('tract')).toEqual(codes('tract'));
    expect(current('block_group')).toEqual(codes('block_group'));
    expect(file.crosswalks.ct_tract.tract2020).toEqual([]);
  });
});

describe('judging scenario 1: build acs5 2023 for two states at all levels with no ../shared, then serve', () => {
  let standin: CensusStandin;
  let tmp: string;
  let svc: Service;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'no-shared-build-'));
    standin = await startCensusStandin(scenarioTruth(), { requireKey: KEY });
    const empty = path.join(tmp, 'empty');
    await fs.mkdir(empty);
    const args = standinBuildArgs(standin, {
      dir: tmp,
      fallback: empty,
      datasets: ['acs5'],
      vintages: [2023],
      levels: 'all',
      states: ['11', '48'],
      tables: SCENARIO_TABLES,
    });
    const env = { ...process.env, CENSUS_API_KEY: KEY, CENSUS_SOURCE_DIR: empty };
    await run(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), args, { cwd: REPO_ROOT, env, maxBuffer: 1 << 24 });
    svc = await startService({ buildDir: resolveCurrentBuild(path.join(tmp, 'data'))!, config: { CENSUS_SOURCE_DIR: empty } });
  }, 600_000);
  afterAll(async () => {
    await svc?.close();
    await standin?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  const ask = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });
  const tract = () => standin.truth.opts.geographies.find((g) => g.level === 'tract' && g.fips.join('') === TRAVIS_TRACT)!;

  it('serves the Travis County tract cell for cell as the stand-in published it', async () => {
    const g = tract();
    const variables = Object.keys(SCENARIO_TABLES).flatMap((t) => standin.truth.variables(t));
    const res = await ask(
      `/v1/data?variables=${variables.map((v) => `${v}E`).join(',')}&geo=tract:${TRAVIS_TRACT}&dataset=acs5&vintage=2023`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const served = new Map(
      (res.json().data as Array<{ census_code: string; estimate: number | null; moe_numeric: number | null }>).map((c) => [
        c.census_code,
        c,
      ]),
    );
    const plain = (s: string | null) => (s !== null && !s.startsWith('-') ? Number(s) : null);
    for (const v of variables) {
      const cell = standin.truth.cell(g, v);
      const c = served.get(`${v}E`);
      expect(c, v).toBeDefined();
      expect([c!.estimate, c!.moe_numeric], `${v} ${JSON.stringify(cell)}`).toEqual([plain(cell.E), plain(cell.M)]);
    }
    // And on the Census-API route, exactly as published.
    const api = await ask(`/data/2023/acs/acs5?get=NAME,group(B25003)&for=tract:${TRAVIS_TRACT.slice(5)}&in=state:48%20county:453`);
    expect(api.statusCode, api.body).toBe(200);
    const [header, row] = api.json() as string[][];
    for (const v of standin.truth.variables('B25003'))
      for (const s of ['E', 'M', 'EA', 'MA'] as const)
        expect(row![header!.indexOf(`${v}${s}`)], `${v}${s}`).toBe(standin.truth.cell(g, v)[s]);
  });

  it('names the tract as published', async () => {
    const res = await ask(`/v1/geographies/tract:${TRAVIS_TRACT}?vintage=2023`);
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.stringify(res.json())).toContain(tract().name.split('; ')[0]);
    const api = await ask(`/data/2023/acs/acs5?get=NAME&for=tract:${TRAVIS_TRACT.slice(5)}&in=state:48%20county:453`);
    expect((api.json() as string[][])[1]![0]).toBe(tract().name);
  });

  it('resolves tract:Travis County, TX and tract:TX-35 (the 118th Congress district)', async () => {
    const inCounty = await ask(
      `/v1/data?variables=B01003_001E&geo=${encodeURIComponent('tract:Travis County, TX')}&dataset=acs5&vintage=2023`,
    );
    expect(inCounty.statusCode, inCounty.body).toBe(200);
    const countyKeys = new Set((inCounty.json().data as Array<{ geo_key: string }>).map((c) => c.geo_key));
    expect([...countyKeys].sort()).toEqual(['tract:48453000101', `tract:${TRAVIS_TRACT}`, `tract:${SPLIT_TRACT}`]);
    const inDistrict = await ask(`/v1/data?variables=B01003_001E&geo=${encodeURIComponent('tract:TX-35')}&dataset=acs5&vintage=2023`);
    expect(inDistrict.statusCode, inDistrict.body).toBe(200);
    const cdKeys = new Set((inDistrict.json().data as Array<{ geo_key: string }>).map((c) => c.geo_key));
    expect([...cdKeys].sort()).toEqual([`tract:${TRAVIS_TRACT}`, `tract:${SPLIT_TRACT}`]);
  });

  it('serves its shape within the county (/v1/boundaries/tract?within=county:48453)', async () => {
    const res = await ask('/v1/boundaries/tract?within=county:48453&vintage=2023');
    expect(res.statusCode, res.body).toBe(200);
    const ids = (res.json().features as Array<{ properties: Record<string, unknown>; id?: unknown }>).map((f) =>
      String(f.properties.geo_key ?? f.properties.fips ?? f.id),
    );
    expect(ids.some((k) => k.endsWith(TRAVIS_TRACT))).toBe(true);
  });

  it('geocodes a point of the tract to it and to one of its block groups', async () => {
    const res = await ask('/v1/boundaries/tract?within=county:48453&vintage=2023');
    expect(res.statusCode, res.body).toBe(200);
    type Feature = { properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } };
    const f = (res.json().features as Feature[]).find((x) => String(x.properties.geo_key ?? x.properties.geoid).endsWith(TRAVIS_TRACT))!;
    expect(f).toBeDefined();
    // A point inside the tract: the middle of its bounding box, checked to lie inside.
    const flat = (c: unknown): number[][] => (typeof (c as unknown[])[0] === 'number' ? [c as number[]] : (c as unknown[]).flatMap(flat));
    const pts = flat(f.geometry.coordinates);
    const [lng, lat] = [0, 1].map((i) => (Math.min(...pts.map((p) => p[i]!)) + Math.max(...pts.map((p) => p[i]!))) / 2);
    expect(booleanPointInPolygon([lng!, lat!], f.geometry as Parameters<typeof booleanPointInPolygon>[1])).toBe(true);
    const geo = await ask(`/v1/geocode?lat=${lat}&lng=${lng}`);
    expect(geo.statusCode, geo.body).toBe(200);
    const body = JSON.stringify(geo.json());
    expect(body).toContain(`"tract:${TRAVIS_TRACT}"`);
    expect(body).toMatch(new RegExp(`"block_group:${TRAVIS_TRACT}\\d"`));
  });

  it('shows the tract on a profile page with figures (the page and the headline request it makes)', async () => {
    const page = await svc.app.inject({ url: `/profile/tract:${TRAVIS_TRACT}` });
    expect(page.statusCode).toBe(200);
    // The page asks for its headline figures beside the parents (web/profile/load.ts headlinePath).
    const res = await ask(headlinePath(`tract:${TRAVIS_TRACT}`, ['county:48453'], { dataset: 'acs5', vintage: 2023, loaded: true }));
    expect(res.statusCode, res.body).toBe(200);
    const cells = JSON.stringify(res.json());
    // The seed gives the tract plain values here (a jam value would be served as null).
    const population = standin.truth.cell(tract(), 'B01003_001').E!;
    expect(population).toMatch(/^\d+$/);
    expect(cells).toContain(`"estimate":${Number(population)}`);
  });
});
