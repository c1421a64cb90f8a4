// Step `observations`: every ACS value file under api/ → Parquet, one file per
// dataset / vintage / geography level (hive layout), rows sorted table-major (OBSERVATION_ORDER) so
// that row-group statistics let DuckDB read only the groups of the requested tables, and beside it
// the partition's serving index for point lookups.
//
// Values are parsed and cleaned in JS (strict validation, jam values → null + annotation) on worker
// threads, written in file order to a tab-separated staging file, and DuckDB sorts and writes the
// Parquet; the next partition is parsed while DuckDB works on this one. The serving index is built
// from the parsed cells while DuckDB sorts. A partition whose input
// files are byte-identical to the previous build's is hard-linked instead of rebuilt.
import { closeSync, openSync, writeSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { datasetByBureauPath, datasetKeys, datasetSpec } from '../../src/domain/datasets.js';
import { withDuckDB, sqlString } from '../duckdb.js';
import { InputError, type EtlStep, type StepContext } from '../step.js';
import {
  PUBLISHED_GEOGRAPHIES_FILE,
  PlaceCollector,
  readPublishedGeographies,
  type PublishedGeographies,
} from './observations/published-geographies.js';
import { ParsePool } from './observations/parse-pool.js';
import { stageFile } from './observations/staging.js';
import { PartitionForm } from './observations/published-form.js';
import { PUBLISHED_FORM_FILE } from '../../src/domain/census-api/published-text.js';
import { SERVING_INDEX_FILE, writeIndexFile, writeServingIndex } from './serving-index.js';
import { RepeatedCell, ServingIndexBuilder } from './serving-index-builder.js';
import { buildRelease, groupReleases, listSummaryFiles, releaseKeys, type SummaryRelease } from './observations/summary-file-partitions.js';

/**
 * A value file of a registered dataset: api/{vintage}/{the dataset's Bureau path}/{level}/{GROUP}.json(.gz).
 * Built from the registry when called, so a dataset registered before the build is read like acs1.
 */
function apiFilePattern(): RegExp {
  const paths = datasetKeys().map((k) => datasetSpec(k).bureauPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(
    `^api\\/(\\d{4})\\/(${paths.join('|')})\\/(nation|state|county|metro|cd|tract|block_group)\\/([A-Z0-9]+)\\.json(\\.gz)?$`,
  );
}

export interface Partition {
  dataset: string;
  vintage: number;
  level: string;
  files: string[];
}

export function partitionDir(p: { dataset: string; vintage: number; level: string }): string {
  return `observations/dataset=${p.dataset}/vintage=${p.vintage}/level=${p.level}`;
}

async function walk(dir: string, base: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) await walk(full, base, out);
    else out.push(path.relative(base, full).split(path.sep).join('/'));
  }
}

export async function listApiFiles(sourceDir: string): Promise<string[]> {
  const out: string[] = [];
  await walk(path.join(sourceDir, 'api'), sourceDir, out);
  const pattern = apiFilePattern();
  return out.filter((f) => pattern.test(f)).sort();
}

export function groupPartitions(files: string[]): Partition[] {
  const byKey = new Map<string, Partition>();
  const pattern = apiFilePattern();
  for (const f of files) {
    const m = pattern.exec(f);
    if (!m) continue;
    const [, vintage, bureauPath, level] = m;
    const dataset = datasetByBureauPath(bureauPath!)!.key;
    const key = `${dataset}/${vintage}/${level}`;
    let p = byKey.get(key);
    if (!p) byKey.set(key, (p = { dataset, vintage: Number(vintage), level: level!, files: [] }));
    p.files.push(f);
  }
  return [...byKey.values()].sort((a, b) => a.dataset.localeCompare(b.dataset) || a.vintage - b.vintage || a.level.localeCompare(b.level));
}

/**
 * Parquet writing shared with the synthetic generator and the benchmark. Rows are sorted by
 * geo_key so row-group min/max statistics skip everything but one geography's groups.
 */
export const PARQUET_OPTIONS = 'FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880';

