// `npm run test:resume` (minutes, so not part of `npm test`): `etl build --online` killed with
// SIGKILL at seeded random points of the download and of the build steps, then run again until it
// completes, ends in the same build as an uninterrupted run: the same manifest checksums (`files`)
// and the same step entries (inputs, outputs, rows, notes), build id, dates and seconds aside. All
// the while `current` never points at an incomplete build: a watcher checks every build it ever
// points at (sealed manifest, every file it lists present at its size), and after each kill.
//
// The scenario is an operator's: a live build of the default data (a hard-linked copy of the test
// data build), to which a selection adds Texas tracts of three tables downloaded from the Data
// API stand-in (test/support/census-standin.ts); what the selection does not download comes from
// the shared tree (--fallback-source), so the catalogue, tables and boundaries steps are reused and
// the observations and geographies steps rebuilt, as they are for such a selection.
import { spawn } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest, resolveCurrentBuild, type Manifest } from '../../src/store/data-dir.js';
import { startCensusStandin, type CensusStandin, type StandinGeography } from '../support/census-standin.js';
import { REPO_ROOT, SHARED_CENSUS } from '../support/paths.js';
import { testBuildDir } from '../support/build.js';
import { standinBuildArgs } from '../support/standin-build.js';

const GEOS: StandinGeography[] = [
  { level: 'nation', fips: ['1'], name: 'United States' },
  { level: 'state', fips: ['48'], name: 'Texas' },
  { level: 'county', fips: ['48', '453'], name: 'Travis County, Texas' },
  { level: 'tract', fips: ['48', '453', '000101'], name: 'Census Tract 1.01; Travis County; Texas' },
  { level: 'tract', fips: ['48', '453', '000102'], name: 'Census Tract 1.02; Travis County; Texas' },
];
const TABLES = { B01003: 1, B19013: 1, B25003: 3 };
/** Per request, so the download (three files, fetched together) lasts long enough to be killed in. */
const DELAY_MS = 1500;
const SEED = 34;

let standin: CensusStandin;
let tmp: string;
let base: string;

/** A copy of a build directory by hard links (builds are never written in place). */
async function linkTree(from: string, to: string): Promise<void> {
  if ((await fs.lstat(from)).isDirectory()) {
    await fs.mkdir(to, { recursive: true });
    for (const e of await fs.readdir(from)) await linkTree(path.join(from, e), path.join(to, e));
  } else await fs.link(from, to);
}

/** A data directory whose live build is (a copy of) the test data build. */
async function dataDirWithBase(dir: string): Promise<string> {
  const data = path.join(dir, 'data');
  await linkTree(base, path.join(data, 'builds', path.basename(base)));
  await fs.symlink(path.join('builds', path.basename(base)), path.join(data, 'current'));
  return data;
}

/** Why the build `current` points at is not complete, or null when it is (or there is none). */
function incomplete(dataDir: string): string | null {
  let target: string;
  try {
    target = fsSync.realpathSync(path.join(dataDir, 'current'));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : String(e);
  }
  let m: Manifest;
  try {
    m = readManifest(target);
  } catch (e) {
    return `${target}: ${(e as Error).message}`;
  }
  for (const [rel, f] of Object.entries(m.files ?? {})) {
    const st = fsSync.statSync(path.join(target, rel), { throwIfNoEntry: false });
    if (!st || st.size !== f.bytes) return `${target}: ${rel} ${st ? `has ${st.size} bytes, not ${f.bytes}` : 'is missing'}`;
  }
  return Object.keys(m.files ?? {}).length ? null : `${target}: manifest lists no files`;
}

/** What must be the same in two builds of the same inputs. */
function comparable(dataDir: string) {
  const m = readManifest(resolveCurrentBuild(dataDir)!);
  return {
    files: m.files,
    steps: Object.fromEntries(
      Object.entries(m.steps).map(([k, s]) => [
        k,
        { version: s.version, inputs: s.inputs, outputs: s.outputs, rows: s.rows, notes: s.notes },
      ]),
    ),
  };
}

type Phase = 'download' | 'build';
interface Run {
  code: number | null;
  killed: boolean;
  /** Milliseconds from the start: the first request the stand-in saw, the download's end, the exit. */
  downloadAt?: number;
  buildAt?: number;
  exitAt: number;
  /** The last progress line before the kill. */
  lastLine: string;
  /** What the watcher of `current` saw wrong, if anything. */
  violations: string[];
}

/**
 * One `etl build --online` run; `kill`: SIGKILL it `afterMs` after its phase began (the download:
 * the stand-in's first request; the build: the download's summary line, then the fallback's links,
 * the inputs' checksums, each step, the manifest, the swap of `current` and the pruning).
 */
