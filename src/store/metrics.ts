// What the stores count for /metrics (src/http/plugins/metrics.ts registers these): DuckDB query
// time and cache lookups. Process-wide prom-client metrics in no registry of their own, so every
// app instance of a process (tests build many) can expose them. Each call on the hot path is one
// pre-resolved child's inc()/observe(): no label hashing per request.
import { Counter, Histogram } from 'prom-client';

export const duckdbQuerySeconds = new Histogram({
  name: 'census_duckdb_query_duration_seconds',
  help: 'DuckDB query time (from a pooled connection to the last row read), excluding waits for a connection.',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [],
});

export const cacheLookups = new Counter({
  name: 'census_cache_lookups_total',
  help: 'Lookups per in-process cache (data_answers, observation_results, serving_index, api_keys) by result (hit, miss).',
  labelNames: ['cache', 'result'] as const,
  registers: [],
});

export type CacheName = 'data_answers' | 'observation_results' | 'serving_index' | 'api_keys';

const children = new Map<string, { inc(): void }>();
function child(cache: CacheName, result: 'hit' | 'miss') {
  const k = `${cache}:${result}`;
  let c = children.get(k);
  if (!c) children.set(k, (c = cacheLookups.labels(cache, result)));
  return c;
}
// Resolved once: the label sets are fixed.
for (const c of ['data_answers', 'observation_results', 'serving_index', 'api_keys'] as const)
  for (const r of ['hit', 'miss'] as const) child(c, r);

export const storeMetrics = {
  duckdbQuery(seconds: number): void {
    duckdbQuerySeconds.observe(seconds);
  },
  cache(cache: CacheName, hit: boolean): void {
    child(cache, hit ? 'hit' : 'miss').inc();
  },
};
