// `npm run bench:serving`: what the serving layout buys, REAL data (acs1 2018 state partition of
// the build in DATA_DIR, default .cache/test-data), all variants interleaved:
//   * all states × 10 codes: the previous geo-sorted Parquet (variable filter) against the
//     table-major Parquet (table + variable filter), DuckDB alone;
//   * one state × 5 codes: DuckDB alone on both layouts against the serving index, and the
//     ObservationStore's point-lookup path (cache off) — the server-side cost of a lookup;
//   * the crossover: N geographies × 10 codes through ObservationStore.fetch (cache off), once
//     forced to the serving index and once to DuckDB, N from 25 to every county (acs5 2022
//     county partition) and all states (acs1 2018) — what POINT_LOOKUP_MAX_GEOS is set from.
//     BENCH_CROSSOVER_ONLY=1 runs only this part.
// The geo-sorted variant is written once from the live file under .cache/bench-layouts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { rowGroupSizeFor } from '../etl/steps/observations.js';
import { resolveCurrentBuild } from '../src/store/data-dir.js';
import { DuckPool, sqlString } from '../src/store/duckdb.js';
import { ObservationStore } from '../src/store/observations.js';
import { SERVING_INDEX_FILE, ServingIndex } from '../src/store/serving-index.js';
import { interleaved, latencyLine, ratio, summarize } from './lib/stats.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? '.cache/test-data');
const TEN = [
  'B19013_001E',
  'B01001_002E',
  'B01002_001E',
  'B17001_002E',
  'B25077_001E',
  'B01003_001E',
  'B02001_002E',
  'B25001_001E',
  'B25064_001E',
  'B15003_022E',
];
const FIVE = TEN.slice(0, 5);
const STATES = ['state:06', 'state:48', 'state:36', 'state:12', 'state:17', 'state:42', 'state:13', 'state:39'];

