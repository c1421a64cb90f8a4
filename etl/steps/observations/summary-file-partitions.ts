// The observations step's partitions read from the ACS table-based Summary File (the source
// tree's summary-file/{dataset}/{vintage}/, downloaded by etl/online/summary-file.ts): one pass
// over each table's national data file routes every row to the staging file of its level (tracts
// and block groups: of its state, written as level=…/state=SS/ files like the national layout of
// docs/performance.md), then DuckDB writes each staging file's Parquet and the serving index is
// read back from it. Memory: one row of one table at a time, the release's geographies (GEO_ID →
// key and NAME), and DuckDB's bounded work on one file; never a whole data file, nor a level's
// cells. A release whose files are unchanged since the previous build is hard-linked, not read.
import { closeSync, openSync, writeSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { renderValue } from '../../../src/domain/census-api/published-text.js';
import { PUBLISHED_FORM_FILE } from '../../../src/domain/census-api/published-text.js';
import { readGeos, scanDatFile, type SummaryCell, type SummaryGeo, type SummaryLevel } from '../../sources/summary-file.js';
import { readSequenceRelease, SEQUENCE_FILE_RE } from './sequence-file-release.js';
import { InputError, type StepContext } from '../../step.js';
import { SERVING_INDEX_FILE, writeServingIndex } from '../serving-index.js';
import { PartitionForm } from './published-form.js';
import { PlaceCollector } from './published-geographies.js';
import { stageFile } from './staging.js';

export const SUMMARY_FILE_DIR = 'summary-file';
const SELECTION_FILE = 'selection.json';
/** Levels written one file per state, as the national layout (src/store/observations.ts reads both). */
const PER_STATE: ReadonlySet<string> = new Set(['tract', 'block_group']);

/** What the download kept for the build (etl/online/summary-file.ts, SummarySelection). */
interface Selection {
  /** 'sequence': the sequence-based Summary File (etl/sources/sequence-file.ts); absent: table-based. */
  format?: 'sequence';
  levels: SummaryLevel[];
  states: string[] | null;
  tables: Record<string, string[] | null>;
}

/** One release of the source tree: summary-file/{dataset}/{vintage}/ and its files (source-relative). */
export interface SummaryRelease {
  dataset: string;
  vintage: number;
  files: string[];
}

const FILE_RE = new RegExp(
  `^summary-file/(acs[15])/(\\d{4})/(?:Geos\\d{4}[15]YR\\.txt|acsdt[15]y\\d{4}-[a-z0-9]+\\.dat|selection\\.json|${SEQUENCE_FILE_RE})$`,
);

/** The Summary File inputs of a source tree (complete files only: no `.partial-*`). */
export async function listSummaryFiles(sourceDir: string): Promise<string[]> {
  const out: string[] = [];
  const root = path.join(sourceDir, SUMMARY_FILE_DIR);
  for (const dataset of await fs.readdir(root).catch(() => [] as string[]))
    for (const vintage of await fs.readdir(path.join(root, dataset)).catch(() => [] as string[]))
      for (const rel of await walk(path.join(root, dataset, vintage), `${SUMMARY_FILE_DIR}/${dataset}/${vintage}`, 2))
        if (FILE_RE.test(rel)) out.push(rel);
  return out.sort();
}

/** Files below `dir` (`rel` its source-relative name), down to `depth` folders (the sequence-based state/group folders). */
async function walk(dir: string, rel: string, depth: number): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) {
      if (depth > 0) out.push(...(await walk(path.join(dir, e.name), `${rel}/${e.name}`, depth - 1)));
    } else out.push(`${rel}/${e.name}`);
  }
  return out;
}

