// Values in bulk for vintages before the table-based Summary File: the ACS sequence-based Summary
// File (5-year 2010–2020; docs/sources.md, "Sequence-based Summary File", and the reader
// etl/sources/sequence-file.ts). Per release: the sequence/table lookup (which sequences hold the
// selected tables), then per folder the selection needs (the nation's; each selected state's
// All_Geographies_Not_Tracts_Block_Groups and/or Tracts_Block_Groups_Only) its geography file and
// one zip per needed sequence, each downloaded like the table-based files (downloadFile: streamed
// to a temporary name, renamed when whole; 429/5xx/cut bodies/HTML pages retried), so a killed
// run resumes file by file. Only the sequences of the selected tables are fetched, not the
// whole-state zips (`5_year_by_state/{State}_Tracts_Block_Groups_Only.zip`, every sequence).
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  geographyFileName,
  readLookup,
  sequenceFolders,
  sequenceLayout,
  sequenceZipName,
  SEQUENCE_STATES,
  type SequenceLookup,
  type SequenceTable,
} from '../sources/sequence-file.js';
import type { StepLogger } from '../step.js';
import { removeStalePartials } from './cache.js';
import type { RetryOptions } from './http.js';
import { downloadFile, mergeSelections, SELECTION_FILE, summaryDir, type SummaryFetchResult, type SummaryItem } from './summary-file.js';

export interface SequenceJob {
  rel: string;
  url: string;
  head: string;
  /** Expected bytes (an estimate, for --dry-run). */
  bytes: number;
}

/** Rows per folder, for the estimate only: tracts and block groups per state (2010 definitions), other levels. */
const ROWS = { tract: 74_001 / 52, block_group: 220_334 / 52, stateOther: 4_000, us: 120_000 };
/** Bytes per published cell in a data row (estimate or MOE, with its comma), and zip's ratio on them. */
const CELL_BYTES = 5.5;
const ZIP_RATIO = 0.25;

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/** The cache path and URL of a release's sequence/table lookup. */
export function lookupJob(item: SummaryItem, filesBase: string): SequenceJob {
  const layout = sequenceLayout(item.vintage);
  return {
    rel: `${summaryDir(item.dataset, item.vintage)}/${layout.lookupName}`,
    url: filesBase.replace(/\/+$/, '') + layout.lookup,
    head: 'F', // "File ID,Table ID,…"
    bytes: 3_000_000,
  };
}

/** The geography files and sequence zips of a release, once its lookup is known. */
export function sequenceJobs(item: SummaryItem, filesBase: string, lookup: SequenceLookup, log?: StepLogger): SequenceJob[] {
  const base = filesBase.replace(/\/+$/, '');
  const layout = sequenceLayout(item.vintage);
  const dir = summaryDir(item.dataset, item.vintage);
  const sequences = new Set<number>();
  for (const t of Object.keys(item.selection.tables)) {
    const parts = lookup.tables.get(t);
    if (!parts) {
      log?.warn(`${item.dataset} ${item.vintage}: table ${t} is not in the release's sequence/table lookup; left out`);
      delete item.selection.tables[t];
      continue;
    }
    for (const p of parts) sequences.add(p.sequence);
  }
  const jobs: SequenceJob[] = [];
  const states = item.selection.states ?? Object.keys(SEQUENCE_STATES);
  for (const f of sequenceFolders(item.selection.levels, states)) {
    const rows =
      f.usps === 'us'
        ? ROWS.us
        : f.group === 'Tracts_Block_Groups_Only'
          ? (f.levels.includes('tract') ? ROWS.tract : 0) + (f.levels.includes('block_group') ? ROWS.block_group : 0) || ROWS.tract
          : ROWS.stateOther;
    const folderUrl = layout.folder(f.folder, f.group);
    const folderRel = `${dir}/${f.folder}/${f.group}`;
    const g = geographyFileName(item.vintage, f.usps);
    jobs.push({ rel: `${folderRel}/${g}`, url: `${base}${folderUrl}/${g}`, head: 'ACSSF,', bytes: rows * 300 });
    for (const seq of [...sequences].sort((a, b) => a - b)) {
      const z = sequenceZipName(item.vintage, f.usps, seq);
      const width = lookup.widths.get(seq) ?? 100;
      jobs.push({
        rel: `${folderRel}/${z}`,
        url: `${base}${folderUrl}/${z}`,
        head: 'PK',
        bytes: 2 * rows * (40 + width * CELL_BYTES) * ZIP_RATIO,
      });
    }
  }
  return jobs;
}

