// Issue 34 §1: on a machine with no ../shared (an empty --fallback-source), the reference files the
// geography levels need come from the census.gov stand-in alone, in the Bureau's formats, and the
// geographies step builds every level from them. The step alone, so it is fast; the whole judging
// scenario (CLI build, then the service) is test/scenario/no-shared-build.test.ts
// (`npm run test:scenario`, minutes). The reference facts are the stand-in's truth.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUREAU_REFERENCE_FILES } from '../../etl/online/reference-bureau.js';
import { prepareOnlineSource } from '../../etl/online/prepare.js';
import { buildGeoFile } from '../../etl/steps/geographies/build.js';
import type { GeoFile } from '../../src/store/geographies/format.js';
import { captureLog } from '../support/census-emulator.js';
import { startCensusStandin, StandinTruth, type CensusStandin, type StandinGeography } from '../support/census-standin.js';
import { tractDistrictShares } from '../support/standin/reference-lists.js';
import { scenarioTruth } from '../support/standin/scenario.js';

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
