// The labels of a selection, from the Census Data API's own metadata documents: for each (dataset,
// vintage) selected, `groups.json` (every table's title, and its universe where the vintage gives
// one) and the variables of the selected tables, each cached as the gzip of the body byte for byte
// (etl/sources/api-metadata.ts reads them, with the shells and lists of ../shared, in one code path).
//
// Which variables document: `groups/{T}.json` per table for --tables and --catalog (the catalogue's
// 122 tables are about 4 MB of JSON a vintage), `variables.json` for --all-tables (one request
// instead of ~1,200 for the same ~30 MB: every variable of every table is in it).
//
// A release whose values come from the table-based Summary File (--values-source summary-file, or
// auto when it picks it) takes its labels from that release's table shells instead
// (`ACS{YYYY}{1|5}YR_Table_Shells.txt` beside the Geos file, read by etl/sources/table-shells.ts):
// the Bureau's file of the same release and server as the values, one download for every table,
// no key. When the release has no shells (404), its Data API documents are fetched as before. A
// fallback tree whose shells describe the vintage still wins over both (nothing is downloaded).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { datasetSpec } from '../../src/domain/datasets.js';
import { apiMetadataPath, validateMetadataDocument, type MetadataDocument } from '../sources/api-metadata.js';
import { tableShellsPath } from '../sources/table-shells.js';
import type { StepLogger } from '../step.js';
import { BodyError } from './apibody.js';
import { removeStalePartials } from './cache.js';
import { FatalFetchError, keyPage, metaUrl, type ApiEndpoint } from './api.js';
import { getWithRetry, snippet, type Attempt, type Response200, type RetryOptions } from './http.js';
import type { Dataset, LabelItem, ShellsItem } from './plan.js';
import { downloadFile } from './summary-file.js';

export type { LabelItem, ShellsItem };

export const labelCachePath = (item: LabelItem): string => apiMetadataPath(item.dataset, item.vintage, item.doc);

/** Bytes of one document as the API serves it (for --dry-run): measured on acs5 2023. */
export const LABEL_BYTES = { groups: 250_000, perTable: 33_000, variables: 30_000_000 };

/** Whether a fallback source tree has Census Reporter's shells for a dataset vintage (every table). */
export function fallbackDescribes(fallbackDir: string, dataset: Dataset, vintage: number): boolean {
  return existsSync(path.join(fallbackDir, 'metadata', dataset, String(vintage), 'census_column_metadata.csv.gz'));
}

/**
 * The documents a selection needs: what `tables` names, for every selected dataset and vintage
 * except those `described` says the fallback already labels (its shells cover every table, and a
 * build over ../shared keeps serving the labels it always served).
 */
export function planLabels(
  opts: {
    datasets: Dataset[];
    vintages: number[];
    tables: { kind: 'list'; groups: string[] } | { kind: 'catalog'; byGroup: Map<string, string[]> } | { kind: 'all' };
  },
  described: (dataset: Dataset, vintage: number) => boolean = () => false,
): LabelItem[] {
  const out: LabelItem[] = [];
  for (const dataset of opts.datasets)
    for (const vintage of opts.vintages) {
      if (!datasetSpec(dataset).vintages.includes(vintage) || described(dataset, vintage)) continue;
      out.push({ dataset, vintage, doc: 'groups.json' });
      const groups =
        opts.tables.kind === 'list' ? opts.tables.groups : opts.tables.kind === 'catalog' ? [...opts.tables.byGroup.keys()] : null;
      if (groups === null) out.push({ dataset, vintage, doc: 'variables.json' });
      else for (const g of [...new Set(groups)].sort()) out.push({ dataset, vintage, doc: `groups/${g}.json` });
    }
  return out;
}

/**
 * What the API answered for a document: the body, or null for 404/400 (the table is not published
 * in that vintage: the build then has no labels for it from the API, as the value request has no
 * rows). A body that is not the document (an HTML page with 200, a cut or foreign JSON) is retried
 * and then fails the download with the reason; a key page stops the run.
 */
function acceptDocument(doc: MetadataDocument) {
  return (res: Response200): Attempt<Buffer | null> => {
    // 404 (and 400, the API's plain-text refusal): no such document; labels then come from elsewhere.
    if (res.status === 404 || res.status === 400) return { ok: true, value: null };
    if (res.status !== 200) return { ok: false, retry: false, reason: `HTTP ${res.status}${snippet(res.body)}` };
    const keyProblem = keyPage(res);
    if (keyProblem) throw new FatalFetchError(keyProblem);
    try {
      validateMetadataDocument(doc, res.body);
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      return { ok: false, retry: true, reason: `malformed body: ${err.message}` };
    }
    return { ok: true, value: res.body };
  };
}

