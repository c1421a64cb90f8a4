// Query latency of ObservationStore.fetch (p50/p95/p99), each scenario against a same-run baseline:
// the very SQL the store generates, run on a bare DuckDB connection (same threads, same Parquet
// footer cache) without any store code, so the ratio is the store's own overhead (SQL building,
// pool, JS row conversion, the result map). Runs interleaved (store, baseline, store, …) so load
// from other processes hits both alike.
//
// Scales:
//   REAL       the build over ../shared/census (acs5 2022/2023 counties, acs1 2018 states)
//   SYNTHETIC  the national synthetic build from `npm run etl -- synth` (random values): tracts,
//              all counties, all tracts of a state
// and, with --layouts, single-tract latency of the real layout against alternative layouts of the
// same SYNTHETIC national tract partition.
//
//   npm run bench:query -- [--real-data-dir .cache/test-data] [--synthetic-data-dir .cache/synthetic-national]
//                          [--max-ms 6000] [--layouts] [--json out.json]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { build } from '../etl/build.js';
import { isSyntheticBuild, parquetKvMetadata } from '../etl/synthetic/generate.js';
import { withDuckDB, sqlString } from '../etl/duckdb.js';
import { readManifest, resolveCurrentBuild } from '../src/store/data-dir.js';
import { DuckPool } from '../src/store/duckdb.js';
import { ObservationStore, type CellQuery } from '../src/store/observations.js';
import { fmtInt, fmtMs, interleaved, latencyLine, ratio, summarize, table, type Summary } from './lib/stats.js';

const program = new Command()
  .option('--source <dir>', 'source tree for the real build', process.env.CENSUS_SOURCE_DIR ?? '../shared/census')
  .option('--real-data-dir <dir>', 'data directory of the REAL build (built incrementally if absent)', '.cache/test-data')
  .option('--synthetic-data-dir <dir>', 'data directory of the SYNTHETIC national build', '.cache/synthetic-national')
  .option('--layout-dir <dir>', 'where the SYNTHETIC layout variants are written', '.cache/synthetic-layouts')
  .option('--max-ms <n>', 'time budget per scenario (timed iterations, ms)', '6000')
  .option('--iterations <n>', 'at most this many iterations per scenario', '300')
  .option('--layouts', 'also run the layout comparison (generates the variants once, ~minutes)', false)
  .option('--skip-real', 'skip the REAL scenarios', false)
  .option('--skip-synthetic', 'skip the SYNTHETIC store scenarios', false)
  .option('--json <file>', 'also write every figure as JSON')
  .parse();
const o = program.opts<{
  source: string;
  realDataDir: string;
  syntheticDataDir: string;
  layoutDir: string;
  maxMs: string;
  iterations: string;
  layouts: boolean;
  skipReal: boolean;
  skipSynthetic: boolean;
  json?: string;
}>();
const loop = { maxMs: Number(o.maxMs), iterations: Number(o.iterations), warmup: 3, minIterations: 10 };

interface Result {
  data: 'REAL' | 'SYNTHETIC';
  scenario: string;
  rows: number;
  store?: Summary;
  baseline: Summary;
  overhead_p50?: string;
  overhead_p95?: string;
}
const results: Result[] = [];
const out = (s: string) => process.stdout.write(`${s}\n`);

/** A DuckDB connection with the server's settings and no store code around it. */
async function bareDuckDB(): Promise<{ conn: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '1GB' });
  const conn = await instance.connect();
  await conn.run('SET GLOBAL parquet_metadata_cache = true');
  return { conn, close: () => (conn.closeSync(), instance.closeSync()) };
}

/** The SQL ObservationStore.fetch would run for a query, captured without running it. */
async function sqlOf(buildDir: string): Promise<(q: CellQuery) => Promise<string>> {
  let last = '';
  const recorder = {
    rows: async (sql: string) => ((last = sql), []),
    columns: async (sql: string) => ((last = sql), Array.from({ length: 7 }, () => [])),
    close: () => {},
  } as unknown as DuckPool;
  const capture = await ObservationStore.open(buildDir, recorder, { cacheCells: 0 });
  return async (q) => {
    last = '';
    await capture.fetch(q);
    if (!last) throw new Error(`the store ran no SQL for ${JSON.stringify(q).slice(0, 200)}`);
    return last;
  };
}