/** Releases with a selection.json (a directory without one is a download that never finished). */
export function groupReleases(files: string[]): SummaryRelease[] {
  const by = new Map<string, SummaryRelease>();
  for (const f of files) {
    const m = FILE_RE.exec(f)!;
    const k = `${m[1]}/${m[2]}`;
    (by.get(k) ?? by.set(k, { dataset: m[1]!, vintage: Number(m[2]), files: [] }).get(k)!).files.push(f);
  }
  return [...by.values()].filter((r) => r.files.some((f) => f.endsWith(SELECTION_FILE)));
}

/** The partition keys (`acs5/2023/tract`) a release builds. */
export async function releaseKeys(sourceDir: string, r: SummaryRelease): Promise<string[]> {
  const sel = await readSelection(sourceDir, r);
  return sel.levels.map((l) => `${r.dataset}/${r.vintage}/${l}`);
}

async function readSelection(sourceDir: string, r: SummaryRelease): Promise<Selection> {
  const rel = `${SUMMARY_FILE_DIR}/${r.dataset}/${r.vintage}/${SELECTION_FILE}`;
  try {
    return JSON.parse(await fs.readFile(path.join(sourceDir, rel), 'utf8')) as Selection;
  } catch (e) {
    throw new InputError(rel, `not a Summary File selection (${(e as Error).message})`);
  }
}

/** Staging text written in blocks (a write per row would cost more than the parse). */
class StagingWriter {
  private parts: string[] = [];
  private size = 0;
  private readonly fd: number;
  rows = 0;
  sorted = true;
  private lastTable = '';
  private lastGeo = '';

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  /** Notes a geography's rows of `table` to come, for the order check (OBSERVATION_ORDER). */
  order(table: string, geo: string): void {
    if (table === this.lastTable) {
      if (geo <= this.lastGeo) this.sorted = false;
    } else if (table < this.lastTable) this.sorted = false;
    this.lastTable = table;
    this.lastGeo = geo;
  }

  write(s: string, rows: number): void {
    this.parts.push(s);
    this.size += s.length;
    this.rows += rows;
    if (this.size > 1 << 18) this.flush();
  }

  bytes(b: Uint8Array, rows: number): void {
    this.flush();
    for (let at = 0; at < b.length;) at += writeSync(this.fd, b, at);
    this.rows += rows;
    this.sorted = false;
  }

