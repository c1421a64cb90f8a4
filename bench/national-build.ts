// `npm run bench:national-build`: the national build from the ACS table-based Summary File, then
// bench:national on it (issue 34 §3).
//
//   * the stand-in's Summary File for the nation (test/support/standin/summary-file.ts: every
//     state, ~332,000 geographies of 2020 definitions — 85,395 tracts, 242,335 block groups — the
//     catalogue's tables, its own random values) served over HTTP on localhost, streamed;
//   * `etl build --online --values-source summary-file --catalog --datasets acs5 --vintages 2023
//     --levels all` into BENCH_DIR (default .cache/national-build), reference files from
//     --fallback-source (../shared/census), run under /usr/bin/time -v for its peak resident memory
//     (the target: ≤ 4 GB whatever the input size);
//   * figures: wall time (download and build), peak RSS, disk (cache and build), cells per second,
//     the load average sampled every 5 s through the run (the machine may be shared);
//   * then bench:national on the result (BENCH_ALLOW_REAL=1, DATA_DIR = the build), unless
//     BENCH_SKIP_SERVING=1.
//
// Env: BENCH_DIR, BENCH_KEEP_CACHE=1 (keep the downloaded files: a second run measures the build
// alone), BENCH_SKIP_SERVING=1, BENCH_JSON (write the figures), and bench:national's own.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalogCodes } from '../etl/synthetic/generate.js';
import { readManifest, resolveCurrentBuild } from '../src/store/data-dir.js';
import { startSummaryFileServer, SummaryFileTruth } from '../test/support/standin/summary-file.js';

const DIR = path.resolve(process.env.BENCH_DIR ?? '.cache/national-build');
const VINTAGE = 2023;
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

function du(p: string): number {
  if (!fs.existsSync(p)) return 0;
  return Number(execFileSync('du', ['-sbL', p]).toString().split('\t')[0]) || 0;
}

function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const [a, b] = [path.join(from, e.name), path.join(to, e.name)];
    if (e.isDirectory()) linkTree(a, b);
    else fs.linkSync(a, b);
  }
}

