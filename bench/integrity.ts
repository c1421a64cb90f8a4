// `npx tsx bench/integrity.ts`: what checking files against the manifest's checksums costs, at
// start and at a partition's first request, for the two places it can be paid:
//
//   * none  — the same build with a manifest without `files` (a build made before checksums): the
//             baseline, format checks only;
//   * lazy  — the default: files read at open are hashed before they load, each partition's
//             Parquet file and serving index on its first request;
//   * start — every partition hashed while the stores open (openDataStores hashAtStart).
//
// Each round opens the stores of the build (BENCH_BUILD, default the test build) once per mode,
// in turn, then times the first point lookup (one state, one code: the serving index) and the first
// DuckDB read of another partition (every state, 13 vintages). The page cache is warm after the
// first round, as on a server that restarts; medians over BENCH_ROUNDS (5).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDataStores } from '../src/store/open.js';
import { readManifest } from '../src/store/data-dir.js';
import { testBuildDir } from '../test/support/build.js';
import { nowMs } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const quiet = { warn: () => {} };

/** A view of `build` whose manifest has no checksums: every other entry a symlink to the real one. */
function withoutChecksums(build: string): { dir: string; remove(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-integrity-'));
  const dir = path.join(root, path.basename(build));
  fs.mkdirSync(dir);
  for (const e of fs.readdirSync(build)) if (e !== 'manifest.json') fs.symlinkSync(path.join(build, e), path.join(dir, e));
  const { files: _files, manifest_sha256: _seal, ...older } = readManifest(build);
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(older));
  return { dir, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function once(dir: string, hashAtStart: boolean) {
  let t = nowMs();
  const { stores, close } = await openDataStores(dir, quiet, { cacheCells: 0, hashAtStart });
  const open = nowMs() - t;
  const obs = stores.observations!;
  t = nowMs();
  await obs.fetch({ dataset: 'acs1', vintages: [2012], level: 'state', geoKeys: ['state:06'], codes: ['B19013_001E'] });
  const point = nowMs() - t;
  t = nowMs();
  await obs.fetch({
    dataset: 'acs1',
    vintages: [2005, 2006, 2007, 2008, 2009, 2010, 2011, 2013, 2014, 2015, 2017, 2018],
    level: 'state',
    geoKeys: 'all',
    codes: ['B19013_001E'],
  });
  const scan = nowMs() - t;
  t = nowMs();
  await obs.fetch({ dataset: 'acs1', vintages: [2012], level: 'state', geoKeys: ['state:36'], codes: ['B19013_001E'] });
  const second = nowMs() - t;
  close();
  return { open, point, scan, second };
}

const build = process.env.BENCH_BUILD ?? (await testBuildDir());
const older = withoutChecksums(build);
const modes = { none: () => once(older.dir, false), lazy: () => once(build, false), start: () => once(build, true) };
const results: Record<string, Array<Awaited<ReturnType<typeof once>>>> = { none: [], lazy: [], start: [] };
try {
  await modes.none(); // warm the page cache
  for (let r = 0; r < ROUNDS; r++) for (const [m, run] of Object.entries(modes)) results[m]!.push(await run());
} finally {
  older.remove();
}
const base = results.none!;
console.log(`build ${build}, ${ROUNDS} rounds, load ${os.loadavg()[0]!.toFixed(1)} (medians, ms; ratio to none)`);
for (const [m, rs] of Object.entries(results)) {
  const cell = (k: 'open' | 'point' | 'scan' | 'second') => {
    const v = median(rs.map((x) => x[k]));
    return `${k} ${v.toFixed(1)} (${(v / median(base.map((x) => x[k]))).toFixed(2)}×)`;
  };
  console.log(
    `${m.padEnd(6)} ${cell('open')}  first point ${cell('point')}  first scan of 12 partitions ${cell('scan')}  next point ${cell('second')}`,
  );
}
