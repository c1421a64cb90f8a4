// The observation partitions a fresh process's first requests need, prepared in the background
// once the server listens. A partition's first use hashes its files against the manifest
// (file-integrity.ts) and opens its serving index: ~0.1 s per 25 MB, so the first series over
// the 13 ACS 1-year state partitions took 2.4 s where the second took 16 ms (issue 37 §14).
// Doing it after `listen` keeps start-up where it was (docs/performance.md: start ≤ 3 s).
//
// It gives way to requests: before a partition of a level no first page reads (HELPING_LEVELS)
// it waits until no request has been in progress for WARM_UP_QUIET_MS, so a page opened right
// after a start does not share the process with work it does not need. A request
// that needs a partition the warm-up has not reached does that partition's work itself, and only
// that: its files' verdicts and its serving index are kept (file-integrity.ts, observations.ts),
// so neither the warm-up nor a later request does it again; one that needs the partition in
// progress shares its hash (FileIntegrity.verify), which runs on a worker thread.
import type { Logger } from 'pino';
import type { ObservationStore } from './observations.js';

/**
 * The order partitions are prepared in: the levels the pages open on first (the explorer's
 * states map, a state's or a county's profile), the small levels before the large, the newest
 * vintage first (the explorer's default year).
 */
const LEVEL_ORDER = ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'block_group'];

/**
 * Levels whose partitions the warm-up prepares even while requests are in progress: the first
 * pages read them (a state's series reads every state vintage), so the warm-up working from the
 * newest vintage while the request works from the oldest splits the work between them rather than
 * competing (a verdict and an index are made once, whoever comes first). Measured in Chromium on a
 * fresh server (bench:first-load, 3 runs, load 11–13): pausing for these too made the Texas profile's
 * series at start 2.1–3.6 s against 1.5–2.1 s. Other levels (counties, tracts: most of a national
 * build's bytes) wait for a quiet server.
 */
export const HELPING_LEVELS: ReadonlySet<string> = new Set(['state', 'nation']);

export interface WarmUpPlan {
  partitions: string[];
  bytes: number;
}

/** The partitions to prepare, in order, within `budgetBytes` of files to read (0: none). */
export function warmUpPlan(store: ObservationStore, budgetBytes: number): WarmUpPlan {
  const rank = (level: string) => {
    const i = LEVEL_ORDER.indexOf(level);
    return i < 0 ? LEVEL_ORDER.length : i;
  };
  const all = store
    .wholeFilePartitions()
    .map((p) => {
      const [dataset, vintage, level] = p.partition.split('/');
      return { ...p, dataset: dataset!, vintage: Number(vintage), level: level! };
    })
    .sort((a, b) => rank(a.level) - rank(b.level) || b.vintage - a.vintage || a.dataset.localeCompare(b.dataset));
  const plan: WarmUpPlan = { partitions: [], bytes: 0 };
  for (const p of all) {
    // The budget bounds the work on a national build; a partition past it is prepared on first use.
    if (plan.bytes + p.bytes > budgetBytes) continue;
    plan.partitions.push(p.partition);
    plan.bytes += p.bytes;
  }
  return plan;
}

/** The server must have had no request in progress this long before the warm-up goes on. */
export const WARM_UP_QUIET_MS = 50;
/** How often a waiting warm-up looks again. */
const POLL_MS = 10;
/**
 * The longest it waits: a server never idle (a long stream, steady traffic) still gets a
 * partition prepared now and then, a partition's work being ~0.1 s.
 */
export const WARM_UP_MAX_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once `busy()` has been false for WARM_UP_QUIET_MS (or after WARM_UP_MAX_WAIT_MS, or
 * when `stopped()`). It first lets the event loop turn, so that requests already received are
 * counted: a queued request is one in progress.
 */
async function giveWay(busy: () => boolean, stopped: () => boolean): Promise<void> {
  const since = Date.now();
  let lastBusy = -Infinity;
  for (;;) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = Date.now();
    if (stopped() || now - since >= WARM_UP_MAX_WAIT_MS) return;
    if (busy()) lastBusy = now;
    const quietFor = now - lastBusy;
    if (quietFor >= WARM_UP_QUIET_MS) return;
    await sleep(Math.min(POLL_MS, WARM_UP_QUIET_MS - quietFor));
  }
}

export interface WarmUp {
  /** Resolves when every planned partition is prepared, or the warm-up was stopped. */
  done: Promise<{ partitions: number; bytes: number; ms: number }>;
  /** Stop after the partition in progress (shutdown: before the stores close). */
  stop(): Promise<void>;
  /** The partitions begun so far, in order. */
  readonly begun: readonly string[];
}

/**
 * Prepare the plan's partitions one after another, in the background, each once the server is
 * idle: `busy` says whether a request is in progress (the HTTP server's count; none: never).
 */
export function startWarmUp(
  store: ObservationStore,
  budgetBytes: number,
  log?: Pick<Logger, 'info' | 'warn'>,
  busy: () => boolean = () => false,
): WarmUp {
  const plan = warmUpPlan(store, budgetBytes);
  let stopped = false;
  const begun: string[] = [];
  const started = Date.now();
  const done = (async () => {
    let partitions = 0;
    for (const partition of plan.partitions) {
      const level = partition.slice(partition.lastIndexOf('/') + 1);
      if (HELPING_LEVELS.has(level)) await new Promise<void>((resolve) => setImmediate(resolve));
      else await giveWay(busy, () => stopped);
      if (stopped) break;
      begun.push(partition);
      try {
        await store.prepare(partition);
        partitions++;
      } catch (err) {
        // Its first request meets the same failure and answers for it; the warm-up goes on.
        log?.warn({ err, partition }, 'warm-up: partition not prepared');
      }
    }
    const result = { partitions, bytes: plan.bytes, ms: Date.now() - started };
    if (plan.partitions.length) log?.info({ ...result, stopped }, 'warm-up: observation partitions ready for their first requests');
    return result;
  })();
  return {
    done,
    stop: async () => {
      stopped = true;
      await done;
    },
    begun,
  };
}
