// `npm run bench:national-shapes`: the `boundaries` step on national cartographic tract and
// block-group files, for its peak resident memory (issue 34 §3: ≤ 4 GB whatever the input size).
//
//   * the input: the stand-in's shapefile zips (test/support/standin/shapefiles.ts) for the nation's
//     real 2020-definition tracts and block groups (the Summary File stand-in's geographies, from
//     ../shared/census's centres of population: 85,395 tracts, 242,335 block groups, each state
//     its real count), `cb_2023_{ss}_{tract,bg}_500k.zip` per state plus `cb_2023_us_state_500k.zip`,
//     every tract and block-group ring BENCH_VERTICES vertices (default 250; the Bureau's 500k
//     block groups have a few hundred), written once under BENCH_DIR/src (default
//     .cache/national-shapes) and kept;
//   * the step (bench/lib/boundaries-step.ts) as its own process under /usr/bin/time -v: wall
//     time, peak RSS, the bytes written, and the load average sampled every 5 s (the machine may
//     be shared). BENCH_REPO=<checkout> runs another checkout's step on the same input (a former
//     commit, for a before/after figure); BENCH_STATES=06,48 limits the input; BENCH_JSON writes
//     the figures.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ShapeTruth, shapesFromGeographies } from '../test/support/standin/shapefiles.js';
import { SummaryFileTruth } from '../test/support/standin/summary-file.js';

const DIR = path.resolve(process.env.BENCH_DIR ?? '.cache/national-shapes');
const VERTICES = Number(process.env.BENCH_VERTICES ?? 250);
const STATES = process.env.BENCH_STATES?.split(',');
const REPO = path.resolve(process.env.BENCH_REPO ?? '.');

function du(p: string): number {
  if (!fs.existsSync(p)) return 0;
  return Number(execFileSync('du', ['-sbL', p]).toString().split('\t')[0]) || 0;
}

/** The checkout's commit, or its path when it is not a git work tree (an exported former commit). */
function commitOf(repo: string): string {
  try {
    return execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return repo;
  }
}

/** Write the input once per (vertices, states); a marker says which. */
function writeInput(src: string): { tracts: number; blockGroups: number; files: number } {
  const marker = path.join(src, 'input.json');
  const want = { vertices: VERTICES, states: STATES ?? 'all' };
  if (fs.existsSync(marker)) {
    const got = JSON.parse(fs.readFileSync(marker, 'utf8')) as typeof want & {
      counts: { tracts: number; blockGroups: number; files: number };
    };
    if (JSON.stringify({ vertices: got.vertices, states: got.states }) === JSON.stringify(want)) return got.counts;
  }
  fs.rmSync(src, { recursive: true, force: true });
  const dir = path.join(src, 'boundaries/census_cb');
  fs.mkdirSync(dir, { recursive: true });
  const sf = new SummaryFileTruth({ seed: 34, vintage: 2023, tables: {}, states: STATES });
  const geos = sf.geographies
    .filter((g) => g.key && ['state', 'county', 'tract', 'block_group'].includes(g.level))
    .map((g) => ({ level: g.level, fips: [g.key.slice(g.key.indexOf(':') + 1)], name: g.name }));
  const shapes = new ShapeTruth({ ...shapesFromGeographies(geos), vertices: VERTICES });
  const states = Object.keys(shapes.opts.states).sort();
  const put = (name: string) => {
    const body = shapes.file(`/geo/tiger/GENZ2023/shp/${name}`);
    if (!body) throw new Error(`the stand-in has no ${name}`);
    fs.writeFileSync(path.join(dir, name), body);
  };
  put('cb_2023_us_state_500k.zip');
  for (const st of states) {
    put(`cb_2023_${st}_tract_500k.zip`);
    put(`cb_2023_${st}_bg_500k.zip`);
    process.stdout.write(`\r  input: state ${st} (${states.indexOf(st) + 1}/${states.length})`);
  }
  process.stdout.write('\n');
  const counts = {
    tracts: Object.keys(shapes.opts.tracts).length,
    blockGroups: Object.values(shapes.opts.tracts).reduce((a, b) => a + b.length, 0),
    files: 1 + 2 * states.length,
  };
  fs.writeFileSync(marker, JSON.stringify({ ...want, counts }));
  return counts;
}

async function main() {
  const src = path.join(DIR, 'src');
  const out = path.join(DIR, 'out');
  const t = Date.now();
  console.log(`bench:national-shapes — input in ${src} (${VERTICES} vertices a ring${STATES ? `, states ${STATES.join(',')}` : ''})`);
  const counts = writeInput(src);
  console.log(
    `  input: ${counts.tracts} tracts, ${counts.blockGroups} block groups, ${counts.files} zips, ${(du(src) / 1e6).toFixed(0)} MB (${((Date.now() - t) / 1000).toFixed(0)} s)`,
  );
  fs.rmSync(out, { recursive: true, force: true });
  const loads: number[] = [os.loadavg()[0]!];
  const sampler = setInterval(() => loads.push(os.loadavg()[0]!), 5000);
  const tsx = path.join(process.cwd(), 'node_modules/.bin/tsx');
  const args = ['-v', tsx, path.join(process.cwd(), 'bench/lib/boundaries-step.ts'), REPO, src, out];
  const t0 = Date.now();
  let text = '';
  const code = await new Promise<number>((resolve) => {
    const child = spawn('/usr/bin/time', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (b: Buffer) => (text += b.toString());
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (c) => resolve(c ?? 1));
  });
  const seconds = (Date.now() - t0) / 1000;
  clearInterval(sampler);
  const peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(text)?.[1] ?? NaN);
  const figures = {
    repo: REPO,
    commit: commitOf(REPO),
    vertices: VERTICES,
    ...counts,
    inputBytes: du(src),
    exit: code,
    seconds,
    peakRssMb: peakKb / 1024,
    outputBytes: du(out),
    load: { min: Math.min(...loads), mean: loads.reduce((a, b) => a + b, 0) / loads.length, max: Math.max(...loads) },
  };
  if (code !== 0) console.log(text.split('\n').slice(-25).join('\n'));
  console.log(
    `  step (${figures.commit}): exit ${code}, ${seconds.toFixed(0)} s, peak RSS ${figures.peakRssMb.toFixed(0)} MB (target ≤ 4096), wrote ${(figures.outputBytes / 1e6).toFixed(0)} MB; load ${figures.load.min.toFixed(1)}–${figures.load.max.toFixed(1)} (mean ${figures.load.mean.toFixed(1)})`,
  );
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2));
  if (code !== 0) process.exitCode = 1;
}

await main();