async function etlBuild(dir: string, kill?: { phase: Phase; afterMs: number }): Promise<Run> {
  const data = path.join(dir, 'data');
  const args = standinBuildArgs(standin, {
    dir,
    fallback: SHARED_CENSUS,
    datasets: ['acs5'],
    vintages: [2023],
    levels: ['tract'],
    states: ['48'],
    tables: TABLES,
  });
  const t0 = Date.now();
  // Node itself with tsx's loader, in a process group of its own: the tsx command runs the script in
  // a child process, so a SIGKILL to it alone left the build running on as an orphan.
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const run: Run = { code: null, killed: false, exitAt: 0, lastLine: '', violations: [] };
  const requestsBefore = standin.requests.length;
  child.stderr.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) {
      if (!line.trim()) continue;
      run.lastLine = line.slice(0, 160);
      if (run.buildAt === undefined && /^online: \d+ downloaded/.test(line.trim())) run.buildAt = Date.now() - t0;
    }
  });
  let lastTarget = '';
  let fired = false;
  const watch = setInterval(() => {
    const now = Date.now() - t0;
    if (run.downloadAt === undefined && standin.requests.length > requestsBefore) run.downloadAt = now;
    let target = '';
    try {
      target = fsSync.readlinkSync(path.join(data, 'current'));
    } catch {
      /* none yet */
    }
    if (target !== lastTarget) {
      lastTarget = target;
      const why = incomplete(data);
      if (why) run.violations.push(why);
    }
    if (!kill || fired) return;
    const began = kill.phase === 'download' ? run.downloadAt : run.buildAt;
    if (began !== undefined && now - began >= kill.afterMs) {
      fired = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
        run.killed = true;
      } catch {
        // Exited meanwhile: reported as finished first, by its exit code.
      }
    }
  }, 5);
  run.code = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  clearInterval(watch);
  run.exitAt = Date.now() - t0;
  const why = incomplete(data);
  if (why) run.violations.push(why);
  return run;
}

/** Seeded uniform numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'build-resume-'));
  base = await testBuildDir();
  standin = await startCensusStandin(
    { seed: SEED, vintage: 2023, dataset: 'acs5', geographies: GEOS, tables: TABLES },
    { delayMs: DELAY_MS },
  );
});
afterAll(async () => {
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('etl build --online killed and run again', () => {
  it('ends, after a SIGKILL at each of five random points of the download or the build, in the build an uninterrupted run makes, never publishing a partial one', async () => {
    const whole = path.join(tmp, 'whole');
    await dataDirWithBase(whole);
    const reference = await etlBuild(whole);
    expect(reference.code).toBe(0);
    expect(reference.violations).toEqual([]);
    expect(reference.downloadAt).toBeDefined();
    expect(reference.buildAt).toBeGreaterThan(reference.downloadAt!);
    const want = comparable(path.join(whole, 'data'));
    expect(resolveCurrentBuild(path.join(whole, 'data'))).not.toBe(base);
    // The selection's cells are in the new build: the observations step was rebuilt with them.
    expect(Object.keys(want.files ?? {}).some((f) => f.includes('vintage=2023/level=tract'))).toBe(true);

    const rand = random(SEED);
    const downloadMs = reference.buildAt! - reference.downloadAt!;
    const buildMs = reference.exitAt - reference.buildAt!;
    const phases: Phase[] = ['download', 'download', 'build', 'build', 'build'];
    const report: string[] = [];
    for (const [i, phase] of phases.entries()) {
      const dir = path.join(tmp, `trial-${i}`);
      await dataDirWithBase(dir);
      // Anywhere in the phase (the build's: short of its last 5%, where a kill may come too late).
      const afterMs = Math.floor(rand() * (phase === 'download' ? downloadMs : 0.95 * buildMs));
      const killed = await etlBuild(dir, { phase, afterMs });
      report.push(`${phase} +${afterMs} ms: ${killed.killed ? `killed after "${killed.lastLine}"` : `finished first (${killed.code})`}`);
      expect(killed.violations, report.at(-1)).toEqual([]);
      let runs = 0;
      let last: Run;
      do {
        last = await etlBuild(dir);
        expect(last.violations, report.at(-1)).toEqual([]);
      } while (last.code !== 0 && ++runs < 3);
      expect(last.code, report.at(-1)).toBe(0);
      expect(comparable(path.join(dir, 'data')), report.at(-1)).toEqual(want);
      // Nothing a killed run left behind remains once a run has completed.
      const builds = await fs.readdir(path.join(dir, 'data', 'builds'));
      expect(
        builds.filter((e) => e.startsWith('.')),
        report.at(-1),
      ).toEqual([]);
      expect(
        (await fs.readdir(path.join(dir, 'data'))).filter((e) => e.startsWith('.')),
        report.at(-1),
      ).toEqual([]);
      await fs.rm(dir, { recursive: true, force: true });
    }
    process.stderr.write(`build-resume kills:\n  ${report.join('\n  ')}\n`);
    expect(report.filter((r) => r.includes('killed')).length).toBeGreaterThanOrEqual(4);
  });
});