/**
 * Row-group size for a partition of `rows` rows: about 64 groups per file, between 8,192 and
 * 122,880 rows. Measured (docs/performance.md): a one-geography lookup reads one group, so small
 * groups win on small files (16k rows: 2.9 ms vs 5.1 ms with 122,880 on the 1M-row acs1 2018
 * state file), while on national files (45M rows) too many groups cost more in statistics than
 * they save (122,880 was ~4x faster than 16,384).
 */
export function rowGroupSizeFor(rows: number): number {
  const target = 2 ** Math.ceil(Math.log2(Math.max(1, rows / 64)));
  return Math.min(122_880, Math.max(8_192, target));
}
export const OBSERVATION_COLUMNS =
  "{'geo_key': 'VARCHAR', 'table_id': 'VARCHAR', 'variable': 'VARCHAR', 'estimate': 'DOUBLE', 'moe': 'DOUBLE', 'estimate_annotation': 'VARCHAR', 'moe_annotation': 'VARCHAR'}";

/**
 * Table-major: every request names tables, so a scan (all states, a wildcard) reads only the row
 * groups of its tables; point lookups are served by the serving index instead (docs/performance.md).
 */
export const OBSERVATION_ORDER = 'table_id, geo_key, variable';

/**
 * DuckDB SQL turning a staging TSV into the sorted Parquet of one partition. A staging file whose
 * rows are already in OBSERVATION_ORDER (`sorted`, see stagePartition) is written as it is: DuckDB
 * keeps the rows' order (preserve_insertion_order, on by default), and sorting it again was about
 * a third of the COPY's CPU.
 */
export function copyTsvToParquetSql(tsv: string, parquet: string, rows: number, sorted = false): string {
  return `COPY (SELECT * FROM read_csv(${sqlString(tsv)}, delim='\t', header=false, quote='', escape='',
      nullstr='', columns=${OBSERVATION_COLUMNS})${sorted ? '' : ` ORDER BY ${OBSERVATION_ORDER}`})
    TO ${sqlString(parquet)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSizeFor(rows)})`;
}

export const INDEX_FILE = 'observations/index.json';

const POOL_MIN_FILES = 64;

/** Parse worker threads: ETL_PARSE_WORKERS, else one per core up to 4. */
function parseWorkers(): number {
  const set = process.env.ETL_PARSE_WORKERS;
  if (set !== undefined && set !== '') {
    const n = Number(set);
    if (!Number.isInteger(n) || n < 0 || n > 64)
      throw new Error(`ETL_PARSE_WORKERS must be a whole number from 0 to 64, got ${JSON.stringify(set)}`);
    return n;
  }
  return Math.min(4, os.availableParallelism());
}

async function readIndex(buildDir: string): Promise<Record<string, { tables: string[]; files: number }>> {
  try {
    return JSON.parse(await fs.readFile(path.join(buildDir, INDEX_FILE), 'utf8'));
  } catch {
    return {};
  }
}

function sameInputs(p: Partition, ctx: StepContext): boolean {
  return p.files.every((f) => ctx.previousInputs[f] !== undefined && ctx.previousInputs[f] === ctx.inputs[f]);
}

