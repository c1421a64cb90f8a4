// ETL throughput of the real `observations` step over the shared Census files (REAL data), against
// a same-run baseline: DuckDB's own CSV → sorted Parquet COPY of exactly the same rows with the
// same Parquet options. The step does more (reads 23,873 gzipped JSON bodies, validates every
// cell, maps jam values to annotations), so the ratio is the price of that work over a bare copy.
//
//   npm run bench:etl                          # the whole source tree
//   npm run bench:etl -- --only acs1/2018      # a quick run over a subset (dataset/vintage list)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { withDuckDB, sqlString } from '../etl/duckdb.js';
import { runStepAlone } from '../etl/run-step.js';
import { OBSERVATION_COLUMNS, OBSERVATION_ORDER, PARQUET_OPTIONS, observationsStep } from '../etl/steps/observations.js';
import { fmtInt, nowMs, ratio, table } from './lib/stats.js';

const program = new Command()
  .option('-s, --source <dir>', 'source tree', process.env.CENSUS_SOURCE_DIR ?? '../shared/census')
  .option('--only <list>', 'comma-separated dataset/vintage pairs, e.g. acs1/2018,acs5/2023')
  .option('--work <dir>', 'scratch directory (default: a temporary directory, removed afterwards)')
  .parse();
const o = program.opts<{ source: string; only?: string; work?: string }>();

/** A source tree holding only the selected api/<vintage>/acs/<dataset> files (symlinked files). */
async function subsetSource(source: string, only: string, into: string): Promise<string> {
  const root = path.join(into, 'source');
  for (const pair of only.split(',')) {
    const [dataset, vintage] = pair.split('/');
    const from = path.join(source, 'api', vintage!, 'acs', dataset!);
    await fs.access(from);
    for (const level of await fs.readdir(from)) {
      const to = path.join(root, 'api', vintage!, 'acs', dataset!, level);
      await fs.mkdir(to, { recursive: true });
      for (const f of await fs.readdir(path.join(from, level))) await fs.symlink(path.join(from, level, f), path.join(to, f));
    }
  }
  return root;
}

async function listParquet(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.parquet')) out.push(path.join(e.parentPath, e.name));
  }
  return out.sort();
}

async function main() {
  const work = o.work ? path.resolve(o.work) : await fs.mkdtemp(path.join(os.tmpdir(), 'bench-etl-'));
  await fs.mkdir(work, { recursive: true });
  const source = o.only ? await subsetSource(path.resolve(o.source), o.only, work) : path.resolve(o.source);
  const outDir = path.join(work, 'step-out');
  await fs.rm(outDir, { recursive: true, force: true });
  await fs.mkdir(outDir, { recursive: true });
  try {
    process.stderr.write(`REAL data: observations step over ${source}${o.only ? ` (subset ${o.only})` : ''}\n`);
    // 1. The real step, on its own (no orchestrator, no checksums, nothing reused).
    const t0 = nowMs();
    const result = await runStepAlone(observationsStep, source, outDir);
    const stepMs = nowMs() - t0;
    const rows = Object.values(result.rows).reduce((a, b) => a + b, 0);
    const partitions = await listParquet(path.join(outDir, 'observations'));

    // 2. The same rows as CSV (not timed), one file per partition like the step's staging files.
    const csvDir = path.join(work, 'csv');
    await fs.rm(csvDir, { recursive: true, force: true });
    await fs.mkdir(csvDir, { recursive: true });
    const jobs = partitions.map((p, i) => ({ parquet: p, csv: path.join(csvDir, `${i}.csv`), out: path.join(csvDir, `${i}.parquet`) }));
    let csvBytes = 0;
    await withDuckDB(async (db) => {
      for (const j of jobs) {
        await db.run(
          `COPY (SELECT * FROM read_parquet(${sqlString(j.parquet)}, hive_partitioning = false)) TO ${sqlString(j.csv)} (FORMAT csv, HEADER true)`,
        );
        csvBytes += (await fs.stat(j.csv)).size;
      }
    });

    // 3. Baseline: DuckDB alone, CSV → sorted Parquet, same options, same DuckDB settings. Timed
    //    around the COPY statements only.
    let duckMs = 0;
    let duckRows = 0;
    await withDuckDB(async (db) => {
      for (const j of jobs) {
        const t = nowMs();
        await db.run(`COPY (SELECT * FROM read_csv(${sqlString(j.csv)}, header = true, delim = ',', quote = '"', escape = '"', columns = ${OBSERVATION_COLUMNS})
          ORDER BY ${OBSERVATION_ORDER}) TO ${sqlString(j.out)} (${PARQUET_OPTIONS})`);
        duckMs += nowMs() - t;
      }
      for (const j of jobs) {
        duckRows += Number((await db.runAndReadAll(`SELECT count(*) AS n FROM read_parquet(${sqlString(j.out)})`)).getRowObjectsJS()[0]!.n);
      }
    });
    if (duckRows !== rows) throw new Error(`baseline wrote ${duckRows} rows, the step ${rows}`);

    const stepRate = rows / (stepMs / 1000);
    const duckRate = rows / (duckMs / 1000);
    const lines = [
      `REAL data (${source}/api): ${fmtInt(rows)} rows, ${partitions.length} partitions, ${(csvBytes / 1e6).toFixed(0)} MB as CSV; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
      '',
      table(
        ['variant', 'seconds', 'rows/s'],
        [
          ['observations step (JSON.gz → validate → TSV → DuckDB sort → Parquet)', (stepMs / 1000).toFixed(1), fmtInt(stepRate)],
          ['baseline: DuckDB CSV → ORDER BY → Parquet COPY alone', (duckMs / 1000).toFixed(1), fmtInt(duckRate)],
        ],
      ),
      '',
      `ratio: the step takes ${ratio(stepMs, duckMs)} the time of DuckDB's bare copy (baseline rate / step rate)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    if (!o.work) await fs.rm(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:etl: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
