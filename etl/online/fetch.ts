// fetchSourceTree: download a plan into a cache directory laid out like ../shared/census, so the
// normal build can then run on the cache directory with no online-specific code path.
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { readApiTable } from '../sources/api-body.js';
import { serializeApiBody } from './apibody.js';
import type { StepLogger } from '../step.js';
import { fetchApiBody, FatalFetchError, getJson, joinRows, metaUrl, type ApiEndpoint } from './api.js';
import { isComplete, removeStalePartials, writeAtomic } from './cache.js';
import { redact, type RetryOptions } from './http.js';
import {
  apiCachePath,
  checkReference,
  GEOGRAPHY,
  MIRROR_ACS1_VINTAGES,
  mirrorPlan,
  parseGroupsJson,
  planFromGroups,
  type ApiItem,
  type Dataset,
  type FetchPlan,
  type Level,
} from './plan.js';
import { REFERENCE_FILES } from './reference.js';
import { fetchReference } from './reffile.js';
import { cbReference } from './shapes.js';
import { fetchLabelDocument, labelCachePath, type LabelItem } from './labels.js';

/** Cache files are gzip (CRC-checked on resume, see cache.ts) of the body byte for byte. */
const gzipped = (body: Buffer | null) => body && gzipSync(body, { level: 9 });

export const DEFAULT_API_BASE = 'https://api.census.gov';
export const DEFAULT_FILES_BASE = 'https://www2.census.gov';

export interface FetchOptions {
  cacheDir: string;
  plan: FetchPlan;
  apiBase?: string;
  filesBase?: string;
  /** Sent as `key=`; never logged or put in an error message. */
  apiKey?: string;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Retries per request after the first try (default 5). */
  retries?: number;
  /** Backoff base and cap in ms (defaults 1,000 and 60,000); tests make them small. */
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
  /** Most variables per `get=` (the API's limit, 50). */
  variableLimit?: number;
  log: StepLogger;
  fetchImpl?: typeof fetch;
  /** How often a progress line (files, requests/s, ETA) is logged; default 10 s. */
  progressEveryMs?: number;
}

export interface FetchFailure {
  /** Cache path relative to cacheDir. */
  path: string;
  /** Error naming the URL, key redacted. */
  error: string;
}

export interface FetchResult {
  downloaded: number;
  reused: number;
  /** Items the API answered with 204 No Content (valid query, no data): nothing written. */
  noData: string[];
  failed: FetchFailure[];
}

interface Job {
  path: string;
  run: () => Promise<Buffer | null>;
  /**
   * Tract and block-group files are assembled from per-state parts on every run (see
   * fetchStateParts): the file is written again even when complete, and counts as downloaded
   * only when a part was.
   */
  assembled?: () => boolean;
}

/** Where the part of one state of a tract / block-group file is kept (outside api/, so no step reads it). */
export function statePartPath(item: ApiItem, state: string): string {
  return path.posix.join('parts', path.posix.dirname(apiCachePath(item)), state, path.posix.basename(apiCachePath(item)));
}

/**
 * A tract or block-group file of a selection: each planned state's answer is cached as its own
 * part (resume is per state), then the file is the join of every part in the cache — also states
 * an earlier run fetched, so `--states 06` after `--states 48` holds both, not just the last.
 */
async function fetchStateParts(
  cacheDir: string,
  item: ApiItem,
  fetchOne: (state: string) => Promise<Buffer | null>,
): Promise<{ body: Buffer | null; fresh: boolean }> {
  let fresh = false;
  for (const st of item.states ?? []) {
    const part = path.join(cacheDir, statePartPath(item, st));
    if (await isComplete(part)) continue;
    const body = await fetchOne(st);
    if (body !== null) {
      await writeAtomic(part, gzipSync(body, { level: 9 }));
      fresh = true;
    }
  }
  const dir = path.join(cacheDir, path.dirname(path.dirname(statePartPath(item, '00'))));
  const name = path.basename(apiCachePath(item));
  let states: string[] = [];
  try {
    states = (await fs.readdir(dir)).filter((d) => /^\d\d$/.test(d)).sort();
  } catch {
    /* no part yet */
  }
  const tables = [];
  for (const st of states) {
    const part = path.join(dir, st, name);
    if (await isComplete(part)) tables.push(readApiTable(gunzipSync(await fs.readFile(part)).toString('utf8')));
  }
  if (tables.length === 0) return { body: null, fresh };
  return { body: gzipSync(serializeApiBody(joinRows(tables)), { level: 9 }), fresh };
}

