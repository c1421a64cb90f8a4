// The whole of `etl build --online` before the build proper: plan, download, fill what cannot be
// downloaded from the fallback tree, and hand back the directory to use as the source root.
import path from 'node:path';
import { buildMirrorPlan, DEFAULT_FILES_BASE, fetchSourceTree, type FetchOptions, type FetchResult } from './fetch.js';
import { fillFromFallback } from './fallback.js';
import { apiCachePath, type ApiItem, type FetchPlan } from './plan.js';
import { fetchTableShells } from './labels.js';
import { fetchSummaryFiles, type SummaryItem } from './summary-file.js';
import { fetchSequenceFiles } from './sequence-file.js';
import type { RetryOptions } from './http.js';

/** Where files that census.gov does not publish come from unless --fallback-source says otherwise. */
export const DEFAULT_FALLBACK_SOURCE = '../shared/census';

export class IncompleteDownloadError extends Error {
  constructor(readonly result: FetchResult) {
    const shown = result.failed
      .slice(0, 5)
      .map((f) => `  ${f.path}: ${f.error}`)
      .join('\n');
    super(
      `${result.failed.length} file(s) could not be downloaded; the build did not start. ` +
        `Run again to resume (complete files are kept):\n${shown}${result.failed.length > 5 ? '\n  …' : ''}`,
    );
    this.name = 'IncompleteDownloadError';
  }
}

/**
 * `selection`: the plan is an operator's selection, so the fallback tree's value files that the
 * plan does not name are linked too (a selection adds tracts for one state to the default data);
 * without it (the mirror plan) values come only from the download.
 */
export async function prepareOnlineSource(
  opts: Omit<FetchOptions, 'plan'> & {
    plan?: FetchPlan;
    fallbackDir?: string;
    selection?: boolean;
    /** Releases read from the Summary File, and the API items they stand for (kept from the fallback). */
    summary?: { items: SummaryItem[]; covers: ApiItem[] };
  },
): Promise<{ sourceDir: string; result: FetchResult; linked: string[] }> {
  const plan = opts.plan ?? (await buildMirrorPlan(opts));
  const retry: RetryOptions = {
    retries: opts.retries ?? 5,
    baseDelayMs: opts.retryBaseMs ?? 1000,
    maxDelayMs: opts.maxRetryDelayMs ?? 60_000,
    fetchImpl: opts.fetchImpl ?? fetch,
    log: opts.log,
    secrets: opts.apiKey ? [opts.apiKey, encodeURIComponent(opts.apiKey)] : [],
  };
  // The Summary File releases' table shells first: a release without them takes the Data API's documents.
  const shells = plan.shells?.length
    ? await fetchTableShells({
        cacheDir: opts.cacheDir,
        filesBase: opts.filesBase ?? DEFAULT_FILES_BASE,
        items: plan.shells,
        retry,
        log: opts.log,
      })
    : undefined;
  if (shells?.instead.length) plan.labels = [...(plan.labels ?? []), ...shells.instead];
  const result = await fetchSourceTree({ ...opts, plan });
  if (shells) {
    result.downloaded += shells.downloaded;
    result.reused += shells.reused;
    result.failed.push(...shells.failed);
  }
  if (opts.summary?.items.length) {
    const tableBased = opts.summary.items.filter((it) => it.format !== 'sequence');
    const sequenceBased = opts.summary.items.filter((it) => it.format === 'sequence');
    const common = { cacheDir: opts.cacheDir, filesBase: opts.filesBase ?? DEFAULT_FILES_BASE, retry, log: opts.log };
    for (const sf of [
      ...(tableBased.length ? [await fetchSummaryFiles({ ...common, items: tableBased })] : []),
      ...(sequenceBased.length ? [await fetchSequenceFiles({ ...common, items: sequenceBased })] : []),
    ]) {
      result.downloaded += sf.downloaded;
      result.reused += sf.reused;
      result.failed.push(...sf.failed);
    }
  }
  // A file missing from the download must stop the build, not be filled from the fallback tree.
  if (result.failed.length > 0) throw new IncompleteDownloadError(result);
  const { linked } = await fillFromFallback({
    cacheDir: opts.cacheDir,
    fallbackDir: path.resolve(opts.fallbackDir ?? DEFAULT_FALLBACK_SOURCE),
    log: opts.log,
    ...(opts.selection ? { values: { except: new Set([...plan.api, ...(opts.summary?.covers ?? [])].map(apiCachePath)) } } : {}),
  });
  return { sourceDir: opts.cacheDir, result, linked };
}