async function runJobs(
  jobs: SequenceJob[],
  cacheDir: string,
  retry: RetryOptions,
  log: StepLogger,
  result: SummaryFetchResult,
  concurrency = 3,
): Promise<void> {
  let next = 0;
  let done = 0;
  const t0 = Date.now();
  const worker = async () => {
    while (next < jobs.length) {
      const j = jobs[next++]!;
      const target = path.join(cacheDir, j.rel);
      try {
        if (await exists(target)) result.reused++;
        else if (await downloadFile(j.url, target, j.head, retry)) result.downloaded++;
        else throw new Error('not published (404)');
      } catch (err) {
        result.failed.push({ path: j.rel, error: (err as Error).message });
        log.warn(`${j.rel}: ${(err as Error).message}`);
      }
      done++;
      const s = (Date.now() - t0) / 1000;
      if (done % 50 === 0 || done === jobs.length)
        log.info(
          `summary file (sequence-based): ${done}/${jobs.length} files, ${(done / Math.max(s, 1e-3)).toFixed(2)} files/s, ETA ${Math.ceil(((jobs.length - done) * s) / done)} s`,
        );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Download the lookup of each release (also for --dry-run: it says which sequences a selection needs). */
export async function fetchLookups(opts: {
  cacheDir: string;
  filesBase: string;
  items: SummaryItem[];
  retry: RetryOptions;
  log: StepLogger;
}): Promise<{ result: SummaryFetchResult; lookups: Map<SummaryItem, SequenceLookup> }> {
  const result: SummaryFetchResult = { downloaded: 0, reused: 0, missing: [], failed: [] };
  const jobs = opts.items.map((it) => lookupJob(it, opts.filesBase));
  await runJobs(jobs, opts.cacheDir, opts.retry, opts.log, result);
  const lookups = new Map<SummaryItem, SequenceLookup>();
  if (result.failed.length === 0)
    for (const [i, it] of opts.items.entries()) lookups.set(it, readLookup(path.join(opts.cacheDir, jobs[i]!.rel)));
  return { result, lookups };
}

/** Download every file the sequence-based items need, then write each release's merged selection.json. */
export async function fetchSequenceFiles(opts: {
  cacheDir: string;
  filesBase: string;
  items: SummaryItem[];
  retry: RetryOptions;
  log: StepLogger;
}): Promise<SummaryFetchResult> {
  // The build reads what selection.json says, merged with the previous run's (`--states 11` after
  // `--states 10`): so the download fetches the merged selection's files, not only this run's.
  for (const item of opts.items) {
    const file = path.join(opts.cacheDir, summaryDir(item.dataset, item.vintage), SELECTION_FILE);
    if (await exists(file)) item.selection = mergeSelections(JSON.parse(await fs.readFile(file, 'utf8')), item.selection);
  }
  const { result, lookups } = await fetchLookups(opts);
  if (result.failed.length) return result;
  const jobs = opts.items.flatMap((it) => sequenceJobs(it, opts.filesBase, lookups.get(it)!, opts.log));
  let stale = 0;
  for (const d of new Set(jobs.map((j) => path.dirname(path.join(opts.cacheDir, j.rel))))) stale += await removeStalePartials(d);
  opts.log.info(
    `online: ${jobs.length} sequence-based Summary File files into ${opts.cacheDir}${stale ? ` (removed ${stale} partial files of an interrupted run)` : ''}`,
  );
  await runJobs(jobs, opts.cacheDir, opts.retry, opts.log, result);
  if (result.failed.length === 0)
    for (const item of opts.items) {
      const file = path.join(opts.cacheDir, summaryDir(item.dataset, item.vintage), SELECTION_FILE);
      const merged = { format: 'sequence', ...item.selection };
      await fs.writeFile(`${file}.tmp`, `${JSON.stringify(merged, null, 1)}\n`);
      await fs.rename(`${file}.tmp`, file);
    }
  return result;
}

/** A detailed table's mean number of cells, when the lookup is not at hand. */
const MEAN_CELLS = 33;

/** Without the lookup: each selected table a sequence of its own, of MEAN_CELLS cells (an estimate). */
function assumedLookup(it: SummaryItem): SequenceLookup {
  const tables = new Map<string, SequenceTable[]>();
  const widths = new Map<number, number>();
  Object.keys(it.selection.tables).forEach((t, i) => {
    tables.set(t, [{ table: t, sequence: i + 1, cells: [] }]);
    widths.set(i + 1, MEAN_CELLS);
  });
  return { tables, widths };
}

/** The --dry-run lines of the sequence-based part of a plan: its files and (estimated) bytes. */
export function describeSequenceFiles(
  items: SummaryItem[],
  filesBase: string,
  lookups: Map<SummaryItem, SequenceLookup>,
  lookupFailure?: string,
): string {
  if (items.length === 0) return '';
  const lines = [
    '',
    lookupFailure
      ? `Summary File (sequence-based) from ${filesBase} (the sequence/table lookup could not be downloaded: ${lookupFailure}; each table counted as a sequence of ${MEAN_CELLS} cells):`
      : `Summary File (sequence-based) from ${filesBase} (each release's sequence/table lookup was downloaded to list its zips):`,
  ];
  let total = 0;
  let files = 0;
  for (const it of items) {
    const jobs = [lookupJob(it, filesBase), ...sequenceJobs(it, filesBase, lookups.get(it) ?? assumedLookup(it))];
    const bytes = jobs.reduce((n, j) => n + j.bytes, 0);
    total += bytes;
    files += jobs.length;
    const zips = jobs.filter((j) => j.rel.endsWith('.zip')).length;
    lines.push(
      `  ${it.dataset} ${it.vintage}: ${Object.keys(it.selection.tables).length} tables in ${zips} sequence zips + ${jobs.length - zips} geography/lookup files, ≈${(bytes / 1e6).toFixed(0)} MB; ` +
        `levels ${it.selection.levels.join(',')}; ${it.selection.states ? `states ${it.selection.states.join(',')}` : 'all states'}`,
    );
  }
  lines.push(
    `  total ${files} files, ≈${(total / 1e9).toFixed(2)} GB on disk (zips kept as published, inflated one at a time by the build)`,
  );
  return `${lines.join('\n')}\n`;
}
