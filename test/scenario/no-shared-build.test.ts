// Issue 34, first judging scenario: a machine with no ../shared (CENSUS_SOURCE_DIR and
// --fallback-source an empty directory), the census.gov stand-in alone at --api-base/--files-base:
// `etl build --online` of acs5 2023 for two states (DC and Texas) at all levels, then the service:
// a Travis County tract's values cell for cell, its name, its shape within the county, geocoding
// to it, `tract:Travis County, TX` and `tract:TX-35`, and its profile page. Minutes, so not in
// `npm test`: `npm run test:scenario`. The values are the stand-in's truth (random), in temporary
// directories only.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import { startCensusStandin, type CensusStandin } from '../support/census-standin.js';
import { REPO_ROOT } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { scenarioTruth, SCENARIO_TABLES } from '../support/standin/scenario.js';
import { headlinePath } from '../../web/profile/load.js';

const run = promisify(execFile);
const KEY = 'standin-key-no-shared-34';
const TRAVIS_TRACT = '48453000308';
const SPLIT_TRACT = '48453000309';

describe('judging scenario 1: build acs5 2023 for two states at all levels with no ../shared, then serve', () => {
  let standin: CensusStandin;
  let tmp: string;
  let svc: Service;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'no-shared-build-'));
    standin = await startCensusStandin(scenarioTruth(), { requireKey: KEY });
    const empty = path.join(tmp, 'empty');
    await fs.mkdir(empty);
    const args = [
      'etl/cli.ts',
      'build',
      '--online',
      '--api-base',
      standin.apiBase,
      '--files-base',
      standin.filesBase,
      '--datasets',
      'acs5',
      '--vintages',
      '2023',
      '--levels',
      'all',
      '--states',
      '11,48',
      '--tables',
      Object.keys(SCENARIO_TABLES).join(','),
      '--cache-dir',
      path.join(tmp, 'cache'),
      '--data-dir',
      path.join(tmp, 'data'),
      '--fallback-source',
      empty,
    ];
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