/** Keys of a partition (untimed set-up), optionally by prefix, in a fixed pseudo-random order. */
async function keysOf(
  conn: DuckDBConnection,
  buildDir: string,
  dataset: string,
  vintage: number,
  level: string,
  like = '%',
  limit = 1_000_000,
): Promise<string[]> {
  const file = path.join(buildDir, 'observations', `dataset=${dataset}`, `vintage=${vintage}`, `level=${level}`, 'data_0.parquet');
  const r = await conn.runAndReadAll(
    `SELECT DISTINCT geo_key FROM read_parquet(${sqlString(file)}) WHERE geo_key LIKE ${sqlString(like)} ORDER BY hash(geo_key) LIMIT ${limit}`,
  );
  return (r.getRowObjectsJS() as Array<{ geo_key: string }>).map((x) => x.geo_key);
}

async function scenario(
  data: Result['data'],
  name: string,
  store: ObservationStore,
  bare: DuckDBConnection,
  sqlFor: (q: CellQuery) => Promise<string>,
  queries: CellQuery[],
): Promise<void> {
  const sqls = await Promise.all(queries.map(sqlFor));
  let rows = 0;
  const [s, b] = await interleaved(
    [
      async (i) => {
        const m = await store.fetch(queries[Math.abs(i) % queries.length]!);
        rows = m.size;
      },
      async (i) => {
        await bare.runAndReadAll(sqls[Math.abs(i) % sqls.length]!);
      },
    ],
    loop,
  );
  const store_ = summarize(s!);
  const base = summarize(b!);
  const r: Result = {
    data,
    scenario: name,
    rows,
    store: store_,
    baseline: base,
    overhead_p50: ratio(store_.p50, base.p50),
    overhead_p95: ratio(store_.p95, base.p95),
  };
  results.push(r);
  out(latencyLine(`${data} ${name} — store (${fmtInt(rows)} cells, last query)`, store_));
  out(latencyLine(`${data} ${name} — DuckDB alone`, base));
  out(`${''.padEnd(66)} overhead p50 ${r.overhead_p50}, p95 ${r.overhead_p95}`);
}

const q = (dataset: string, vintages: number[], level: string, geoKeys: string[] | 'all', codes: string[]): CellQuery => ({
  dataset,
  vintages,
  level,
  geoKeys,
  codes,
});

async function realScenarios(): Promise<void> {
  const dataDir = path.resolve(o.realDataDir);
  let buildDir = resolveCurrentBuild(dataDir);
  if (!buildDir || isSyntheticBuild(buildDir)) {
    if (buildDir) throw new Error(`${dataDir} holds a synthetic build; --real-data-dir must hold real data`);
    out(`building the REAL data into ${dataDir} (once)…`);
    buildDir = (await build({ sourceDir: path.resolve(o.source), dataDir, quiet: true })).buildDir;
  }
  out(`\n== REAL data: build ${readManifest(buildDir).build_id} (${buildDir})`);
  const pool = await DuckPool.open();
  const store = await ObservationStore.open(buildDir, pool, { cacheCells: 0 });
  const bare = await bareDuckDB();
  const sqlFor = await sqlOf(buildDir);
  try {
    // acs5 county files hold B01003 and B25001 only: the other three codes are asked for and absent,
    // as a client asking for five variables would.
    const countyCodes = ['B01003_001E', 'B25001_001E', 'B19013_001E', 'B17001_002E', 'B25077_001E'];
    const stateCodes = ['B01001_001E', 'B02001_002E', 'B17001_002E', 'B19013_001E', 'B25010_001E'];
    const counties = await keysOf(bare.conn, buildDir, 'acs5', 2023, 'county', '%', 200);
    const states = await keysOf(bare.conn, buildDir, 'acs1', 2018, 'state', '%', 52);
    await scenario(
      'REAL',
      '(a) one county, acs5 2022+2023, 5 codes',
      store,
      bare.conn,
      sqlFor,
      counties.map((k) => q('acs5', [2022, 2023], 'county', [k], countyCodes)),
    );
    await scenario('REAL', '(b) all counties, acs5 2022+2023, 5 codes', store, bare.conn, sqlFor, [
      q('acs5', [2022, 2023], 'county', 'all', countyCodes),
    ]);
    await scenario(
      'REAL',
      '(a) one state, acs1 2018, 5 codes',
      store,
      bare.conn,
      sqlFor,
      states.map((k) => q('acs1', [2018], 'state', [k], stateCodes)),
    );
    await scenario('REAL', '(b) all states, acs1 2018, 5 codes', store, bare.conn, sqlFor, [q('acs1', [2018], 'state', 'all', stateCodes)]);
  } finally {
    store.close();
    bare.close();
  }
}

