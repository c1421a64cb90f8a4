// Values in bulk for `etl build --online`: the ACS table-based Summary File (docs/sources.md, "ACS
// Summary File"). Which (dataset, vintage) of a selection take it, the files it needs under
// --files-base, and their download into the cache: each file streamed to disk (a national table
// is hundreds of MB), complete only once renamed to its final name, so a killed run resumes file
// by file. The build reads them with etl/sources/summary-file.ts (the observations step); what
// the selection keeps (levels, states, variables) is written beside them as selection.json, so
// a changed selection is a changed input of the build.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { datasetSpec } from '../../src/domain/datasets.js';
import type { StepLogger } from '../step.js';
import { removeStalePartials } from './cache.js';
import { backoffMs, FetchError, parseRetryAfter, redact, type RetryOptions } from './http.js';
import type { Dataset, Level } from './plan.js';
import { FIRST_SEQUENCE_VINTAGE, LAST_SEQUENCE_VINTAGE } from '../sources/sequence-file.js';

/** Where the Summary File of a (dataset, vintage) lives in the cache (and so in the source tree). */
export const SUMMARY_FILE_DIR = 'summary-file';
export const SELECTION_FILE = 'selection.json';

/** First vintage of the table-based Summary File: the 2021 1-year and 2017–2021 5-year releases. */
export const FIRST_TABLE_BASED_VINTAGE = 2021;

export type ValuesSource = 'summary-file' | 'api' | 'auto';

/** Whether the Bureau publishes the table-based Summary File for (dataset, vintage); the reason when not. */
export function tableBasedPublished(dataset: Dataset, vintage: number): string | undefined {
  if (dataset !== 'acs5' && dataset !== 'acs1') return `${dataset} has no Summary File`;
  if (!datasetSpec(dataset).vintages.includes(vintage)) return `${dataset} has no ${vintage} release`;
  if (vintage < FIRST_TABLE_BASED_VINTAGE)
    return `the table-based Summary File starts with the ${FIRST_TABLE_BASED_VINTAGE} releases (earlier: sequence-based)`;
  return undefined;
}

/** `5YR` / `1YR`: the release's spelling in folder and file names. */
const span = (dataset: Dataset) => (dataset === 'acs5' ? '5' : '1');

/** Path below --files-base of a table's data file (`acsdt5y2023-b01001.dat`, lower-case table id). */
export function datUrlPath(dataset: Dataset, vintage: number, table: string): string {
  return `/programs-surveys/acs/summary_file/${vintage}/table-based-SF/data/${span(dataset)}YRData/${datFileName(dataset, vintage, table)}`;
}

export function datFileName(dataset: Dataset, vintage: number, table: string): string {
  return `acsdt${span(dataset)}y${vintage}-${table.toLowerCase()}.dat`;
}

/** Path below --files-base of the release's geography file (`Geos20235YR.txt`). */
export function geosUrlPath(dataset: Dataset, vintage: number): string {
  return `/programs-surveys/acs/summary_file/${vintage}/table-based-SF/documentation/${geosFileName(dataset, vintage)}`;
}

export function geosFileName(dataset: Dataset, vintage: number): string {
  return `Geos${vintage}${span(dataset)}YR.txt`;
}

export function summaryDir(dataset: Dataset, vintage: number): string {
  return `${SUMMARY_FILE_DIR}/${dataset}/${vintage}`;
}

/** What the build keeps of one (dataset, vintage)'s Summary File (selection.json). */
export interface SummarySelection {
  levels: Level[];
  /** null: every state. */
  states: string[] | null;
  /** Table → the estimate variables kept (`B01001_001E`), or null for the whole table. */
  tables: Record<string, string[] | null>;
}

/** The union of two selections: `--states 06` after `--states 48` keeps both, as the API path does. */
export function mergeSelections(a: SummarySelection | undefined, b: SummarySelection): SummarySelection {
  if (!a) return b;
  const tables: SummarySelection['tables'] = { ...a.tables };
  for (const [t, vars] of Object.entries(b.tables)) {
    const had = tables[t];
    tables[t] = had === undefined ? vars : had === null || vars === null ? null : [...new Set([...had, ...vars])].sort();
  }
  return {
    levels: [...new Set([...a.levels, ...b.levels])].sort(),
    states: a.states === null || b.states === null ? null : [...new Set([...a.states, ...b.states])].sort(),
    tables: Object.fromEntries(Object.entries(tables).sort(([x], [y]) => (x < y ? -1 : 1))),
  };
}