  flush(): void {
    if (this.size === 0) return;
    const buf = Buffer.from(this.parts.join(''), 'latin1');
    for (let at = 0; at < buf.length;) at += writeSync(this.fd, buf, at);
    this.parts = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

export interface ReleaseOutput {
  rows: Record<string, number>;
  index: Record<string, { tables: string[]; files: number; states?: Record<string, number> }>;
  published: Record<string, Array<[string, string | null]>>;
  cells: number;
}

/**
 * Build every partition of one release into `ctx.outDir`. `extra`: API value files of the same
 * partitions (tables the Summary File selection does not hold, e.g. linked from the fallback
 * tree), staged beside the release's rows. `copySql` is the step's TSV → Parquet statement.
 */
export async function buildRelease(
  ctx: StepContext,
  db: DuckDBConnection,
  release: SummaryRelease,
  extra: Map<string, string[]>,
  stagingDir: string,
  partitionDir: (p: { dataset: string; vintage: number; level: string }) => string,
  copySql: (tsv: string, parquet: string, rows: number, sorted: boolean) => string,
): Promise<ReleaseOutput> {
  const { dataset, vintage } = release;
  const sel = await readSelection(ctx.sourceDir, release);
  const dir = `${SUMMARY_FILE_DIR}/${dataset}/${vintage}`;
  const levels = new Set(sel.levels);
  let geos: Map<string, SummaryGeo> | undefined;
  if (sel.format !== 'sequence') {
    const geosFile = release.files.find((f) => /\/Geos\d{4}[15]YR\.txt$/.test(f));
    if (!geosFile) throw new InputError(dir, 'no geography file (Geos{YYYY}{1,5}YR.txt)');
    geos = readGeos(path.join(ctx.sourceDir, geosFile), { levels, ...(sel.states ? { states: new Set(sel.states) } : {}) });
    ctx.log.info(`summary file ${dataset} ${vintage}: ${geos.size.toLocaleString('en-US')} geographies of ${[...levels].join(', ')}`);
  }

  const writers = new Map<string, StagingWriter>();
  const writerOf = (level: string, state: string) => {
    const k = PER_STATE.has(level) ? `${level}/${state}` : level;
    let w = writers.get(k);
    if (!w) writers.set(k, (w = new StagingWriter(path.join(stagingDir, `sf-${dataset}-${vintage}-${k.replace('/', '-')}.tsv`))));
    return w;
  };
  const places = new Map<string, PlaceCollector>(sel.levels.map((l) => [l, new PlaceCollector()]));
  const forms = new Map<string, PartitionForm>(sel.levels.map((l) => [l, new PartitionForm()]));
  const tables = new Map<string, Set<string>>(sel.levels.map((l) => [l, new Set<string>()]));
  const files = new Map<string, number>(sel.levels.map((l) => [l, 0]));
  // Per level, the geographies seen (first NAME stands), and each geography's GEO_ID once.
  const seen = new Map<string, Set<string>>(sel.levels.map((l) => [l, new Set<string>()]));
  let cells = 0;
  /** One geography's cells of one table: staged, and what the compatibility endpoint needs noted. */
  const emit = (table: string, geo: SummaryGeo, geoId: string | null, row: SummaryCell[]) => {
    const w = writerOf(geo.level, geo.state);
    w.order(table, geo.key);
    const form = forms.get(geo.level)!;
    let s = '';
    for (const c of row) {
      s += `${geo.key}\t${table}\t${c.variable}\t${c.estimate ?? ''}\t${c.moe ?? ''}\t${c.estimateAnnotation ?? ''}\t${c.moeAnnotation ?? ''}\n`;
      if (!c.plain) {
        // The text the compatibility endpoint would not give back from the stored cell.
        const stem = c.variable.slice(table.length + 1, -1);
        const e = c.e === '' ? null : c.e;
        const m = c.m === '' ? null : c.m;
        if (e !== renderValue(c.estimate, c.estimateAnnotation))
          form.add({ tables: [], names: [], geoIds: [], text: [[geo.key, `${stem}E`, e]] });
        if (m !== renderValue(c.moe, c.moeAnnotation)) form.add({ tables: [], names: [], geoIds: [], text: [[geo.key, `${stem}M`, m]] });
      }
    }
    if (row.length) w.write(s, row.length);
    cells += row.length;
    const known = seen.get(geo.level)!;
    if (!known.has(geo.key)) {
      known.add(geo.key);
      places.get(geo.level)!.add([[geo.key, geo.name]]);
      // No GEO_ID (a sequence-based metro or district): the endpoint writes its own.
      form.add({ tables: [], names: [[geo.key, geo.name]], geoIds: geoId === null ? [] : [[geo.key, geoId]], text: [] });
    }
  };
  /** A table read for every level of the release: its columns in the API's order. */
  const held = (table: string, variables: string[]) => {
    const cols = variables.map((v) => v.slice(table.length + 1, -1)).flatMap((n) => [`${n}E`, `${n}EA`, `${n}M`, `${n}MA`]);
    for (const l of sel.levels) {
      tables.get(l)!.add(table);
      files.set(l, files.get(l)! + 1);
      forms.get(l)!.add({ tables: [[table, [...cols, 'GEO_ID', 'NAME'].join(' ')]], names: [], geoIds: [], text: [] });
    }
  };
  try {
    if (sel.format === 'sequence') readSequenceRelease(ctx, release, sel, stagingDir, emit, held);
    else
      for (const table of Object.keys(sel.tables).sort()) {
        const rel = `${dir}/acsdt${dataset === 'acs5' ? '5' : '1'}y${vintage}-${table.toLowerCase()}.dat`;
        if (!release.files.includes(rel)) throw new InputError(rel, `selection.json names table ${table}, but its data file is missing`);
        const keep = sel.tables[table] ? new Set(sel.tables[table]) : undefined;
        const { columns } = scanDatFile(path.join(ctx.sourceDir, rel), table, geos!, keep, (geo, geoId, row) =>
          emit(table, geo, geoId, row),
        );
        held(
          table,
          columns.map((c) => c.variable),
        );
      }
    // API value files of the same partitions: their staging lines, routed by state where the level is per state.
    for (const [level, apiFiles] of extra) {
      if (!levels.has(level as SummaryLevel)) continue;
      for (const f of apiFiles) {
        const staged = stageFile(path.join(ctx.sourceDir, f), f);
        for (const t of staged.body.tables) tables.get(level)!.add(t);
        files.set(level, files.get(level)! + 1);
        places.get(level)!.add(staged.body.places);
        forms.get(level)!.add(staged.form);
        const bytes = Buffer.from(staged.tsv.buffer, staged.tsv.byteOffset, staged.tsv.byteLength);
        if (!PER_STATE.has(level)) {
          writerOf(level, '').bytes(bytes, staged.body.rowCount);
          continue;
        }
        const byState = new Map<string, string[]>();
        for (const line of bytes.toString('latin1').split('\n')) {
          if (!line) continue;
          const st = line.slice(level.length + 1, level.length + 3);
          (byState.get(st) ?? byState.set(st, []).get(st)!).push(line);
        }
        for (const [st, lines] of byState) writerOf(level, st).bytes(Buffer.from(`${lines.join('\n')}\n`, 'latin1'), lines.length);
      }
    }
  } finally {
    for (const w of writers.values()) w.close();
  }

  const out: ReleaseOutput = { rows: {}, index: {}, published: {}, cells };
  for (const level of sel.levels) {
    const key = `${dataset}/${vintage}/${level}`;
    const levelDir = path.join(ctx.outDir, partitionDir({ dataset, vintage, level }));
    await fs.mkdir(levelDir, { recursive: true });
    const states: Record<string, number> = {};
    let total = 0;
    const targets = [...writers.entries()].filter(([k]) => k === level || k.startsWith(`${level}/`)).sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [k, w] of targets) {
      const st = k.includes('/') ? k.slice(k.indexOf('/') + 1) : undefined;
      const target = st === undefined ? levelDir : path.join(levelDir, `state=${st}`);
      await fs.mkdir(target, { recursive: true });
      const parquet = path.join(target, 'data_0.parquet');
      await db.run(copySql(w.file, parquet, w.rows, w.sorted));
      await fs.rm(w.file);
      await writeServingIndex(db, parquet, path.join(target, SERVING_INDEX_FILE));
      if (st !== undefined) states[st] = w.rows;
      total += w.rows;
    }
    if (targets.length === 0 && !PER_STATE.has(level)) {
      // No row at this level: an empty partition (the tables are loaded; nothing is published here).
      const parquet = path.join(levelDir, 'data_0.parquet');
      const empty = path.join(stagingDir, `sf-empty-${dataset}-${vintage}-${level}.tsv`);
      await fs.writeFile(empty, '');
      await db.run(copySql(empty, parquet, 0, true));
      await fs.rm(empty);
      await writeServingIndex(db, parquet, path.join(levelDir, SERVING_INDEX_FILE));
    }
    await fs.writeFile(path.join(levelDir, PUBLISHED_FORM_FILE), forms.get(level)!.json());
    out.rows[key] = total;
    out.index[key] = {
      tables: [...tables.get(level)!].sort(),
      files: files.get(level)!,
      ...(PER_STATE.has(level) ? { states } : {}),
    };
    out.published[key] = places.get(level)!.list();
    ctx.log.info(
      `summary file ${key}: ${total.toLocaleString('en-US')} rows${PER_STATE.has(level) ? ` in ${targets.length} state files` : ''}`,
    );
  }
  return out;
}
