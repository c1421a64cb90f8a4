// Killing an online download (SIGKILL, at seeded random points) and running it again ends in the
// same cache, byte for byte, as an uninterrupted run: complete files are kept, partial ones never
// read and removed (etl/online/cache.ts). The download runs in a child process, as the CLI's does.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCensusStandin, type CensusStandin, type StandinGeography } from '../support/census-standin.js';
import { REPO_ROOT } from '../support/paths.js';

const GEOS: StandinGeography[] = [
  { level: 'nation', fips: ['1'], name: 'United States' },
  { level: 'state', fips: ['48'], name: 'Texas' },
  { level: 'county', fips: ['48', '453'], name: 'Travis County, Texas' },
  { level: 'tract', fips: ['48', '453', '000101'], name: 'Census Tract 1.01; Travis County; Texas' },
  { level: 'tract', fips: ['48', '453', '000102'], name: 'Census Tract 1.02; Travis County; Texas' },
];
const TABLES = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`B2500${String(i + 1).padStart(2, '0')}`, 3 + i]));

// The download a CLI run makes for a selection (acs5 2023, four levels, state 48, twelve tables),
// selections, through the same functions (selection → plan → prepareOnlineSource), in a child.
const SCRIPT = `
import { parseSelection, planSelection, fetchSourceTree } from '../etl/online/index.ts';
const [apiBase, cacheDir, tables] = process.argv.slice(-3);
const sel = parseSelection({ datasets: 'acs5', vintages: '2023', levels: 'nation,state,county,tract', states: '48', tables });
const plan = await planSelection(sel, async () => []);
const log = { info() {}, warn() {}, progress: () => ({ increment() {}, stop() {} }) };
const r = await fetchSourceTree({ cacheDir, plan, apiBase, log, concurrency: 2, retryBaseMs: 5 });
process.stdout.write(JSON.stringify(r));
`;

let standin: CensusStandin;
let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'online-resume-'));
  await fs.writeFile(path.join(REPO_ROOT, '.cache', 'online-resume-child.mts'), SCRIPT);
  standin = await startCensusStandin({ seed: 5, vintage: 2023, dataset: 'acs5', geographies: GEOS, tables: TABLES }, { delayMs: 15 });
});
afterAll(async () => {
  await standin?.close();
  await fs.rm(path.join(REPO_ROOT, '.cache', 'online-resume-child.mts'), { force: true });
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

/** Run the download; with `killAfter`, SIGKILL it once the stand-in has seen that many more requests. */
async function download(cacheDir: string, killAfter?: number): Promise<{ killed: boolean; out: string }> {
  const start = standin.requests.length;
  // Node itself with tsx's loader: the tsx command runs the script in a child process of its own,
  // so a SIGKILL to it left the download running on as an orphan beside the next run.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, '.cache', 'online-resume-child.mts'),
      standin.apiBase,
      cacheDir,
      Object.keys(TABLES).join(','),
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  let killed = false;
  const timer =
    killAfter === undefined
      ? undefined
      : setInterval(() => {
          if (standin.requests.length - start >= killAfter && !killed) {
            killed = child.kill('SIGKILL');
          }
        }, 2);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (timer) clearInterval(timer);
  if (!killed) expect(code).toBe(0);
  return { killed, out };
}

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) await walk(r);
      else
        out[r] = createHash('sha256')
          .update(await fs.readFile(path.join(dir, r)))
          .digest('hex');
    }
  };
  await walk('');
  return out;
}

describe('resuming a killed download', () => {
  it('ends, after kills at random points, in the cache an uninterrupted run writes', async () => {
    const whole = path.join(tmp, 'whole');
    await download(whole);
    const want = await tree(whole);
    expect(Object.keys(want).filter((k) => k.startsWith('api/'))).toHaveLength(4 * Object.keys(TABLES).length);
    // The tract files' per-state parts (the unit a resume keeps).
    expect(Object.keys(want).filter((k) => k.startsWith('parts/'))).toHaveLength(Object.keys(TABLES).length);

    const resumed = path.join(tmp, 'resumed');
    // Seeded "random" points: early, middle, late in the 48-file, ~60-request download.
    let kills = 0;
    for (const at of [3, 17, 29]) if ((await download(resumed, at)).killed) kills++;
    expect(kills).toBeGreaterThanOrEqual(2);
    const last = await download(resumed);
    const result = JSON.parse(last.out) as { downloaded: number; reused: number; failed: unknown[] };
    expect(result.failed).toEqual([]);
    expect(result.reused).toBeGreaterThan(0);
    expect(await tree(resumed)).toEqual(want);
  }, 300_000);
});
