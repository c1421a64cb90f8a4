// Shared timing helpers for the benchmarks: percentiles, bounded sampling loops, and the
// "subject vs same-run baseline" ratio lines every benchmark reports.

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    min: s[0] ?? Number.NaN,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? Number.NaN,
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

export interface LoopOptions {
  /** Untimed runs first (JIT, footer cache, page cache). */
  warmup?: number;
  /** Stop after this many timed iterations … */
  iterations?: number;
  /** … or once this much time has been spent on timed iterations, whichever comes first. */
  maxMs?: number;
  /** Always take at least this many samples (even past maxMs). */
  minIterations?: number;
}

/**
 * Time several variants interleaved (A, B, A, B, …) so that load from other processes on a shared
 * machine hits every variant alike. `fns[k](i)` runs iteration i of variant k. Returns ms samples.
 */
export async function interleaved(fns: Array<(i: number) => Promise<unknown>>, opts: LoopOptions = {}): Promise<number[][]> {
  const warmup = opts.warmup ?? 3;
  const iterations = opts.iterations ?? 200;
  const maxMs = opts.maxMs ?? 10_000;
  const minIterations = opts.minIterations ?? 10;
  for (let i = 0; i < warmup; i++) for (const f of fns) await f(-1 - i);
  const samples = fns.map(() => [] as number[]);
  const start = nowMs();
  for (let i = 0; i < iterations; i++) {
    if (i >= minIterations && nowMs() - start > maxMs) break;
    for (let k = 0; k < fns.length; k++) {
      const t0 = nowMs();
      await fns[k]!(i);
      samples[k]!.push(nowMs() - t0);
    }
  }
  return samples;
}

export const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');

/** `subject / baseline`, printed as `1.23×`. */
export function ratio(subject: number, baseline: number): string {
  return `${(subject / baseline).toFixed(2)}×`;
}

/** One line: `label  p50 … p95 … p99 … (n)`. */
export function latencyLine(label: string, s: Summary): string {
  return `${label.padEnd(66)} p50 ${fmtMs(s.p50).padStart(7)} ms  p95 ${fmtMs(s.p95).padStart(7)} ms  p99 ${fmtMs(s.p99).padStart(7)} ms  (n=${s.n})`;
}

/** Print a fixed-width table (first column left-aligned, the rest right-aligned). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
