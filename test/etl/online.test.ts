import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCachePath,
  buildMirrorPlan,
  fetchGroupList,
  IncompleteDownloadError,
  prepareOnlineSource,
  fetchSourceTree,
  fillFromFallback,
  METRO_2017_VARIABLES,
  planFromGroups,
  planFromGroupsJson,
  type FetchPlan,
} from '../../etl/online/index.js';
import { captureLog, startCensusEmulator, type CensusEmulator } from '../support/census-emulator.js';
import { SHARED_CENSUS } from '../support/paths.js';

let emu: CensusEmulator;
beforeAll(async () => {
  emu = await startCensusEmulator();
});
afterAll(async () => {
  await emu.close();
});

const tmp = () => fs.mkdtemp(path.join(os.tmpdir(), 'online-'));
const unzipped = async (root: string, rel: string) => gunzipSync(await fs.readFile(path.join(root, rel)));

const GROUPS = ['B19013', 'B01001', 'B25070', 'C15010', 'B17001'];

describe('fetchSourceTree against the emulator', () => {
  it('mirrors a small plan byte for byte and reuses everything on the second run', async () => {
    const cacheDir = await tmp();
    const plan = planFromGroups({
      vintages: [2018],
      datasets: ['acs1'],
      levels: ['state', 'nation'],
      groups: GROUPS,
      reference: ['geo/state.txt', 'geo/national_county_2010.txt', 'boundaries/cb_2020_us_state_20m.zip'],
    });
    const { log } = captureLog();
    const opts = { cacheDir, plan, apiBase: emu.apiBase, filesBase: emu.filesBase, log, retryBaseMs: 5 };
    const first = await fetchSourceTree(opts);
    expect(first).toEqual({ downloaded: 13, reused: 0, noData: [], failed: [] });
    for (const item of plan.api) {
      const rel = apiCachePath(item);
      const got = await unzipped(cacheDir, rel);
      const want = await unzipped(SHARED_CENSUS, rel);
      expect(got.equals(want), rel).toBe(true);
      expect(JSON.parse(got.toString('utf8'))).toEqual(JSON.parse(want.toString('utf8')));
    }
    for (const rel of plan.reference)
      expect((await fs.readFile(path.join(cacheDir, rel))).equals(await fs.readFile(path.join(SHARED_CENSUS, rel))), rel).toBe(true);

    const before = emu.requests.length;
    const second = await fetchSourceTree(opts);
    expect(second).toEqual({ downloaded: 0, reused: 13, noData: [], failed: [] });
    expect(emu.requests.length).toBe(before);
  });

  it('splits explicit variables into requests of at most 50 and merges them as one response', async () => {
    const cacheDir = await tmp();
    const plan: FetchPlan = {
      api: ['B07009', 'B03002', 'B19013A'].map((group) => ({
        vintage: 2017,
        dataset: 'acs5' as const,
        level: 'metro' as const,
        group,
        variables: METRO_2017_VARIABLES[group],
      })),
      reference: [],
    };
    const from = emu.requests.length;
    const res = await fetchSourceTree({ cacheDir, plan, apiBase: emu.apiBase, log: captureLog().log });
    expect(res.failed).toEqual([]);
    const gets = emu.requests.slice(from).map((r) => new URL(r.url, 'http://x').searchParams.get('get')!.split(','));
    expect(gets.length).toBe(4); // B07009: 73 variables in 2 requests; the others 1 each
    expect(Math.max(...gets.map((g) => g.length))).toBeLessThanOrEqual(50);
    expect(emu.requests.slice(from).every((r) => r.status === 200)).toBe(true);
    for (const item of plan.api) {
      const rel = apiCachePath(item);
      expect((await unzipped(cacheDir, rel)).equals(await unzipped(SHARED_CENSUS, rel)), rel).toBe(true);
    }
  });

  it('the emulator enforces the 50-variable limit as the API does', async () => {
    const vars = METRO_2017_VARIABLES.B07009!.join(',');
    const res = await fetch(
      `${emu.apiBase}/data/2017/acs/acs5?get=${vars}&for=metropolitan%20statistical%20area/micropolitan%20statistical%20area:*`,
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/limited to 50 variables/);
  });

  it('fetches county files by group and by explicit variables (2022 and 2023 acs5)', async () => {
    const cacheDir = await tmp();
    const plan: FetchPlan = {
      api: [
        { vintage: 2022, dataset: 'acs5', level: 'county', group: 'B25001' },
        { vintage: 2023, dataset: 'acs5', level: 'county', group: 'B01003', variables: ['NAME', 'B01003_001E'] },
      ],
      reference: [],
    };
    const res = await fetchSourceTree({ cacheDir, plan, apiBase: emu.apiBase, log: captureLog().log });
    expect(res).toMatchObject({ downloaded: 2, failed: [] });
    for (const item of plan.api) {
      const rel = apiCachePath(item);
      expect((await unzipped(cacheDir, rel)).equals(await unzipped(SHARED_CENSUS, rel)), rel).toBe(true);
    }
  });

  it('reports 204 No Content as no data and writes nothing', async () => {
    const cacheDir = await tmp();
    // B01003 is listed for 2022 acs5 (county) but has no metro file: the API answers 204.
    const plan = planFromGroups({ vintages: [2022], datasets: ['acs5'], levels: ['metro'], groups: ['B01003'] });
    const res = await fetchSourceTree({ cacheDir, plan, apiBase: emu.apiBase, log: captureLog().log });
    expect(res).toEqual({ downloaded: 0, reused: 0, noData: ['api/2022/acs/acs5/metro/B01003.json.gz'], failed: [] });
    await expect(fs.access(path.join(cacheDir, 'api/2022/acs/acs5/metro/B01003.json.gz'))).rejects.toThrow();
  });

  it('builds a plan from groups.json', async () => {
    const groups = await fetchGroupList({ apiBase: emu.apiBase, vintage: 2018, dataset: 'acs1', log: captureLog().log });
    expect(groups.length).toBe(916);
    expect(groups).toContain('B19013');
    const plan = await planFromGroupsJson({
      apiBase: emu.apiBase,
      vintages: [2017, 2018],
      datasets: ['acs1'],
      levels: ['state'],
      log: captureLog().log,
      filter: (g) => g.startsWith('B190'),
    });
    expect(plan.api.length).toBeGreaterThan(10);
    expect(plan.api.every((i) => i.group.startsWith('B190') && i.level === 'state')).toBe(true);
  });

  it('converts reference text files: the BOM of the 2020 census.gov files is dropped, .gz gzipped', async () => {
    const cacheDir = await tmp();
    const plan: FetchPlan = {
      api: [],
      reference: ['geo/cenpop/2020/state.csv', 'geo/cenpop/2020/county.csv.gz', 'geo/cenpop/2010/state.csv'],
    };
    const res = await fetchSourceTree({ cacheDir, plan, filesBase: emu.filesBase, log: captureLog().log });
    expect(res).toMatchObject({ downloaded: 3, failed: [] });
    for (const rel of plan.reference) {
      const read = async (root: string) => {
        const b = await fs.readFile(path.join(root, rel));
        return rel.endsWith('.gz') ? gunzipSync(b) : b;
      };
      expect((await read(cacheDir)).equals(await read(SHARED_CENSUS)), rel).toBe(true);
    }
  });

  it('links the files online mode cannot fetch from the fallback tree, never API values', async () => {
    const cacheDir = await tmp();
    await fetchSourceTree({ cacheDir, plan: { api: [], reference: ['geo/state.txt'] }, filesBase: emu.filesBase, log: captureLog().log });
    const stateTxt = await fs.lstat(path.join(cacheDir, 'geo/state.txt'));
    const { linked } = await fillFromFallback({ cacheDir, fallbackDir: SHARED_CENSUS, log: captureLog().log });
    expect(linked).toContain('geo/cd118/tract2020_to_cd118.csv.gz');
    expect(linked).toContain('geo/ct_tract2020_to_planning_region.csv');
    expect(linked).not.toContain('geo/state.txt');
    expect(linked.some((p) => p.startsWith('api/'))).toBe(false);
    expect((await fs.lstat(path.join(cacheDir, 'geo/state.txt'))).ino).toBe(stateTxt.ino);
    const crosswalk = await fs.readFile(path.join(cacheDir, 'geo/ct_tract2020_to_planning_region.csv'), 'utf8');
    expect(crosswalk.startsWith('tract2020_geoid,')).toBe(true);
    await expect(fs.access(path.join(cacheDir, 'api'))).rejects.toThrow();
  });

  it('the mirror plan reproduces the non-acs1 API files and the reference files of the shared tree', async () => {
    const cacheDir = await tmp();
    const log = captureLog().log;
    const mirror = await buildMirrorPlan({ apiBase: emu.apiBase, log });
    expect(mirror.api.filter((i) => i.dataset === 'acs1' && i.vintage === 2018)).toHaveLength(2 * 916);
    // The acs1 part is the same code path as the tests above; the large files are left out to save CPU.
    const heavy = /cenpop\/\d+\/(tract|block_group)|tl_2022_(?!0[1-6])\d\d_cd118/;
    const plan: FetchPlan = {
      api: mirror.api.filter((i) => i.dataset === 'acs5'),
      reference: mirror.reference.filter((r) => !heavy.test(r)),
    };
    const res = await fetchSourceTree({ cacheDir, plan, apiBase: emu.apiBase, filesBase: emu.filesBase, log, retryBaseMs: 5 });
    // California's TIGER district file is on census.gov but not in the shared tree: a 404, not retried.
    expect(res.failed.map((f) => f.path)).toEqual(['boundaries/cd118/tl_2022_06_cd118.zip']);
    expect(res.failed[0]!.error).toMatch(/tl_2022_06_cd118\.zip: HTTP 404/);
    expect(res.downloaded).toBe(plan.api.length + plan.reference.length - 1);
    for (const item of plan.api) {
      const rel = apiCachePath(item);
      expect((await unzipped(cacheDir, rel)).equals(await unzipped(SHARED_CENSUS, rel)), rel).toBe(true);
    }
    for (const rel of plan.reference.filter((r) => !r.endsWith('.gz') && !r.includes('_06_')))
      expect((await fs.readFile(path.join(cacheDir, rel))).equals(await fs.readFile(path.join(SHARED_CENSUS, rel))), rel).toBe(true);
  });

  it('prepareOnlineSource refuses to fill failed downloads from the fallback tree', async () => {
    const cacheDir = await tmp();
    const plan: FetchPlan = { api: [], reference: ['geo/state.txt', 'boundaries/cd118/tl_2022_48_cd118.zip'] };
    const base = { cacheDir, plan, filesBase: emu.filesBase, fallbackDir: SHARED_CENSUS, log: captureLog().log, retryBaseMs: 5 };
    const err = await prepareOnlineSource(base).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IncompleteDownloadError);
    expect(String(err)).toMatch(/tl_2022_48_cd118\.zip: .*HTTP 404/);
    await expect(fs.lstat(path.join(cacheDir, 'geo/cd118/cd118_list.csv'))).rejects.toThrow();

    const ok = await prepareOnlineSource({ ...base, plan: { api: [], reference: ['geo/state.txt'] } });
    expect(ok.sourceDir).toBe(cacheDir);
    expect(ok.result.reused).toBe(1);
    expect(ok.linked).toContain('boundaries/cd118/tl_2022_48_cd118.zip'.replace('48', '01'));
    // A later run that does plan a linked file downloads it instead of trusting the link.
    const again = await fetchSourceTree({ ...base, plan: { api: [], reference: ['boundaries/cd118/tl_2022_01_cd118.zip'] } });
    expect(again).toMatchObject({ downloaded: 1, reused: 0 });
    expect((await fs.lstat(path.join(cacheDir, 'boundaries/cd118/tl_2022_01_cd118.zip'))).isSymbolicLink()).toBe(false);
  });
});