const SYNTH_CODES = ['B01003_001E', 'B17001_002E', 'B19013_001E', 'B25001_001E', 'B25077_001E'];

function syntheticBuildDir(): string {
  const dir = resolveCurrentBuild(path.resolve(o.syntheticDataDir));
  if (!dir) throw new Error(`no synthetic build in ${o.syntheticDataDir}: run \`npm run etl -- synth --out ${o.syntheticDataDir}\``);
  if (!isSyntheticBuild(dir)) throw new Error(`${dir} is not a synthetic build`);
  return dir;
}

async function syntheticScenarios(): Promise<void> {
  const buildDir = syntheticBuildDir();
  const m = readManifest(buildDir);
  const total = Object.values(m.steps.observations!.rows).reduce((a, b) => a + b, 0);
  out(
    `\n== SYNTHETIC national data (random values): build ${m.build_id}, ${fmtInt(total)} rows, partitions ${Object.keys(m.steps.observations!.rows).join(' ')}`,
  );
  const pool = await DuckPool.open();
  const store = await ObservationStore.open(buildDir, pool, { cacheCells: 0 });
  const bare = await bareDuckDB();
  const sqlFor = await sqlOf(buildDir);
  try {
    const tracts = await keysOf(bare.conn, buildDir, 'acs5', 2023, 'tract', '%', 200);
    const bgs = await keysOf(bare.conn, buildDir, 'acs5', 2023, 'block_group', '%', 200);
    const counties = await keysOf(bare.conn, buildDir, 'acs5', 2023, 'county', '%', 200);
    const caTracts = (await keysOf(bare.conn, buildDir, 'acs5', 2023, 'tract', 'tract:06%')).sort();
    const deTracts = (await keysOf(bare.conn, buildDir, 'acs5', 2023, 'tract', 'tract:10%')).sort();
    await scenario(
      'SYNTHETIC',
      '(a) one tract, acs5 2023, 5 codes',
      store,
      bare.conn,
      sqlFor,
      tracts.map((k) => q('acs5', [2023], 'tract', [k], SYNTH_CODES)),
    );
    await scenario(
      'SYNTHETIC',
      '(a) one tract, acs5 2019+2023, 5 codes',
      store,
      bare.conn,
      sqlFor,
      tracts.map((k) => q('acs5', [2019, 2023], 'tract', [k], SYNTH_CODES)),
    );
    await scenario(
      'SYNTHETIC',
      '(a) one block group, acs5 2023, 5 codes',
      store,
      bare.conn,
      sqlFor,
      bgs.map((k) => q('acs5', [2023], 'block_group', [k], SYNTH_CODES)),
    );
    await scenario(
      'SYNTHETIC',
      '(a) one county, acs5 2023, 5 codes',
      store,
      bare.conn,
      sqlFor,
      counties.map((k) => q('acs5', [2023], 'county', [k], SYNTH_CODES)),
    );
    await scenario('SYNTHETIC', '(b) all counties, acs5 2023, 5 codes', store, bare.conn, sqlFor, [
      q('acs5', [2023], 'county', 'all', SYNTH_CODES),
    ]);
    await scenario('SYNTHETIC', `(c) all ${caTracts.length} tracts of CA, acs5 2023, 5 codes`, store, bare.conn, sqlFor, [
      q('acs5', [2023], 'tract', caTracts, SYNTH_CODES),
    ]);
    await scenario('SYNTHETIC', `(c) all ${deTracts.length} tracts of DE, acs5 2023, 5 codes`, store, bare.conn, sqlFor, [
      q('acs5', [2023], 'tract', deTracts, SYNTH_CODES),
    ]);
  } finally {
    store.close();
    bare.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Layouts: the same SYNTHETIC national tract partition (acs5 2023) written five ways.

interface Layout {
  name: string;
  /** File holding a geography's rows. */
  fileFor: (geoKey: string) => string;
  files: string[];
}

async function layoutVariants(buildDir: string): Promise<Layout[]> {
  const manifest = readManifest(buildDir);
  // The build's own tract files are per state (level=tract/state=XX/); the single-file variants are
  // the same rows re-sorted into one file each way.
  const tractDir = path.join(buildDir, 'observations/dataset=acs5/vintage=2023/level=tract');
  const real = path.join(tractDir, 'state=*', 'data_0.parquet');
  const dir = path.resolve(o.layoutDir, `synthetic-${manifest.build_id}`);
  const variants: Array<{ name: string; order: string; rowGroupSize: number }> = [
    { name: 'sorted-geo-rg122880', order: 'geo_key, variable', rowGroupSize: 122_880 },
    { name: 'sorted-geo-rg16384', order: 'geo_key, variable', rowGroupSize: 16_384 },
    { name: 'sorted-variable-rg16384', order: 'variable, geo_key', rowGroupSize: 16_384 },
    { name: 'table-major-rg122880', order: 'table_id, geo_key, variable', rowGroupSize: 122_880 },
  ];
  const states = fs
    .readdirSync(tractDir)
    .filter((e) => e.startsWith('state='))
    .map((e) => e.slice(6))
    .sort();
  await withDuckDB(async (db) => {
    for (const v of variants) {
      const target = path.join(dir, v.name, 'data_0.parquet');
      if (fs.existsSync(target)) continue;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const t0 = Date.now();
      await db.run(
        `COPY (SELECT * FROM read_parquet(${sqlString(real)}) ORDER BY ${v.order}) TO ${sqlString(`${target}.tmp`)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${v.rowGroupSize}, KV_METADATA {synthetic: 'true'})`,
      );
      fs.renameSync(`${target}.tmp`, target);
      out(`  wrote SYNTHETIC layout ${v.name} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  });
  const single = (f: string): Layout => ({ name: '', fileFor: () => f, files: [f] });
  return [
    ...variants.map((v) => ({ ...single(path.join(dir, v.name, 'data_0.parquet')), name: v.name })),
    {
      name: 'table-major by state (state=XX/ files: the real layout)',
      fileFor: (k: string) => path.join(tractDir, `state=${k.slice(6, 8)}`, 'data_0.parquet'),
      files: states.map((s) => path.join(dir, 'by-state-rg16384', `state=${s}`, 'data_0.parquet')),
    },
  ];
}

async function layoutComparison(): Promise<void> {
  const buildDir = syntheticBuildDir();
  out(`\n== SYNTHETIC layout comparison: acs5 2023 tract partition, 5 codes, DuckDB alone (same SQL shape as the store)`);
  const layouts = await layoutVariants(buildDir);
  const bare = await bareDuckDB();
  try {
    const verify = await parquetKvMetadata(bare.conn, layouts[1]!.files[0]!);
    if (verify.synthetic !== 'true') throw new Error('layout variant lacks the synthetic marker');
    const tracts = await keysOf(bare.conn, buildDir, 'acs5', 2023, 'tract', '%', 200);
    const caTracts = (await keysOf(bare.conn, buildDir, 'acs5', 2023, 'tract', 'tract:06%')).sort();
    const codes = SYNTH_CODES.map(sqlString).join(',');
    const sql = (file: string, keys: string[]) =>
      `SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${sqlString(file)})
       WHERE variable IN (${codes}) AND geo_key IN (${keys.map(sqlString).join(',')})`;
    const sizes = layouts.map((l) => l.files.reduce((a, f) => a + fs.statSync(f).size, 0));
    const groups = await Promise.all(
      layouts.map(async (l) => {
        const r = await bare.conn.runAndReadAll(
          `SELECT count(DISTINCT (file_name, row_group_id))::INTEGER AS n FROM parquet_metadata([${l.files.map(sqlString).join(',')}])`,
        );
        return (r.getRowObjectsJS()[0] as { n: number }).n;
      }),
    );
    const one = await interleaved(
      layouts.map((l) => async (i: number) => {
        const k = tracts[Math.abs(i) % tracts.length]!;
        await bare.conn.runAndReadAll(sql(l.fileFor(k), [k]));
      }),
      loop,
    );
    const ca = await interleaved(
      layouts.map((l) => async () => {
        await bare.conn.runAndReadAll(sql(l.fileFor(caTracts[0]!), caTracts));
      }),
      { ...loop, iterations: Math.min(loop.iterations, 30), minIterations: 5 },
    );
    const rows = layouts.map((l, i) => {
      const a = summarize(one[i]!);
      const c = summarize(ca[i]!);
      results.push({ data: 'SYNTHETIC', scenario: `layout ${l.name}: one tract`, rows: 5, baseline: a });
      results.push({ data: 'SYNTHETIC', scenario: `layout ${l.name}: all CA tracts`, rows: caTracts.length * 5, baseline: c });
      return [
        l.name,
        `${(sizes[i]! / 1e6).toFixed(0)} MB`,
        String(groups[i]),
        fmtMs(a.p50),
        fmtMs(a.p95),
        fmtMs(a.p99),
        fmtMs(c.p50),
        fmtMs(c.p95),
        ratio(a.p50, summarize(one[0]!).p50),
      ];
    });
    out(
      table(
        ['SYNTHETIC layout', 'size', 'row groups', '1 tract p50 ms', 'p95', 'p99', 'CA tracts p50 ms', 'p95', '1-tract p50 vs real'],
        rows,
      ),
    );
  } finally {
    bare.close();
  }
}

/**
 * All tracts of a state: the store sends an IN list of every key (9,129 for CA), which row-group
 * statistics cannot use; a key-prefix range on the same sorted file can. DuckDB alone, both shapes.
 */
async function prefixVsInList(): Promise<void> {
  const buildDir = syntheticBuildDir();
  const file = path.join(buildDir, 'observations/dataset=acs5/vintage=2023/level=tract/data_0.parquet');
  const bare = await bareDuckDB();
  try {
    const ca = (await keysOf(bare.conn, buildDir, 'acs5', 2023, 'tract', 'tract:06%')).sort();
    const codes = SYNTH_CODES.map(sqlString).join(',');
    const head = `SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${sqlString(file)}) WHERE variable IN (${codes})`;
    const inList = `${head} AND geo_key IN (${ca.map(sqlString).join(',')})`;
    const range = `${head} AND geo_key >= 'tract:06' AND geo_key < 'tract:07'`;
    const n = [(await bare.conn.runAndReadAll(inList)).currentRowCount, (await bare.conn.runAndReadAll(range)).currentRowCount];
    if (n[0] !== n[1]) throw new Error(`IN list gave ${n[0]} rows, range ${n[1]}`);
    const [a, b] = await interleaved([() => bare.conn.runAndReadAll(inList), () => bare.conn.runAndReadAll(range)], {
      ...loop,
      iterations: 20,
      minIterations: 5,
    });
    const sa = summarize(a!);
    const sb = summarize(b!);
    results.push({ data: 'SYNTHETIC', scenario: '(c) CA tracts, IN list of keys (store shape)', rows: n[0]!, baseline: sa });
    results.push({ data: 'SYNTHETIC', scenario: '(c) CA tracts, key-prefix range', rows: n[1]!, baseline: sb });
    out(`\n== SYNTHETIC (c) all ${ca.length} CA tracts, acs5 2023, 5 codes, DuckDB alone: query shape`);
    out(latencyLine(`SYNTHETIC IN list of ${ca.length} keys (what the store sends)`, sa));
    out(latencyLine('SYNTHETIC key-prefix range (geo_key >= tract:06 AND < tract:07)', sb));
    out(`${''.padEnd(66)} IN list / range p50 ${ratio(sa.p50, sb.p50)}`);
  } finally {
    bare.close();
  }
}

async function main() {
  out(
    `bench:query — ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; budget ${loop.maxMs} ms / scenario`,
  );
  if (!o.skipReal) await realScenarios();
  if (!o.skipSynthetic) await syntheticScenarios();
  if (o.layouts) await layoutComparison();
  if (o.layouts) await prefixVsInList();
  if (o.json) fs.writeFileSync(o.json, `${JSON.stringify({ at: new Date().toISOString(), load: os.loadavg(), results }, null, 1)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:query: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
