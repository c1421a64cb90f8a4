import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { apiCachePath, buildMirrorPlan, FatalFetchError, fetchSourceTree, planFromGroups, type FetchPlan } from '../../etl/online/index.js';
import { captureLog, startCensusEmulator, type CensusEmulator, type EmulatorOptions } from '../support/census-emulator.js';
import { SHARED_CENSUS } from '../support/paths.js';

let emu: CensusEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const start = async (o?: EmulatorOptions) => (emu = await startCensusEmulator(o));
const tmp = () => fs.mkdtemp(path.join(os.tmpdir(), 'online-faults-'));
const plan = (groups: string[], levels: Array<'state' | 'nation'> = ['state']): FetchPlan =>
  planFromGroups({ vintages: [2018], datasets: ['acs1'], levels, groups });
const same = async (cacheDir: string, rel: string) =>
  gunzipSync(await fs.readFile(path.join(cacheDir, rel))).equals(gunzipSync(await fs.readFile(path.join(SHARED_CENSUS, rel))));
const B19013 = 'api/2018/acs/acs1/state/B19013.json.gz';

async function run(e: CensusEmulator, p: FetchPlan, extra: { cacheDir?: string; retries?: number; apiKey?: string } = {}) {
  const cacheDir = extra.cacheDir ?? (await tmp());
  const { log, lines } = captureLog();
  const result = await fetchSourceTree({
    cacheDir,
    plan: p,
    apiBase: e.apiBase,
    filesBase: e.filesBase,
    log,
    retries: extra.retries ?? 3,
    retryBaseMs: 5,
    maxRetryDelayMs: 3000,
    apiKey: extra.apiKey,
    concurrency: 2,
  });
  return { cacheDir, result, lines };
}