/** One (dataset, vintage) of a plan read from the Summary File. */
export interface SummaryItem {
  /** 'sequence': the sequence-based Summary File (etl/online/sequence-file.ts); absent: table-based. */
  format?: 'sequence';
  dataset: Dataset;
  vintage: number;
  selection: SummarySelection;
}

export interface SummaryFetchResult {
  downloaded: number;
  reused: number;
  /** Tables the release does not publish (404): left out with a warning. */
  missing: string[];
  failed: Array<{ path: string; error: string }>;
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/**
 * A file streamed from `url` to `target` (via a temporary name, renamed when complete). Retried
 * on network errors, 429 (Retry-After) and 5xx, a body shorter than its Content-Length, an HTML
 * page with 200, or a first line that is not `expectHead`'s start. Resolves false on 404.
 */
export async function downloadFile(url: string, target: string, expectHead: string, retry: RetryOptions): Promise<boolean> {
  const shown = redact(url, retry.secrets);
  await fs.mkdir(path.dirname(target), { recursive: true });
  let last = 'not tried';
  for (let tryIndex = 0; tryIndex <= retry.retries; tryIndex++) {
    const tmp = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
    let retryAfterMs: number | undefined;
    try {
      const res = await retry.fetchImpl(url, { signal: retry.signal, redirect: 'follow' });
      if (res.status === 404) {
        await res.body?.cancel();
        return false;
      }
      if (res.status !== 200) {
        retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        const text = (await res.text()).slice(0, 120).replace(/\s+/g, ' ');
        if (res.status !== 429 && res.status < 500) throw new FetchError(shown, `HTTP ${res.status}: ${text}`, tryIndex + 1, res.status);
        throw new Error(`HTTP ${res.status}`);
      }
      if (!res.body) throw new Error('no body');
      await pipeline(Readable.fromWeb(res.body as WebReadableStream), createWriteStream(tmp));
      const stat = await fs.stat(tmp);
      const length = res.headers.get('content-length');
      if (length !== null && Number(length) !== stat.size) throw new Error(`body cut short: ${stat.size} of ${length} bytes`);
      const fh = await fs.open(tmp, 'r');
      const head = Buffer.alloc(Math.min(256, stat.size));
      await fh.read(head, 0, head.length, 0);
      await fh.close();
      const start = head.toString('utf8');
      if (!start.startsWith(expectHead))
        throw new Error(
          /^\s*</.test(start)
            ? 'an HTML page instead of the data file'
            : `not a Summary File (starts ${JSON.stringify(start.slice(0, 40))})`,
        );
      await fs.rename(tmp, target);
      return true;
    } catch (err) {
      await fs.rm(tmp, { force: true });
      if (err instanceof FetchError) throw err;
      const e = err as Error & { cause?: { code?: string } };
      last = `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}`;
      if (tryIndex === retry.retries || retry.signal?.aborted) break;
      const wait = Math.min(retry.maxDelayMs, retryAfterMs ?? backoffMs(tryIndex, retry.baseDelayMs, retry.maxDelayMs));
      retry.log.warn(`${shown}: ${last}; retry ${tryIndex + 1}/${retry.retries} in ${wait} ms`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  throw new FetchError(shown, last, retry.retries + 1);
}

/**
 * Download the geography file and every selected table's data file of each item into the cache
 * (files already complete are kept), then write the merged selection.json.
 */
export async function fetchSummaryFiles(opts: {
  cacheDir: string;
  filesBase: string;
  items: SummaryItem[];
  retry: RetryOptions;
  log: StepLogger;
  concurrency?: number;
}): Promise<SummaryFetchResult> {
  const base = opts.filesBase.replace(/\/+$/, '');
  const result: SummaryFetchResult = { downloaded: 0, reused: 0, missing: [], failed: [] };
  const jobs: Array<{ rel: string; url: string; head: string; table?: string; item: SummaryItem }> = [];
  for (const item of opts.items) {
    const dir = summaryDir(item.dataset, item.vintage);
    jobs.push({
      rel: `${dir}/${geosFileName(item.dataset, item.vintage)}`,
      url: base + geosUrlPath(item.dataset, item.vintage),
      head: 'FILEID|',
      item,
    });
    for (const t of Object.keys(item.selection.tables))
      jobs.push({
        rel: `${dir}/${datFileName(item.dataset, item.vintage, t)}`,
        url: base + datUrlPath(item.dataset, item.vintage, t),
        head: 'GEO_ID|',
        table: t,
        item,
      });
  }
  let stale = 0;
  for (const d of new Set(jobs.map((j) => path.dirname(path.join(opts.cacheDir, j.rel))))) stale += await removeStalePartials(d);
  opts.log.info(
    `online: ${jobs.length} Summary File files into ${opts.cacheDir}${stale ? ` (removed ${stale} partial files of an interrupted run)` : ''}`,
  );
  const missing = new Map<SummaryItem, Set<string>>();
  let next = 0;
  const t0 = Date.now();
  let done = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const j = jobs[next++]!;
      const target = path.join(opts.cacheDir, j.rel);
      try {
        if (await exists(target)) result.reused++;
        else if (await downloadFile(j.url, target, j.head, opts.retry)) result.downloaded++;
        else if (j.table) {
          result.missing.push(j.rel);
          (missing.get(j.item) ?? missing.set(j.item, new Set()).get(j.item)!).add(j.table);
          opts.log.warn(`${j.rel}: not published in this release (404); the table is left out`);
        } else throw new Error('the release has no geography file (404)');
      } catch (err) {
        result.failed.push({ path: j.rel, error: (err as Error).message });
        opts.log.warn(`${j.rel}: ${(err as Error).message}`);
      }
      done++;
      const s = (Date.now() - t0) / 1000;
      if (done % 20 === 0 || done === jobs.length)
        opts.log.info(
          `summary file: ${done}/${jobs.length} files, ${(done / Math.max(s, 1e-3)).toFixed(2)} files/s, ETA ${Math.ceil(((jobs.length - done) * s) / done)} s`,
        );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, worker));
  if (result.failed.length === 0)
    for (const item of opts.items) {
      const file = path.join(opts.cacheDir, summaryDir(item.dataset, item.vintage), SELECTION_FILE);
      const gone = missing.get(item);
      const sel: SummarySelection = {
        ...item.selection,
        tables: Object.fromEntries(Object.entries(item.selection.tables).filter(([t]) => !gone?.has(t))),
      };
      const had = (await exists(file)) ? (JSON.parse(await fs.readFile(file, 'utf8')) as SummarySelection) : undefined;
      const merged = mergeSelections(had, sel);
      await fs.writeFile(`${file}.tmp`, `${JSON.stringify(merged, null, 1)}\n`);
      await fs.rename(`${file}.tmp`, file);
    }
  opts.log.info(
    `online: Summary File ${result.downloaded} downloaded, ${result.reused} already in the cache, ${result.missing.length} not published, ${result.failed.length} failed`,
  );
  return result;
}

/**
 * Whether a selection's (dataset, vintage) takes its values from the Summary File. `auto`: where
 * the table-based Summary File is published and the selection is large — tracts or block groups
 * of all states or of 10 or more. The Data API asks for tracts once per state and block groups
 * once per county (3,222 requests per table for the nation, ~4.8 days for the catalogue's
 * 2017–2024 at 4 in flight), while a Summary File table is one national file whatever the
 * selection; for a few states or the small levels the API's answers are far smaller downloads.
 */
export function usesSummaryFile(
  source: ValuesSource,
  dataset: Dataset,
  vintage: number,
  sel: { levels: readonly Level[]; states?: readonly string[] },
): { use: boolean; why: string; format?: 'sequence' } {
  const notTable = tableBasedPublished(dataset, vintage);
  const notSequence = notTable ? sequenceBasedPublished(dataset, vintage) : 'table-based';
  const format = notTable ? ({ format: 'sequence' } as const) : {};
  if (source === 'api') return { use: false, why: '--values-source api' };
  if (notTable && notSequence) return { use: false, why: `${notTable}; ${notSequence}` };
  if (source === 'summary-file') return { use: true, why: '--values-source summary-file', ...format };
  const small = sel.levels.includes('tract') || sel.levels.includes('block_group');
  const wide = sel.states === undefined || sel.states.length >= 10;
  if (small && wide)
    return {
      use: true,
      why: notTable
        ? `tracts or block groups of ${sel.states ? `${sel.states.length} states` : 'every state'}: the sequence-based Summary File, only the selected tables' sequences per state`
        : `tracts or block groups of ${sel.states ? `${sel.states.length} states` : 'every state'}: one national file per table`,
      ...format,
    };
  if (notTable && sel.levels.includes('block_group') && vintage < FIRST_API_BLOCK_GROUP_VINTAGE)
    return { use: true, why: `block groups before ${FIRST_API_BLOCK_GROUP_VINTAGE}: only the Summary File publishes them`, ...format };
  return { use: false, why: 'a small selection (no tracts or block groups of 10+ states): the Data API downloads less' };
}

/** First vintage of the Data API's block groups (etl/online/plan.ts, FIRST_API_VINTAGE). */
const FIRST_API_BLOCK_GROUP_VINTAGE = 2013;

/** Whether the sequence-based Summary File is read for (dataset, vintage); the reason when not. */
export function sequenceBasedPublished(dataset: Dataset, vintage: number): string | undefined {
  if (dataset !== 'acs5')
    return 'the sequence-based Summary File is read for acs5 only (acs1 has no tracts or block groups: the Data API answers each of its levels in one request per table)';
  if (vintage < FIRST_SEQUENCE_VINTAGE || vintage > LAST_SEQUENCE_VINTAGE)
    return `the sequence-based Summary File is read for ${FIRST_SEQUENCE_VINTAGE}–${LAST_SEQUENCE_VINTAGE} (the 2009 release's folders are laid out otherwise)`;
  return undefined;
}

/**
 * The Summary File items of an API plan: each (dataset, vintage) that `usesSummaryFile` picks, with
 * the levels, states and variables its API items named; `rest` is the plan's other API items.
 */
export function splitForSummaryFile<T extends { dataset: Dataset; vintage: number; level: Level; group: string; variables?: string[] }>(
  api: T[],
  source: ValuesSource,
  sel: {
    levels: readonly Level[];
    states?: readonly string[];
    skipped?: string[];
    datasets?: readonly Dataset[];
    vintages?: readonly number[];
    tables?: { kind: 'list'; groups: string[] } | { kind: 'catalog'; byGroup: Map<string, string[]> } | { kind: 'all' };
  },
): { summary: SummaryItem[]; rest: T[]; notes: string[] } {
  const byRelease = new Map<string, SummaryItem>();
  const rest: T[] = [];
  const notes: string[] = [];
  const decided = new Map<string, ReturnType<typeof usesSummaryFile>>();
  for (const item of api) {
    const k = `${item.dataset}/${item.vintage}`;
    if (!decided.has(k)) {
      const d = usesSummaryFile(source, item.dataset, item.vintage, sel);
      decided.set(k, d);
      const what = d.use ? `the ${d.format === 'sequence' ? 'sequence-based ' : ''}Summary File` : 'the Data API';
      notes.push(`${item.dataset} ${item.vintage}: values from ${what} (${d.why})`);
    }
    const d = decided.get(k)!;
    if (!d.use) {
      rest.push(item);
      continue;
    }
    const got =
      byRelease.get(k) ??
      byRelease
        .set(k, {
          ...(d.format ? { format: d.format } : {}),
          dataset: item.dataset,
          vintage: item.vintage,
          selection: { levels: [], states: sel.states ? [...sel.states].sort() : null, tables: {} },
        })
        .get(k)!;
    const s = got.selection;
    if (!s.levels.includes(item.level)) s.levels.push(item.level);
    const vars = item.variables ? item.variables.filter((v) => /_\d{3}E$/.test(v)) : null;
    const had = s.tables[item.group];
    s.tables[item.group] = had === undefined ? vars : had === null || vars === null ? null : [...new Set([...had, ...vars])].sort();
  }
  // Block groups before 2013: the Data API has none (the plan left them out), the sequence-based
  // Summary File has them, with the same tables as the release's other levels, or, when block
  // groups are the only level selected, the selection's tables.
  if (sel.levels.includes('block_group') && sel.tables && sel.tables.kind !== 'all')
    for (const dataset of sel.datasets ?? [])
      for (const vintage of (sel.vintages ?? []).filter((v) => v < FIRST_API_BLOCK_GROUP_VINTAGE)) {
        const k = `${dataset}/${vintage}`;
        if (byRelease.has(k) || decided.has(k)) continue;
        const d = usesSummaryFile(source, dataset, vintage, sel);
        if (!d.use || d.format !== 'sequence') continue;
        notes.push(`${dataset} ${vintage}: values from the sequence-based Summary File (${d.why})`);
        const tables: SummarySelection['tables'] =
          sel.tables.kind === 'list'
            ? Object.fromEntries(sel.tables.groups.map((g) => [g, null]))
            : Object.fromEntries([...sel.tables.byGroup].map(([g, vars]) => [g, vars.filter((v) => /_\d{3}E$/.test(v)).sort()]));
        byRelease.set(k, {
          format: 'sequence',
          dataset,
          vintage,
          selection: { levels: [], states: sel.states ? [...sel.states].sort() : null, tables },
        });
      }
  for (const it of byRelease.values())
    if (it.format === 'sequence' && sel.levels.includes('block_group') && it.vintage < FIRST_API_BLOCK_GROUP_VINTAGE) {
      if (!it.selection.levels.includes('block_group')) it.selection.levels.push('block_group');
      if (sel.skipped) {
        const left = sel.skipped.filter((x) => !x.startsWith(`${it.dataset} ${it.vintage} block_group:`));
        sel.skipped.splice(0, sel.skipped.length, ...left);
      }
    }
  for (const it of byRelease.values()) it.selection.levels.sort();
  return { summary: [...byRelease.values()], rest, notes };
}

/** Rows of a release's geography file, for the size estimate (5-year 2021: about 622,000; 1-year: about 60,000). */
const GEOS_ROWS = { acs5: 622_000, acs1: 60_000 } as const;
const MEAN_ESTIMATES_PER_TABLE = 33;

/** The --dry-run lines of the Summary File part of a plan: files and (estimated) bytes. */
export function describeSummaryFiles(all: SummaryItem[], filesBase: string): string {
  const items = all.filter((it) => it.format !== 'sequence');
  if (items.length === 0) return '';
  const lines = ['', `Summary File (table-based) from ${filesBase}:`];
  let total = 0;
  for (const it of items) {
    const tables = Object.keys(it.selection.tables);
    const rows = GEOS_ROWS[it.dataset as keyof typeof GEOS_ROWS] ?? GEOS_ROWS.acs5;
    // Whole tables are downloaded whatever variables are kept: at least as wide as the highest line
    // kept (a whole table: 33 estimates assumed), ~7.3 bytes per value, E and M (measured on the
    // stand-in's files: 4.2 GB for 332,484 rows × 1,720 values).
    const width = (vars: string[] | null) =>
      vars ? Math.max(1, ...vars.map((v) => Number(v.slice(-4, -1)) || 1)) : MEAN_ESTIMATES_PER_TABLE;
    const values = Object.values(it.selection.tables).reduce((n, vars) => n + 2 * width(vars), 0);
    const bytes = rows * (tables.length * 22 + values * 7.3) + rows * 120;
    total += bytes;
    lines.push(
      `  ${it.dataset} ${it.vintage}: ${tables.length} table files + ${geosFileName(it.dataset, it.vintage)}, ≈${(bytes / 1e9).toFixed(1)} GB; ` +
        `levels ${it.selection.levels.join(',')}; ${it.selection.states ? `states ${it.selection.states.join(',')}` : 'all states'}`,
    );
  }
  lines.push(`  total ≈${(total / 1e9).toFixed(1)} GB on disk (kept as published, read line by line by the build)`);
  return `${lines.join('\n')}\n`;
}
