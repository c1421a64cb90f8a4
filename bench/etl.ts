// ETL throughput of the real `observations` step over the shared Census files (REAL data), against
// a same-run baseline: DuckDB's own CSV → sorted Parquet COPY of exactly the same rows. Fair by
// construction: the baseline's CSV holds the step's rows in the order the step stages them (source
// file order, not already sorted), is sorted by the same key (OBSERVATION_ORDER) and written with
// the same Parquet options (zstd, the step's row-group size for the partition). The step does more
// (reads the gzipped JSON bodies, validates every cell, maps jam values to annotations, writes the
// serving index); its phases are printed so the serving-index share can be told apart.
//
//   npm run bench:etl                          # the whole source tree
//   npm run bench:etl -- --only acs1/2018      # a quick run over a subset (dataset/vintage list)
//   npm run bench:etl -- --rounds 3            # rounds, step and baseline interleaved (default 2)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { withDuckDB, sqlString } from '../etl/duckdb.js';
import { runStepAlone } from '../etl/run-step.js';
import {
  OBSERVATION_COLUMNS,
  OBSERVATION_ORDER,
  groupPartitions,
  listApiFiles,
  observationsStep,
  rowGroupSizeFor,
  stagePartition,
} from '../etl/steps/observations.js';
import { fmtInt, nowMs, ratio, table } from './lib/stats.js';

const program = new Command()
  .option('-s, --source <dir>', 'source tree', process.env.CENSUS_SOURCE_DIR ?? '../shared/census')
  .option('--only <list>', 'comma-separated dataset/vintage pairs, e.g. acs1/2018,acs5/2023')
  .option('--work <dir>', 'scratch directory (default: a temporary directory, removed afterwards)')
  .option('--rounds <n>', 'rounds of step then baseline, interleaved', '2')
  .parse();
const o = program.opts<{ source: string; only?: string; work?: string; rounds: string }>();

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

/** CPU milliseconds (user + system, all threads) since `from`. */
const cpuMsSince = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