describe('online mode faults', () => {
  it('waits for Retry-After on 429, then succeeds', async () => {
    const e = await start();
    e.inject({ match: 'group(B19013)', kind: '429', retryAfter: '1' });
    const t0 = Date.now();
    const { cacheDir, result, lines } = await run(e, plan(['B19013']));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(result).toMatchObject({ downloaded: 1, failed: [] });
    expect(e.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(lines.some((l) => /HTTP 429.*retry 1\/3 in 1000 ms/.test(l))).toBe(true);
    expect(await same(cacheDir, B19013)).toBe(true);
  });

  it('retries 503 and a connection reset', async () => {
    const e = await start();
    e.inject({ match: 'group(B19013)', kind: '503' });
    e.inject({ match: 'group(B19013)', kind: 'reset' });
    const { cacheDir, result } = await run(e, plan(['B19013']));
    expect(result).toMatchObject({ downloaded: 1, failed: [] });
    expect(e.requests.map((r) => r.status)).toEqual([503, 0, 200]);
    expect(await same(cacheDir, B19013)).toBe(true);
  });

  it('gives up after the bounded tries with an error naming the URL', async () => {
    const e = await start();
    e.inject({ match: 'group(B19013)', kind: '503', times: 100 });
    const { cacheDir, result } = await run(e, plan(['B19013', 'B01001']), { retries: 2 });
    expect(result.downloaded).toBe(1);
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]!.path).toBe(B19013);
    expect(result.failed[0]!.error).toMatch(/\/data\/2018\/acs\/acs1\?get=group\(B19013\)&for=state:\*: HTTP 503.*after 3 tries/);
    expect(e.requests.filter((r) => r.url.includes('B19013'))).toHaveLength(3);
    await expect(fs.access(path.join(cacheDir, B19013))).rejects.toThrow();
  });

  const malformed: Array<[string, string, RegExp]> = [
    ['not JSON', '[["GEO_ID","state"],["0400000US01"', /not valid JSON/],
    [
      'a row of the wrong width',
      '[["GEO_ID","B19013_001E","state"],\n["0400000US01","1","01"],\n["0400000US02","01"]]',
      /row 2 has 2 cells, the header 3/,
    ],
    ['a number cell', '[["GEO_ID","B19013_001E","state"],\n["0400000US01",49861,"01"]]', /B19013_001E: 49861 is not a string or null/],
    ['no header row', '[[1,2],["a","b"]]', /not a header/],
    ['an object', '{"error":"x"}', /not a non-empty JSON array/],
    ['geography not last', '[["state","B19013_001E"],\n["01","1"]]', /does not end with the geography column/],
  ];
  it.each(malformed)('rejects a body with %s and never caches it', async (_name, body, why) => {
    const e = await start();
    e.inject({ match: 'group(B19013)', kind: 'body', body, times: 100 });
    const { cacheDir, result } = await run(e, plan(['B19013']), { retries: 1 });
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]!.error).toMatch(/malformed body/);
    expect(result.failed[0]!.error).toMatch(why);
    // Not even a temp file: nothing at all is written for a rejected body.
    expect(await fs.readdir(cacheDir, { recursive: true })).toEqual([]);
  });

  it('rejects an HTML page sent with status 200, and recovers when the next answer is good', async () => {
    const e = await start();
    e.inject({ match: 'group(B19013)', kind: 'html200' });
    const { cacheDir, result, lines } = await run(e, plan(['B19013']));
    expect(result).toMatchObject({ downloaded: 1, failed: [] });
    expect(lines.some((l) => l.includes('an HTML page instead of JSON ("Census Data API: maintenance")'))).toBe(true);
    expect(await same(cacheDir, B19013)).toBe(true);
  });

  it('retries a connection cut mid-body and stores the complete file', async () => {
    const e = await start();
    e.inject({ match: 'group(B01001)', kind: 'truncate' });
    e.inject({ match: 'state.txt', kind: 'truncate' });
    const p: FetchPlan = { ...plan(['B01001']), reference: ['geo/state.txt'] };
    const { cacheDir, result } = await run(e, p);
    expect(result).toMatchObject({ downloaded: 2, failed: [] });
    expect(e.requests.filter((r) => r.fault === 'truncate')).toHaveLength(2);
    expect(await same(cacheDir, 'api/2018/acs/acs1/state/B01001.json.gz')).toBe(true);
    expect(
      (await fs.readFile(path.join(cacheDir, 'geo/state.txt'))).equals(await fs.readFile(path.join(SHARED_CENSUS, 'geo/state.txt'))),
    ).toBe(true);
  });

  it('resumes an interrupted run: only missing or damaged files are fetched again', async () => {
    const e = await start();
    const p = plan(['B19013', 'B01001', 'B17001', 'B25070'], ['state', 'nation']);
    // First run: downloads die mid-body with no retries left, as if the process had been killed.
    e.inject({ match: 'group(B01001)&for=state', kind: 'truncate' });
    e.inject({ match: 'group(B17001)&for=us', kind: 'truncate' });
    const first = await run(e, p, { retries: 0 });
    expect(first.result.downloaded).toBe(6);
    expect(first.result.failed.map((f) => f.path).sort()).toEqual([
      'api/2018/acs/acs1/nation/B17001.json.gz',
      'api/2018/acs/acs1/state/B01001.json.gz',
    ]);
    const { cacheDir } = first;
    const stateDir = path.join(cacheDir, 'api/2018/acs/acs1/state');
    expect((await fs.readdir(stateDir)).sort()).toEqual(['B17001.json.gz', 'B19013.json.gz', 'B25070.json.gz']);
    // Damage the cache the ways a crash or a careless copy would: a partial temp file of a dead
    // process, and a complete-looking file cut short.
    await fs.writeFile(path.join(stateDir, 'B01001.json.gz.partial-999999999-abcd'), 'half');
    const good = await fs.readFile(path.join(stateDir, 'B25070.json.gz'));
    await fs.writeFile(path.join(stateDir, 'B25070.json.gz'), good.subarray(0, good.length - 20));

    const before = e.requests.length;
    const second = await run(e, p, { cacheDir });
    expect(second.result).toEqual({ downloaded: 3, reused: 5, noData: [], failed: [] });
    expect(second.lines.some((l) => l.includes('removed 1 partial files'))).toBe(true);
    expect(
      e.requests
        .slice(before)
        .map((r) => r.url)
        .sort(),
    ).toEqual([
      '/data/2018/acs/acs1?get=group(B01001)&for=state:*',
      '/data/2018/acs/acs1?get=group(B17001)&for=us:*',
      '/data/2018/acs/acs1?get=group(B25070)&for=state:*',
    ]);
    for (const item of p.api) expect(await same(cacheDir, apiCachePath(item)), apiCachePath(item)).toBe(true);
    expect((await fs.readdir(stateDir)).some((n) => n.includes('.partial-'))).toBe(false);
  });

  it('falls back to the variable list when a group is too wide for one request', async () => {
    const e = await start({ maxGroupWidth: 20 });
    const { cacheDir, result } = await run(e, plan(['B01001', 'B19013']));
    expect(result).toMatchObject({ downloaded: 2, failed: [] });
    const urls = e.requests.map((r) => r.url);
    expect(urls).toContain('/data/2018/acs/acs1/groups/B01001.json');
    const chunks = urls.filter((u) => /get=GEO_ID|get=B01001_/.test(u));
    expect(chunks.length).toBe(4); // 198 columns in requests of at most 50
    expect(await same(cacheDir, 'api/2018/acs/acs1/state/B01001.json.gz')).toBe(true);
    expect(await same(cacheDir, B19013)).toBe(true);
  });

  it('sends the API key but never logs it, not even in errors', async () => {
    const key = 'sekrit-0123456789abcdef';
    const e = await start({ requireKey: key });
    e.inject({ match: 'group(B19013)', kind: '503', times: 100 });
    const { result, lines } = await run(e, plan(['B19013', 'B01001']), { apiKey: key, retries: 1 });
    expect(result.downloaded).toBe(1);
    expect(e.requests.every((r) => r.url.includes(`key=${key}`))).toBe(true);
    expect(result.failed[0]!.error).toContain('key=***');
    const everything = [...lines, ...result.failed.map((f) => f.error)].join('\n');
    expect(everything).not.toContain(key);
    expect(lines.length).toBeGreaterThan(2);
  });

  it('stops the run when the API rejects the key', async () => {
    const e = await start({ requireKey: 'right' });
    const err = await run(e, plan(['B19013', 'B01001', 'B17001', 'B25070', 'B02001']), { apiKey: 'wrong-key-value' }).catch(
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(FatalFetchError);
    expect(String(err)).toMatch(/rejected the API key/);
    expect(String(err)).not.toContain('wrong-key-value');
    expect(e.requests.length).toBeLessThanOrEqual(2); // no retries, nothing new started
  });

  it('stops the run when the API demands a key that was not given', async () => {
    const e = await start({ requireKey: 'right' });
    const err = await run(e, plan(['B19013'])).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(FatalFetchError);
    expect(String(err)).toMatch(/requires an API key.*--census-api-key/);
    expect(e.requests.map((r) => r.status)).toEqual([302, 200]);
    // The same for the groups.json listing a mirror plan starts with.
    const listing = await buildMirrorPlan({ apiBase: e.apiBase, apiKey: 'wrong', log: captureLog().log }).catch((x: unknown) => x);
    expect(String(listing)).toMatch(/rejected the API key/);
  });

  it('a gzip that does not decompress is never reused', async () => {
    const e = await start();
    const cacheDir = await tmp();
    const file = path.join(cacheDir, B19013);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, gzipSync(Buffer.from('[["x","state"]]')).subarray(0, 10));
    const { result } = await run(e, plan(['B19013']), { cacheDir });
    expect(result).toMatchObject({ downloaded: 1, reused: 0 });
    expect(await same(cacheDir, B19013)).toBe(true);
  });
});
