// One autocannon run summarised as the benchmarks report it: mean requests per second, p50 and
// p99 latency, and what went wrong (non-2xx answers, connection errors). Shared by bench/http.ts,
// bench/mcp.ts and bench/metrics.ts so each reads the same fields the same way.
import autocannon from 'autocannon';

export interface LoadRun {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export async function loadRun(opts: autocannon.Options): Promise<LoadRun> {
  const r = await autocannon(opts);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}
