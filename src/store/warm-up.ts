// The observation partitions a fresh process's first requests need, prepared in the background
// once the server listens. A partition's first use hashes its files against the manifest
// (file-integrity.ts) and opens its serving index: ~0.1 s per 25 MB, so the first series over
// the 13 ACS 1-year state partitions took 2.4 s where the second took 16 ms (issue 37 §14).
// Doing it after `listen` keeps start-up where it was (docs/performance.md: start ≤ 3 s); a
// request that arrives first shares the hash in progress (FileIntegrity.verify) instead of
// waiting for all of it, and the hashing yields to requests every MiB.
import type { Logger } from 'pino';
import type { ObservationStore } from './observations.js';

/**
 * The order partitions are prepared in: the levels the pages open on first (the explorer's
 * states map, a state's or a county's profile), the small levels before the large, the newest
 * vintage first (the explorer's default year).
 */
const LEVEL_ORDER = ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'block_group'];

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

export interface WarmUp {
  /** Resolves when every planned partition is prepared, or the warm-up was stopped. */
  done: Promise<{ partitions: number; bytes: number; ms: number }>;
  /** Stop after the partition in progress (shutdown: before the stores close). */
  stop(): Promise<void>;
}

/** Prepare the plan's partitions one after another, in the background. */
export function startWarmUp(store: ObservationStore, budgetBytes: number, log?: Pick<Logger, 'info' | 'warn'>): WarmUp {
  const plan = warmUpPlan(store, budgetBytes);
  let stopped = false;
  const started = Date.now();
  const done = (async () => {
    let partitions = 0;
    for (const partition of plan.partitions) {
      if (stopped) break;
      try {
        await store.prepare(partition);
        partitions++;
      } catch (err) {
        // Its first request meets the same failure and answers for it; the warm-up goes on.
        log?.warn({ err, partition }, 'warm-up: partition not prepared');
      }
      // One turn of the event loop between partitions, for the requests already waiting.
      await new Promise<void>((resolve) => setImmediate(resolve));
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
  };
}