/** A previous build's directory, hard-linked file by file (nothing is rewritten). */
async function linkTree(from: string, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const e of await fs.readdir(from, { withFileTypes: true })) {
    if (e.isDirectory()) await linkTree(path.join(from, e.name), path.join(to, e.name));
    else await fs.link(path.join(from, e.name), path.join(to, e.name));
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

export const observationsStep: EtlStep = {
  name: 'observations',
  // 7: repeated columns, exactness check, published geographies (observations/geographies.json).
  // 8: table-major row order and the serving index beside each Parquet file.
  // 9: six-digit table ids (the B99 allocation tables, B992701) read like every other table.
  // 10: published-form.json beside each partition (the Census Data API's text of its cells).
  // 11: published-form.json lists every geography of the partition, also those of files without NAME.
  // 12: partitions read from the table-based Summary File (summary-file/{dataset}/{vintage}/).
  version: 12,
  outputs: ['observations'],
  listInputs: async (sourceDir) => [...(await listApiFiles(sourceDir)), ...(await listSummaryFiles(sourceDir))],

  async run(ctx) {
    const files = await listApiFiles(ctx.sourceDir);
    // Releases read from the Summary File; API files of their partitions are staged with them.
    const releases: Array<{ r: SummaryRelease; keys: string[]; extra: Map<string, string[]> }> = [];
    for (const r of groupReleases(await listSummaryFiles(ctx.sourceDir)))
      releases.push({ r, keys: await releaseKeys(ctx.sourceDir, r), extra: new Map() });
    if (files.length === 0 && releases.length === 0) throw new InputError(path.join(ctx.sourceDir, 'api'), 'no ACS value files found');
    const partitions = groupPartitions(files).filter((p) => {
      const key = `${p.dataset}/${p.vintage}/${p.level}`;
      const rel = releases.find((x) => x.keys.includes(key));
      if (rel) rel.extra.set(p.level, p.files);
      return !rel;
    });
    const rows: Record<string, number> = {};
    const notes: string[] = [];
    let reused = 0;
    const stagingDir = path.join(ctx.outDir, '.staging-observations');
    await fs.mkdir(stagingDir, { recursive: true });
    const bar = ctx.log.progress('observations (files)', files.length);
    // Which tables each partition holds: an absent cell of a held table is "not published for
    // this geography", an absent table is "not loaded in this deployment".
    const index: Record<string, { tables: string[]; files: number }> = {};
    const prevIndex = ctx.previousDir ? await readIndex(ctx.previousDir) : {};
    // The geographies every partition publishes, for the geographies step.
    const published: PublishedGeographies = {};
    const prevPublished = ctx.previousDir ? await readPublishedGeographies(ctx.previousDir) : undefined;

    // Wall time per phase. `parse` is only the time spent waiting for a partition's staging file:
    // parsing overlaps the previous partition's DuckDB work. `copy` runs from the COPY's start until
    // both it and the serving index are written; `servingIndex`, built alongside, from the same
    // start until the index is written (the two overlap).
    const timings = { parse: 0, copy: 0, servingIndex: 0 };
    const plans: Array<{ p: Partition; key: string; outDir: string; prev: string | undefined; prevRows: number | undefined }> = [];
    for (const p of partitions) {
      const key = `${p.dataset}/${p.vintage}/${p.level}`;
      const rel = partitionDir(p);
      const prev = ctx.previousDir ? path.join(ctx.previousDir, rel, 'data_0.parquet') : undefined;
      const prevRows = ctx.previousRows?.[key];
      const reuse =
        prev !== undefined &&
        prevRows !== undefined &&
        prevIndex[key] !== undefined &&
        prevPublished?.[key] !== undefined &&
        sameInputs(p, ctx) &&
        (await exists(prev)) &&
        (await exists(path.join(path.dirname(prev), PUBLISHED_FORM_FILE)));
      plans.push({ p, key, outDir: path.join(ctx.outDir, rel), prev: reuse ? prev : undefined, prevRows });
    }
    const toBuild = plans.filter((x) => x.prev === undefined);
    // Worker threads cost ~0.2 s of CPU each to start (tsx loads the parser in each): only worth it
    // for more than a handful of files. ETL_PARSE_WORKERS=0 parses on this thread.
    const workers = parseWorkers();
    const pool = workers > 0 && toBuild.reduce((n, x) => n + x.p.files.length, 0) >= POOL_MIN_FILES ? new ParsePool(workers) : undefined;
    const stage = (x: (typeof plans)[number]) => {
      const tsv = path.join(stagingDir, `${x.p.dataset}-${x.p.vintage}-${x.p.level}.tsv`);
      return stagePartition(ctx.sourceDir, x.p, tsv, (n) => bar.increment(n), pool).then((r) => ({ ...r, tsv }));
    };
    // Staging runs ahead of DuckDB, partition after partition (the pool's workers stay busy while
    // DuckDB sorts): partition i starts once i-1 is staged and i-LOOKAHEAD has been copied, which
    // bounds the staging files on disk.
    const LOOKAHEAD = 2;
    const gates = toBuild.map(() => {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    for (const g of gates.slice(0, LOOKAHEAD)) g.resolve();
    const staged: Array<ReturnType<typeof stage>> = [];
    toBuild.forEach((x, i) => {
      staged.push(Promise.all([staged[i - 1], gates[i]!.promise]).then(() => stage(x)));
      staged[i]!.catch(() => {}); // awaited in turn below; this only keeps an early failure from being "unhandled"
    });
    try {
      await withDuckDB(async (db) => {
        let built = 0;
        for (const x of plans) {
          const { p, key, outDir } = x;
          const target = path.join(outDir, 'data_0.parquet');
          await fs.mkdir(outDir, { recursive: true });
          if (x.prev !== undefined) {
            await fs.link(x.prev, target);
            const prevIdx = path.join(path.dirname(x.prev), SERVING_INDEX_FILE);
            if (await exists(prevIdx)) await fs.link(prevIdx, path.join(outDir, SERVING_INDEX_FILE));
            else await writeServingIndex(db, target, path.join(outDir, SERVING_INDEX_FILE));
            await fs.link(path.join(path.dirname(x.prev), PUBLISHED_FORM_FILE), path.join(outDir, PUBLISHED_FORM_FILE));
            index[key] = prevIndex[key]!;
            published[key] = prevPublished![key]!;
            rows[key] = x.prevRows!;
            reused++;
            bar.increment(p.files.length);
            continue;
          }
          let t = performance.now();
          const { count, tables, places, tsv, cells, sorted, form } = await staged[built]!;
          await fs.writeFile(path.join(outDir, PUBLISHED_FORM_FILE), form.json());
          timings.parse += performance.now() - t;
          t = performance.now();
          // The next partitions may stage as soon as this staging file is copied and removed, even
          // while this thread still builds the serving index (the workers would idle otherwise).
          const gate = gates[built + LOOKAHEAD];
          const copied = db.run(copyTsvToParquetSql(tsv, target, count, sorted)).then(async () => {
            await fs.rm(tsv);
            gate?.resolve();
          });
          copied.catch(() => {}); // awaited below
          // The serving index from the parsed cells, built while DuckDB sorts (on a parse worker).
          const indexed = writePartitionIndex(p, cells, path.join(outDir, SERVING_INDEX_FILE), pool).then(() => {
            timings.servingIndex += performance.now() - t;
          });
          indexed.catch(() => {}); // awaited below
          await copied;
          await indexed;
          built++;
          timings.copy += performance.now() - t;
          rows[key] = count;
          index[key] = { tables, files: p.files.length };
          published[key] = places;
        }
        for (const { r, keys, extra } of releases) {
          const inputs = [...r.files, ...[...extra.values()].flat()];
          const dirs = keys.map((k) => {
            const [dataset, vintage, level] = k.split('/') as [string, string, string];
            return partitionDir({ dataset, vintage: Number(vintage), level });
          });
          const reuse =
            ctx.previousDir !== undefined &&
            inputs.every((f) => ctx.previousInputs[f] !== undefined && ctx.previousInputs[f] === ctx.inputs[f]) &&
            keys.every((k) => prevIndex[k] !== undefined && prevPublished?.[k] !== undefined && ctx.previousRows?.[k] !== undefined) &&
            (await Promise.all(dirs.map((d) => exists(path.join(ctx.previousDir!, d, PUBLISHED_FORM_FILE))))).every(Boolean);
          if (reuse) {
            // Adding a vintage reads only its own release: this one's partitions are hard links.
            for (const d of dirs) await linkTree(path.join(ctx.previousDir!, d), path.join(ctx.outDir, d));
            for (const k of keys) {
              index[k] = prevIndex[k]!;
              published[k] = prevPublished![k]!;
              rows[k] = ctx.previousRows[k]!;
            }
            reused += keys.length;
            continue;
          }
          const t = performance.now();
          const out = await buildRelease(ctx, db, r, extra, stagingDir, partitionDir, copyTsvToParquetSql);
          timings.copy += performance.now() - t;
          Object.assign(rows, out.rows);
          Object.assign(index, out.index);
          Object.assign(published, out.published);
          notes.push(
            `${r.dataset} ${r.vintage}: ${out.cells.toLocaleString('en-US')} cells from the Summary File (${r.files.length} files)`,
          );
        }
      });
    } finally {
      await pool?.close();
    }
    bar.stop();
    await fs.writeFile(path.join(ctx.outDir, INDEX_FILE), JSON.stringify(index));
    await fs.writeFile(path.join(ctx.outDir, PUBLISHED_GEOGRAPHIES_FILE), JSON.stringify(published));
    await fs.rm(stagingDir, { recursive: true, force: true });
    notes.push(
      `${partitions.length + releases.reduce((n, x) => n + x.keys.length, 0)} partitions from ${files.length} API files and ${releases.length} Summary File releases; ${reused} reused unchanged from the previous build`,
    );
    return { rows, notes, timings };
  },
};

/**
 * Write a partition's serving index from its parsed cells: on a parse worker when there is a pool,
 * so that this thread keeps feeding the other files. A cell given twice (by two files) is an input
 * error of the partition.
 */
async function writePartitionIndex(p: Partition, cells: ServingIndexBuilder, target: string, pool: ParsePool | undefined): Promise<void> {
  const label = `api/${p.vintage}/${datasetSpec(p.dataset).bureauPath}/${p.level}/`;
  if (pool) {
    await pool.writeIndex(cells.files, target, label);
    return;
  }
  try {
    writeIndexFile(target, cells.columns());
  } catch (e) {
    throw e instanceof RepeatedCell ? new InputError(label, e.message) : e;
  }
}

/**
 * Read and parse every file of a partition into its staging TSV, in file order (so the staging
 * file, and so the build, is deterministic), on `pool`'s worker threads or else on this one.
 * Returns the row count, the tables the files hold (sorted), the geographies they publish, the
 * cells for the partition's serving index, and whether the staging file is already in
 * OBSERVATION_ORDER: every file one table, its rows in (geography, variable) order, the files'
 * tables ascending. Also used by bench:etl to give its baseline the same rows in the same order.
 */
export async function stagePartition(
  sourceDir: string,
  p: Partition,
  tsvPath: string,
  progress: (files: number) => void = () => {},
  pool?: ParsePool,
): Promise<{
  count: number;
  tables: string[];
  places: Array<[string, string | null]>;
  cells: ServingIndexBuilder;
  sorted: boolean;
  form: PartitionForm;
}> {
  const out = openSync(tsvPath, 'w');
  const cells = new ServingIndexBuilder();
  let sorted = true;
  let lastTable = '';
  let count = 0;
  const tables = new Set<string>();
  const places = new PlaceCollector();
  const form = new PartitionForm();
  // On this thread, one file per event-loop turn, so DuckDB's work for the previous partition
  // (awaited on this same loop) keeps going between files.
  const parse = pool
    ? (f: string) => pool.parse(path.join(sourceDir, f), f)
    : async (f: string) => {
        await new Promise(setImmediate);
        return stageFile(path.join(sourceDir, f), f);
      };
  // A window of files in flight (read, gunzipped and parsed concurrently), consumed in file order.
  const WINDOW = 32;
  const inFlight: Array<Promise<Awaited<ReturnType<typeof parse>>>> = [];
  const launch = (i: number) => {
    const r = parse(p.files[i]!);
    r.catch(() => {}); // awaited in order below
    inFlight.push(r);
  };
  try {
    for (let i = 0; i < Math.min(WINDOW, p.files.length); i++) launch(i);
    for (let i = 0; i < p.files.length; i++) {
      const { tsv, body, cells: fileCells, table, form: fileForm } = await inFlight.shift()!;
      if (i + WINDOW < p.files.length) launch(i + WINDOW);
      const f = p.files[i]!;
      if (body.level !== p.level)
        throw new InputError(f, `geography columns are for level ${body.level}, but the file is under ${p.level}/`);
      for (const t of body.tables) tables.add(t);
      places.add(body.places);
      form.add(fileForm);
      count += body.rowCount;
      cells.add(fileCells);
      if (body.rowCount > 0) {
        if (table === null || table <= lastTable) sorted = false;
        else lastTable = table;
      }
      // Short blocking writes to the page cache: the parsing happens elsewhere.
      for (let at = 0; at < tsv.length;) at += writeSync(out, tsv, at);
      progress(1);
    }
  } finally {
    closeSync(out);
  }
  return { count, tables: [...tables].sort(), places: places.list(), cells, sorted, form };
}