async function main() {
  const work = o.work ? path.resolve(o.work) : await fs.mkdtemp(path.join(os.tmpdir(), 'bench-etl-'));
  await fs.mkdir(work, { recursive: true });
  const source = o.only ? await subsetSource(path.resolve(o.source), o.only, work) : path.resolve(o.source);
  try {
    process.stderr.write(`REAL data: observations step over ${source}${o.only ? ` (subset ${o.only})` : ''}\n`);
    // The baseline's input (not timed): each partition's rows exactly as the step stages them, as CSV.
    const csvDir = path.join(work, 'csv');
    await fs.rm(csvDir, { recursive: true, force: true });
    await fs.mkdir(csvDir, { recursive: true });
    const partitions = groupPartitions(await listApiFiles(source));
    const jobs: Array<{ csv: string; out: string; rows: number }> = [];
    let csvBytes = 0;
    await withDuckDB(async (db) => {
      for (const [i, p] of partitions.entries()) {
        const tsv = path.join(csvDir, `${i}.tsv`);
        const { count } = await stagePartition(source, p, tsv);
        const csv = path.join(csvDir, `${i}.csv`);
        await db.run(`COPY (SELECT * FROM read_csv(${sqlString(tsv)}, delim='\t', header=false, quote='', escape='', nullstr='',
          columns=${OBSERVATION_COLUMNS})) TO ${sqlString(csv)} (FORMAT csv, HEADER true)`);
        await fs.rm(tsv);
        csvBytes += (await fs.stat(csv)).size;
        jobs.push({ csv, out: path.join(csvDir, `${i}.parquet`), rows: count });
      }
    });
    const rows = jobs.reduce((a, j) => a + j.rows, 0);

    const stepMs: number[] = [];
    const indexMs: number[] = [];
    const parseMs: number[] = [];
    const copyMs: number[] = [];
    const duckMs: number[] = [];
    // CPU time of this process (every thread: the parse workers', DuckDB's) over the step and over
    // the baseline's COPY statements: how much of the two cores each kept busy.
    const stepCpuMs: number[] = [];
    const duckCpuMs: number[] = [];
    const rounds = Math.max(1, Number(o.rounds));
    for (let round = 0; round < rounds; round++) {
      // 1. The real step, on its own (no orchestrator, no checksums, nothing reused).
      const outDir = path.join(work, 'step-out');
      await fs.rm(outDir, { recursive: true, force: true });
      await fs.mkdir(outDir, { recursive: true });
      const t0 = nowMs();
      const c0 = process.cpuUsage();
      const result = await runStepAlone(observationsStep, source, outDir);
      stepMs.push(nowMs() - t0);
      stepCpuMs.push(cpuMsSince(c0));
      indexMs.push(result.timings?.servingIndex ?? Number.NaN);
      parseMs.push(result.timings?.parse ?? Number.NaN);
      copyMs.push(result.timings?.copy ?? Number.NaN);
      const stepRows = Object.values(result.rows).reduce((a, b) => a + b, 0);
      if (stepRows !== rows) throw new Error(`the step wrote ${stepRows} rows, the baseline's input holds ${rows}`);

      // 2. Baseline: DuckDB alone, CSV → sorted Parquet, same sort, same options, same DuckDB
      //    settings (etl/duckdb.ts). Timed around the COPY statements only.
      let ms = 0;
      let duckCpu = 0;
      let duckRows = 0;
      await withDuckDB(async (db) => {
        for (const j of jobs) {
          const t = nowMs();
          const c = process.cpuUsage();
          await db.run(`COPY (SELECT * FROM read_csv(${sqlString(j.csv)}, header = true, delim = ',', quote = '"', escape = '"', columns = ${OBSERVATION_COLUMNS})
            ORDER BY ${OBSERVATION_ORDER}) TO ${sqlString(j.out)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSizeFor(j.rows)})`);
          ms += nowMs() - t;
          duckCpu += cpuMsSince(c);
        }
        for (const j of jobs) {
          duckRows += Number(
            (await db.runAndReadAll(`SELECT count(*) AS n FROM read_parquet(${sqlString(j.out)})`)).getRowObjectsJS()[0]!.n,
          );
        }
      });
      if (duckRows !== rows) throw new Error(`baseline wrote ${duckRows} rows, the step ${rows}`);
      duckMs.push(ms);
      duckCpuMs.push(duckCpu);
      process.stderr.write(
        `round ${round + 1}: step ${(stepMs.at(-1)! / 1000).toFixed(2)} s (CPU ${(stepCpuMs.at(-1)! / 1000).toFixed(2)} s; serving index ${(indexMs.at(-1)! / 1000).toFixed(2)} s), baseline ${(ms / 1000).toFixed(2)} s (CPU ${(duckCpu / 1000).toFixed(2)} s), load ${os.loadavg()[0]!.toFixed(1)}\n`,
      );
    }

    // Best round of each (the least disturbed by other load); the step's phases from its best round.
    const best = stepMs.indexOf(Math.min(...stepMs));
    const step = stepMs[best]!;
    const index = indexMs[best]!;
    const duck = Math.min(...duckMs);
    const s = (ms: number) => (ms / 1000).toFixed(2);
    const lines = [
      `REAL data (${source}/api): ${fmtInt(rows)} rows, ${jobs.length} partitions, ${(csvBytes / 1e6).toFixed(0)} MB as CSV; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}; best of ${rounds} interleaved rounds`,
      '',
      table(
        ['variant', 'seconds', 'rows/s'],
        [
          [
            'observations step, whole (JSON.gz → validate → TSV → DuckDB sort → Parquet → serving index)',
            s(step),
            fmtInt(rows / (step / 1000)),
          ],
          ['  of which: read + parse + staging TSV', s(parseMs[best]!), ''],
          ['  of which: DuckDB TSV → sorted Parquet, with the serving index built alongside', s(copyMs[best]!), ''],
          ['    (serving index from the parsed cells, on a parse worker, overlapping the COPY)', s(index), ''],
          ['baseline: DuckDB CSV → ORDER BY → Parquet COPY alone', s(duck), fmtInt(rows / (duck / 1000))],
        ],
      ),
      '',
      `ratio (baseline time / step time = step rate as a fraction of the baseline rate): whole step ${ratio(duck, step)}`,
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