async function main() {
  // The catalogue's tables, each as wide as its highest catalogued line (B01001: 49 estimates).
  const tables: Record<string, number> = {};
  for (const code of catalogCodes()) {
    const t = code.slice(0, code.indexOf('_'));
    tables[t] = Math.max(tables[t] ?? 0, Number(code.slice(t.length + 1, -1)));
  }
  const truth = new SummaryFileTruth({ seed: 34, vintage: VINTAGE, tables });
  const counts: Record<string, number> = {};
  for (const g of truth.geographies) counts[g.level] = (counts[g.level] ?? 0) + 1;
  const server = await startSummaryFileServer(truth);
  const cacheDir = path.join(DIR, 'cache');
  const dataDir = path.join(DIR, 'data');
  if (process.env.BENCH_KEEP_CACHE !== '1') fs.rmSync(cacheDir, { recursive: true, force: true });
  // Only the downloaded Summary File is kept: what an earlier run linked from the fallback goes.
  for (const e of fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [])
    if (e !== 'summary-file') fs.rmSync(path.join(cacheDir, e), { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
  // BENCH_SEED (default .cache/test-data): a previous build whose catalog, census-tables and
  // boundaries steps have the same inputs, so the run builds only what the national values change
  // (observations, geographies); BENCH_SEED=none for a build from nothing.
  const seedData = process.env.BENCH_SEED ?? '.cache/test-data';
  const seed = seedData === 'none' ? null : resolveCurrentBuild(path.resolve(seedData));
  if (seed) {
    linkTree(seed, path.join(dataDir, 'builds', path.basename(seed)));
    fs.symlinkSync(path.join('builds', path.basename(seed)), path.join(dataDir, 'current'));
  }
  // The reference files only (no api/ values): the build holds the Summary File's values alone.
  const source = path.resolve(process.env.CENSUS_SOURCE_DIR ?? '../shared/census');
  const fallback = path.join(DIR, 'fallback');
  fs.rmSync(fallback, { recursive: true, force: true });
  fs.mkdirSync(fallback, { recursive: true });
  for (const d of ['geo', 'boundaries', 'metadata', 'geocode']) fs.symlinkSync(path.join(source, d), path.join(fallback, d));
  console.log(
    `bench:national-build — stand-in Summary File acs5 ${VINTAGE}: ${truth.geographies.length.toLocaleString('en-US')} geography rows ` +
      `(${Object.entries(counts)
        .map(([l, n]) => `${l} ${n.toLocaleString('en-US')}`)
        .join(', ')}), ${Object.keys(tables).length} tables; ${os.cpus().length} cores, load ${load()}`,
  );

  const args = [
    '-v',
    process.execPath,
    '--import',
    'tsx',
    'etl/cli.ts',
    'build',
    '--online',
    '--values-source',
    'summary-file',
    '--catalog',
    '--datasets',
    'acs5',
    '--vintages',
    String(VINTAGE),
    '--levels',
    'all',
    '--files-base',
    server.filesBase,
    '--api-base',
    server.filesBase,
    '--cache-dir',
    cacheDir,
    '--data-dir',
    dataDir,
    '--fallback-source',
    fallback,
    // Values are what this measures; the stand-in's Summary File server holds no boundary zips.
    '--no-shapes',
  ];
  const loads: number[] = [];
  const sampler = setInterval(() => loads.push(os.loadavg()[0]!), 5000);
  const t0 = Date.now();
  let downloadedAt: number | undefined;
  const log: string[] = [];
  const code = await new Promise<number>((resolve) => {
    const child = spawn('/usr/bin/time', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CENSUS_API_KEY: '' } });
    const take = (b: Buffer) => {
      for (const line of b.toString().split('\n')) {
        if (!line) continue;
        log.push(line);
        if (downloadedAt === undefined && line.startsWith('online: Summary File')) downloadedAt = Date.now();
        if (/^(summary file|acs5 |online:|geographies:|catalog:|observations:|boundaries:|census-tables:|build | {2})/.test(line))
          console.log(`  [${((Date.now() - t0) / 1000).toFixed(0)} s, load ${load()}] ${line}`);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (c) => resolve(c ?? 1));
  });
  const seconds = (Date.now() - t0) / 1000;
  clearInterval(sampler);
  await server.close();
  const text = log.join('\n');
  if (code !== 0) {
    console.log(text.split('\n').slice(-40).join('\n'));
    throw new Error(`the build failed (exit ${code})`);
  }
  const peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(text)?.[1] ?? NaN);
  const build = resolveCurrentBuild(dataDir)!;
  const manifest = readManifest(build);
  const obs = manifest.steps.observations!;
  const cells = Object.values(obs.rows).reduce((a, b) => a + b, 0);
  const figures = {
    vintage: VINTAGE,
    geographies: counts,
    tables: Object.keys(tables).length,
    cells,
    seconds,
    downloadSeconds: downloadedAt === undefined ? null : (downloadedAt - t0) / 1000,
    buildSeconds: downloadedAt === undefined ? null : seconds - (downloadedAt - t0) / 1000,
    steps: Object.fromEntries(Object.entries(manifest.steps).map(([k, v]) => [k, v.seconds])),
    peakRssMb: peakKb / 1024,
    cacheBytes: du(cacheDir),
    buildBytes: du(build),
    observationsBytes: du(path.join(build, 'observations')),
    cellsPerSecondObservations: cells / obs.seconds,
    cellsPerSecondWhole: cells / seconds,
    load: { min: Math.min(...loads), max: Math.max(...loads), mean: loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length) },
  };
  console.log(`\n== the national build (${build})${seed ? `; previous build ${seed} (steps with unchanged inputs reused)` : ''}`);
  console.log(
    `  wall ${seconds.toFixed(0)} s: download ${figures.downloadSeconds?.toFixed(0)} s, build ${figures.buildSeconds?.toFixed(0)} s`,
  );
  console.log(
    `  steps: ${Object.entries(figures.steps)
      .map(([k, v]) => `${k} ${v.toFixed(0)} s`)
      .join(', ')}`,
  );
  console.log(`  peak RSS ${figures.peakRssMb.toFixed(0)} MB (target ≤ 4096)`);
  console.log(
    `  disk: cache ${(figures.cacheBytes / 1e9).toFixed(2)} GB, build ${(figures.buildBytes / 1e9).toFixed(2)} GB (observations ${(figures.observationsBytes / 1e9).toFixed(2)} GB)`,
  );
  console.log(
    `  ${cells.toLocaleString('en-US')} cells: ${Math.round(figures.cellsPerSecondObservations).toLocaleString('en-US')} cells/s in the observations step, ` +
      `${Math.round(figures.cellsPerSecondWhole).toLocaleString('en-US')} cells/s over the whole run`,
  );
  console.log(
    `  load average during the run (1 min, sampled every 5 s): min ${figures.load.min.toFixed(1)}, mean ${figures.load.mean.toFixed(1)}, max ${figures.load.max.toFixed(1)}`,
  );
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2));

  if (process.env.BENCH_SKIP_SERVING === '1') return;
  console.log(`\n== bench:national on it (load ${load()})`);
  const serving = spawn(process.execPath, ['--import', 'tsx', 'bench/national.ts'], {
    stdio: 'inherit',
    env: { ...process.env, DATA_DIR: dataDir, BENCH_ALLOW_REAL: '1', BENCH_JSON: '' },
  });
  const sc = await new Promise<number>((resolve) => serving.on('close', (c) => resolve(c ?? 1)));
  if (sc !== 0) process.exitCode = sc;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
