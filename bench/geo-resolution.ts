// Geography resolution latency for the largest expansions, against a same-run baseline.
//
//   npx tsx bench/geo-resolution.ts [buildDir]
//
// buildDir holds geo/geographies.json (default: $DATA_DIR/current, else the step is run into a
// temporary directory). For each case: resolveGeographies end to end (parse, name resolution,
// gates, count, records) p50/p95, and a baseline doing only the data movement with plain JS on the
// same rows: a Map lookup per resulting key over pre-built record objects, and a full array filter
// for the prefix cases. The ratio says what resolution costs over "just fetching the records".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { geographiesStep } from '../etl/steps/geographies.js';
import { GeographyStore, type GeographyRecord } from '../src/store/geographies.js';
import { resolveGeographies } from '../src/verbs/resolve-geographies.js';
import { PLANS } from '../src/domain/plans.js';
import { runStepIsolated } from '../test/support/etl.js';

async function buildDir(): Promise<string> {
  const arg = process.argv[2];
  if (arg) return arg;
  const current = path.join(process.env.DATA_DIR ?? 'data', 'current');
  if (fs.existsSync(path.join(current, 'geo', 'geographies.json'))) return current;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'geo-bench-'));
  await runStepIsolated(geographiesStep, { outDir: out });
  return out;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function time(n: number, fn: () => unknown): number[] {
  for (let i = 0; i < 3; i++) fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return out;
}

const dir = await buildDir();
const loads: number[] = [];
let store!: GeographyStore;
for (let i = 0; i < 3; i++) {
  store = await GeographyStore.load(dir);
  loads.push(store.loadMs);
}
console.log(
  `store load: ${loads.map((x) => x.toFixed(0)).join(' / ')} ms (${store.tables.tract.size + store.tables.block_group.size} tract+block group rows); heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`,
);

const VINTAGE = 2023;
// Baseline data: every record of the vintage pre-built as plain objects, in a Map and an array.
const byKey = new Map<string, GeographyRecord>();
const arrays: Record<string, GeographyRecord[]> = {};
for (const type of ['county', 'tract', 'block_group'] as const) {
  arrays[type] = store.all(type, VINTAGE);
  for (const r of arrays[type]) byKey.set(r.key, r);
}

const gates = { vintage: VINTAGE, plan: PLANS.enterprise };
const cases: { label: string; spec: string; prefix?: [string, string] }[] = [
  { label: 'all tracts of California', spec: 'tract:06*', prefix: ['tract', '06'] },
  { label: 'all block groups of Los Angeles County', spec: 'block_group:06037*', prefix: ['block_group', '06037'] },
  { label: 'tracts of a metro by name (New York-Newark-Jersey City)', spec: 'tract:New York-Newark-Jersey City, NY-NJ' },
  { label: 'tracts of a district (TX-35)', spec: 'tract:Texas 35th congressional district' },
  { label: 'one county by name', spec: 'county:St. Louis city, MO' },
];

const N = Number(process.env.BENCH_N ?? 30);
console.log(`\n${'case'.padEnd(58)} ${'n'.padStart(6)}  resolve p50/p95 ms   baseline p50/p95 ms   ratio p50`);
for (const c of cases) {
  const keys = resolveGeographies(store, c.spec, gates).geographies.map((g) => g.key);
  const ours = time(N, () => resolveGeographies(store, c.spec, gates));
  const base = time(N, () => {
    if (c.prefix) {
      const [type, p] = c.prefix;
      return arrays[type]!.filter((r) => r.fips.startsWith(p));
    }
    return keys.map((k) => byKey.get(k));
  });
  const r = pct(ours, 50) / pct(base, 50);
  console.log(
    `${c.label.padEnd(58)} ${String(keys.length).padStart(6)}  ${pct(ours, 50).toFixed(2).padStart(7)} / ${pct(ours, 95).toFixed(2).padEnd(8)}  ${pct(base, 50).toFixed(2).padStart(7)} / ${pct(base, 95).toFixed(2).padEnd(8)}  ${r.toFixed(1)}×`,
  );
}