async function main() {
  const build = resolveCurrentBuild(DATA_DIR);
  if (!build) throw new Error(`no build in ${DATA_DIR}`);
  const dir = path.join(build, 'observations/dataset=acs1/vintage=2018/level=state');
  const tableMajor = path.join(dir, 'data_0.parquet');
  const geoSorted = path.resolve('.cache/bench-layouts/acs1-2018-state-geo-sorted.parquet');
  const inst = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '1GB' });
  const c = await inst.connect();
  await c.run('SET GLOBAL parquet_metadata_cache = true');
  if (!fs.existsSync(geoSorted)) {
    fs.mkdirSync(path.dirname(geoSorted), { recursive: true });
    const rows = Number(
      (await c.runAndReadAll(`SELECT count(*)::BIGINT FROM read_parquet(${sqlString(tableMajor)})`)).getColumnsJS()[0]![0],
    );
    await c.run(`COPY (SELECT * FROM read_parquet(${sqlString(tableMajor)}) ORDER BY geo_key, variable) TO ${sqlString(geoSorted)}
      (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSizeFor(rows)})`);
  }
  const idx = ServingIndex.open(path.join(dir, SERVING_INDEX_FILE));
  if (!idx) throw new Error(`${dir} has no serving index: rebuild with npm run etl`);
  const pool = await DuckPool.open();
  const store = await ObservationStore.open(build, pool, { cacheCells: 0 });

  if (process.env.BENCH_CROSSOVER_ONLY) {
    await crossover(build, pool);
    store.close();
    idx.close();
    c.closeSync();
    inst.closeSync();
    return;
  }
  const list = (a: string[]) => a.map(sqlString).join(',');
  const tables = (a: string[]) => list([...new Set(a.map((x) => x.slice(0, x.indexOf('_'))))]);
  const cols = 'geo_key, variable, estimate, moe, estimate_annotation, moe_annotation';
  const allSql = (f: string, table: boolean) =>
    `SELECT ${cols} FROM read_parquet(${sqlString(f)}) WHERE ${table ? `table_id IN (${tables(TEN)}) AND ` : ''}variable IN (${list(TEN)})`;
  const oneSql = (f: string, table: boolean, k: string) =>
    `SELECT ${cols} FROM read_parquet(${sqlString(f)}) WHERE ${table ? `table_id IN (${tables(FIVE)}) AND ` : ''}variable IN (${list(FIVE)}) AND geo_key IN (${sqlString(k)})`;
  const a = (await c.runAndReadAll(allSql(geoSorted, false))).currentRowCount;
  const b = (await c.runAndReadAll(allSql(tableMajor, true))).currentRowCount;
  if (a !== b) throw new Error(`layouts disagree: ${a} vs ${b} rows`);

  console.log(
    `bench:serving — REAL acs1 2018 state partition; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  const loop = { maxMs: Number(process.env.BENCH_MAX_MS ?? 8000), iterations: 300, minIterations: 20 };
  const [geoAll, tabAll] = await interleaved(
    [() => c.runAndReadAll(allSql(geoSorted, false)), () => c.runAndReadAll(allSql(tableMajor, true))],
    loop,
  );
  console.log(`\nall states × 10 codes (${a} cells), DuckDB alone`);
  console.log(latencyLine('  geo-sorted Parquet, variable filter (previous layout)', summarize(geoAll!)));
  console.log(latencyLine('  table-major Parquet, table + variable filter (current)', summarize(tabAll!)));
  console.log(`  previous ÷ current p50 ${ratio(summarize(geoAll!).p50, summarize(tabAll!).p50)}`);

  const k = (i: number) => STATES[Math.abs(i) % STATES.length]!;
  const [g1, t1, ix, st] = await interleaved(
    [
      (i) => c.runAndReadAll(oneSql(geoSorted, false, k(i))),
      (i) => c.runAndReadAll(oneSql(tableMajor, true, k(i))),
      async (i) => idx.lookup(k(i), FIVE, () => {}),
      (i) => store.fetch({ dataset: 'acs1', vintages: [2018], level: 'state', geoKeys: [k(i)], codes: FIVE }),
    ],
    { ...loop, iterations: 2000 },
  );
  console.log('\none state × 5 codes');
  console.log(latencyLine('  DuckDB alone, geo-sorted Parquet (previous)', summarize(g1!)));
  console.log(latencyLine('  DuckDB alone, table-major Parquet', summarize(t1!)));
  console.log(latencyLine('  serving index lookup', summarize(ix!)));
  console.log(latencyLine('  ObservationStore.fetch (point-lookup path, cache off)', summarize(st!)));
  console.log(`  DuckDB (previous) ÷ store p50 ${ratio(summarize(g1!).p50, summarize(st!).p50)}`);
  await crossover(build, pool);
  store.close();
  idx.close();
  c.closeSync();
  inst.closeSync();
}

/** N geographies × 10 codes: the serving index against DuckDB, same store code, cache off. */
async function crossover(build: string, pool: DuckPool) {
  const viaIndex = await ObservationStore.open(build, pool, { cacheCells: 0, pointLookupMaxGeos: Number.POSITIVE_INFINITY });
  const viaDuck = await ObservationStore.open(build, pool, { cacheCells: 0, pointLookupMaxGeos: 0 });
  const countyFile = path.join(build, 'observations/dataset=acs5/vintage=2022/level=county/data_0.parquet');
  const counties = (
    await pool.rows<{ k: string }>(`SELECT DISTINCT geo_key AS k FROM read_parquet(${sqlString(countyFile)}) ORDER BY k`)
  ).map((r) => r.k);
  const stateFile = path.join(build, 'observations/dataset=acs1/vintage=2018/level=state/data_0.parquet');
  const states = (await pool.rows<{ k: string }>(`SELECT DISTINCT geo_key AS k FROM read_parquet(${sqlString(stateFile)}) ORDER BY k`)).map(
    (r) => r.k,
  );
  console.log('\ncrossover: N geographies × 10 codes, ObservationStore.fetch with the cache off (serving index ÷ DuckDB p50)');
  const cases: Array<{ label: string; dataset: string; vintage: number; level: string; keys: string[] }> = [
    { label: 'acs1 2018, all states', dataset: 'acs1', vintage: 2018, level: 'state', keys: states },
  ];
  for (const n of [25, 100, 250, 500, 1000, 2000, counties.length]) {
    // Spread over the whole list, as a wildcard in several states would be.
    const step = counties.length / n;
    const keys = Array.from({ length: Math.min(n, counties.length) }, (_, i) => counties[Math.floor(i * step)]!);
    cases.push({ label: `acs5 2022, ${keys.length} counties`, dataset: 'acs5', vintage: 2022, level: 'county', keys });
  }
  for (const k of cases) {
    const q = { dataset: k.dataset, vintages: [k.vintage], level: k.level, geoKeys: k.keys, codes: TEN };
    const [a, b] = [await viaIndex.fetch(q), await viaDuck.fetch(q)];
    if (a.size !== b.size) throw new Error(`${k.label}: index ${a.size} cells, DuckDB ${b.size}`);
    const [ti, td] = await interleaved([() => viaIndex.fetch(q), () => viaDuck.fetch(q)], {
      maxMs: Number(process.env.BENCH_MAX_MS ?? 4000),
      iterations: 200,
      minIterations: 10,
    });
    const si = summarize(ti!);
    const sd = summarize(td!);
    console.log(
      `  ${k.label.padEnd(28)} ${String(a.size).padStart(6)} cells: index p50 ${si.p50.toFixed(2)} ms, DuckDB p50 ${sd.p50.toFixed(2)} ms; index ÷ DuckDB ${(si.p50 / sd.p50).toFixed(3)}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