/** Download one document; the body as served, or null when the API has no such document. */
export async function fetchLabelDocument(ep: ApiEndpoint, item: LabelItem, retry: RetryOptions): Promise<Buffer | null> {
  return getWithRetry(metaUrl(ep, item.vintage, item.dataset, item.doc), acceptDocument(item.doc), retry);
}

/**
 * The label documents of a selection split by source: releases `fromShells` names (their values
 * come from the Summary File) get their table shells, the Data API's documents kept as `instead`;
 * the others keep the Data API's documents (planLabels).
 */
export function planLabelSources(
  opts: Parameters<typeof planLabels>[0],
  described: (dataset: Dataset, vintage: number) => boolean,
  fromShells: (dataset: Dataset, vintage: number) => boolean,
): { labels: LabelItem[]; shells: ShellsItem[] } {
  const labels: LabelItem[] = [];
  const shells = new Map<string, ShellsItem>();
  for (const item of planLabels(opts, described)) {
    if (!fromShells(item.dataset, item.vintage) || tableShellsPath(item.dataset, item.vintage) === null) {
      labels.push(item);
      continue;
    }
    const k = `${item.dataset}/${item.vintage}`;
    const got = shells.get(k) ?? shells.set(k, { dataset: item.dataset, vintage: item.vintage, instead: [] }).get(k)!;
    got.instead.push(item);
  }
  return { labels, shells: [...shells.values()] };
}

/** Where a release's shells go in the cache: the source tree's path, as published (not gzipped). */
export const shellsCachePath = (item: Pick<ShellsItem, 'dataset' | 'vintage'>): string =>
  tableShellsPath(item.dataset, item.vintage, false)!;

/** Path below --files-base (www2.census.gov/programs-surveys/acs/summary_file/…/documentation/). */
export const shellsUrlPath = (item: Pick<ShellsItem, 'dataset' | 'vintage'>): string => `/programs-surveys/acs/${shellsCachePath(item)}`;

/** Bytes of one release's shells (for --dry-run): every Detailed Table line, about 36,000 lines of ~140 bytes. */
export const SHELLS_BYTES = 5_000_000;

/** The --dry-run lines of the shells part of a plan. */
export function describeShells(items: ShellsItem[], filesBase: string): string {
  if (items.length === 0) return '';
  return (
    `\nTable shells (labels, titles, universes of every table) from ${filesBase}, for the Summary File releases:\n` +
    items
      .map(
        (i) =>
          `  ${i.dataset} ${i.vintage}: ${path.basename(shellsCachePath(i))}, ≈${SHELLS_BYTES / 1e6} MB (if absent: ${i.instead.length} Data API documents instead)\n`,
      )
      .join('')
  );
}

/**
 * Download each release's shells into the cache (a complete file is kept). The Data API documents
 * of releases without shells (404) are returned, for the label download to fetch instead.
 */
export async function fetchTableShells(opts: {
  cacheDir: string;
  filesBase: string;
  items: ShellsItem[];
  retry: RetryOptions;
  log: StepLogger;
}): Promise<{ downloaded: number; reused: number; failed: Array<{ path: string; error: string }>; instead: LabelItem[] }> {
  const out = { downloaded: 0, reused: 0, failed: [] as Array<{ path: string; error: string }>, instead: [] as LabelItem[] };
  const base = opts.filesBase.replace(/\/+$/, '');
  for (const item of opts.items) {
    const rel = shellsCachePath(item);
    const target = path.join(opts.cacheDir, rel);
    try {
      // A killed run's partial download (downloadFile's temporary name) goes; the file is fetched again.
      await removeStalePartials(path.dirname(target));
      if (existsSync(target)) out.reused++;
      // The header's first field: a page or another file is retried, then refused (downloadFile).
      else if (await downloadFile(base + shellsUrlPath(item), target, 'Table ID|', opts.retry)) out.downloaded++;
      else {
        opts.log.warn(`${rel}: not published (404); labels of ${item.dataset} ${item.vintage} from the Data API instead`);
        out.instead.push(...item.instead);
      }
    } catch (err) {
      out.failed.push({ path: rel, error: (err as Error).message });
      opts.log.warn(`${rel}: ${(err as Error).message}`);
    }
  }
  return out;
}