function retryOptions(opts: Omit<FetchOptions, 'cacheDir' | 'plan'>, signal?: AbortSignal, counter?: { requests: number }): RetryOptions {
  const impl = opts.fetchImpl ?? fetch;
  return {
    retries: opts.retries ?? 5,
    baseDelayMs: opts.retryBaseMs ?? 1000,
    maxDelayMs: opts.maxRetryDelayMs ?? 60_000,
    fetchImpl: counter
      ? (((...args: Parameters<typeof fetch>) => {
          counter.requests++;
          return impl(...args);
        }) as typeof fetch)
      : impl,
    log: opts.log,
    secrets: opts.apiKey ? [opts.apiKey, encodeURIComponent(opts.apiKey)] : [],
    signal,
  };
}

/**
 * Download every file of `plan` that the cache does not already hold complete. Failures of
 * single files are collected in `failed` (the caller must not build from an incomplete cache);
 * a rejected API key stops the run with a FatalFetchError.
 */
export async function fetchSourceTree(opts: FetchOptions): Promise<FetchResult> {
  const abort = new AbortController();
  const counter = { requests: 0 };
  const retry = retryOptions(opts, abort.signal, counter);
  const ep: ApiEndpoint = { apiBase: opts.apiBase ?? DEFAULT_API_BASE, apiKey: opts.apiKey };
  const filesBase = opts.filesBase ?? DEFAULT_FILES_BASE;
  const jobs: Job[] = [
    ...opts.plan.api.map((item): Job => {
      if (GEOGRAPHY[item.level].scope !== 'none') {
        let fresh = false;
        return {
          path: apiCachePath(item),
          run: async () => {
            const got = await fetchStateParts(opts.cacheDir, item, (st) =>
              fetchApiBody(ep, { ...item, states: [st] }, retry, opts.variableLimit),
            );
            fresh = got.fresh;
            return got.body;
          },
          assembled: () => fresh,
        };
      }
      return {
        path: apiCachePath(item),
        run: async () => {
          const body = await fetchApiBody(ep, item, retry, opts.variableLimit);
          return body && gzipSync(body, { level: 9 });
        },
      };
    }),
    ...(opts.plan.labels ?? []).map((item) => ({
      path: labelCachePath(item),
      run: () => fetchLabelDocument(ep, item, retry).then(gzipped),
    })),
    ...opts.plan.reference.map((p) => {
      const ref = REFERENCE_FILES.find((r) => r.path === p) ?? cbReference(p);
      if (!ref?.url) throw new Error(`${p} is not a downloadable reference file`);
      return { path: p, run: () => fetchReference(filesBase, ref, retry) };
    }),
  ];
  const paths = new Set<string>();
  for (const j of jobs) {
    if (paths.has(j.path)) throw new Error(`the plan lists ${j.path} twice`);
    paths.add(j.path);
  }

  const result: FetchResult = { downloaded: 0, reused: 0, noData: [], failed: [] };
  const dirs = new Set([
    ...jobs.map((j) => path.dirname(path.join(opts.cacheDir, j.path))),
    ...opts.plan.api.flatMap((i) => (i.states ?? []).map((st) => path.dirname(path.join(opts.cacheDir, statePartPath(i, st))))),
  ]);
  let stale = 0;
  for (const d of dirs) stale += await removeStalePartials(d);
  opts.log.info(
    `online: ${opts.plan.api.length} API files, ${opts.plan.labels?.length ?? 0} label documents and ${opts.plan.reference.length} reference files into ${opts.cacheDir}` +
      (stale ? ` (removed ${stale} partial files of an interrupted run)` : ''),
  );

  const bar = opts.log.progress('download', jobs.length);
  const report = progressReporter(opts, jobs.length, counter);
  let next = 0;
  let fatal: Error | undefined;
  const worker = async () => {
    while (next < jobs.length && !fatal) {
      const job = jobs[next++]!;
      const file = path.join(opts.cacheDir, job.path);
      try {
        if (!job.assembled && (await isComplete(file))) {
          result.reused++;
        } else {
          const data = await job.run();
          if (data === null) result.noData.push(job.path);
          else {
            await writeAtomic(file, data);
            if (job.assembled && !job.assembled()) result.reused++;
            else result.downloaded++;
          }
        }
      } catch (err) {
        if (err instanceof FatalFetchError) {
          fatal ??= err;
          abort.abort();
        } else {
          const error = redact((err as Error).message, retry.secrets);
          result.failed.push({ path: job.path, error });
          opts.log.warn(`${job.path}: ${error}`);
        }
      }
      bar.increment();
      report.done();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  bar.stop();
  report.stop();
  if (fatal) throw fatal;
  opts.log.info(
    `online: ${result.downloaded} downloaded, ${result.reused} already in the cache, ` +
      `${result.noData.length} without data, ${result.failed.length} failed`,
  );
  return result;
}

/**
 * A line every `progressEveryMs` (default 10 s) with files done, requests per second and the
 * time left at the rate so far: a national download runs for hours, in a log as on a terminal.
 */
function progressReporter(opts: Pick<FetchOptions, 'log' | 'progressEveryMs'>, total: number, counter: { requests: number }) {
  const t0 = Date.now();
  let files = 0;
  let last = t0;
  const every = opts.progressEveryMs ?? 10_000;
  const line = () => {
    const s = (Date.now() - t0) / 1000;
    const rate = files / Math.max(s, 1e-3);
    const left = rate > 0 ? (total - files) / rate : Number.NaN;
    const eta = Number.isFinite(left)
      ? left >= 3600
        ? `${(left / 3600).toFixed(1)} h`
        : left >= 60
          ? `${Math.round(left / 60)} min`
          : `${Math.ceil(left)} s`
      : '?';
    opts.log.info(
      `download: ${files}/${total} files (${Math.floor((100 * files) / Math.max(total, 1))}%), ${counter.requests} requests, ` +
        `${(counter.requests / Math.max(s, 1e-3)).toFixed(1)} requests/s, ${rate.toFixed(2)} files/s, ETA ${eta}`,
    );
  };
  return {
    done: () => {
      files++;
      if (Date.now() - last >= every) {
        last = Date.now();
        line();
      }
    },
    stop: () => {
      if (files > 0 && Date.now() - t0 >= every) line();
    },
  };
}

/**
 * The groups a dataset vintage publishes, from the API's `groups.json`. `labelsCache`: the download
 * cache, when the selection's labels (labels.ts) include this groups.json: the document is then
 * the labels' own, read from the cache when complete, else downloaded, checked as a label document
 * and cached, so the labels download finds it there (--all-tables fetched it twice).
 */
export async function fetchGroupList(
  opts: Omit<FetchOptions, 'cacheDir' | 'plan'> & { vintage: number; dataset: Dataset; labelsCache?: string },
): Promise<string[]> {
  const ep: ApiEndpoint = { apiBase: opts.apiBase ?? DEFAULT_API_BASE, apiKey: opts.apiKey };
  const retry = retryOptions(opts);
  const url = metaUrl(ep, opts.vintage, opts.dataset, 'groups.json');
  const where = redact(url, retry.secrets);
  if (opts.labelsCache === undefined) return parseGroupsJson(await getJson(url, retry), where);
  const item: LabelItem = { dataset: opts.dataset, vintage: opts.vintage, doc: 'groups.json' };
  const file = path.join(opts.labelsCache, labelCachePath(item));
  let body: Buffer | null;
  if (await isComplete(file)) body = gunzipSync(await fs.readFile(file));
  else {
    body = await fetchLabelDocument(ep, item, retry);
    if (body === null) throw new Error(`${where}: the Data API has no groups.json for ${opts.dataset} ${opts.vintage}`);
    await writeAtomic(file, gzipped(body)!);
  }
  return parseGroupsJson(JSON.parse(body.toString('utf8')), where);
}

/**
 * A plan of every group each (vintage, dataset) lists in its groups.json, at the given levels;
 * `filter` narrows the groups (e.g. detailed tables only).
 */
export async function planFromGroupsJson(
  opts: Omit<FetchOptions, 'cacheDir' | 'plan'> & {
    vintages: number[];
    datasets: Dataset[];
    levels: Level[];
    filter?: (group: string) => boolean;
    reference?: string[];
  },
): Promise<FetchPlan> {
  const plans: FetchPlan[] = [];
  for (const vintage of opts.vintages)
    for (const dataset of opts.datasets) {
      const groups = (await fetchGroupList({ ...opts, vintage, dataset })).filter(opts.filter ?? (() => true));
      plans.push(planFromGroups({ vintages: [vintage], datasets: [dataset], levels: opts.levels, groups }));
    }
  return { api: plans.flatMap((p) => p.api), reference: checkReference(opts.reference ?? []) };
}

/** `mirrorPlan` with each acs1 vintage's groups taken from its groups.json. */
export async function buildMirrorPlan(opts: Omit<FetchOptions, 'cacheDir' | 'plan'>): Promise<FetchPlan> {
  const groups = new Map<number, string[]>();
  for (const vintage of MIRROR_ACS1_VINTAGES) groups.set(vintage, await fetchGroupList({ ...opts, vintage, dataset: 'acs1' }));
  return mirrorPlan(groups);
}
