// Preloaded into the server by bench/heavy.ts (`node --import ./bench/lib/loop-delay.ts`): the
// server's own event-loop delay and GC pauses, so the bench can tell a blocked server loop from a
// slow client. On SIGUSR2 it appends one JSON line (since the previous signal) to LOOP_DELAY_FILE
// and starts over. Not part of the service.
import fs from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.LOOP_DELAY_FILE;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 2 });
  h.enable();
  let gc = { n: 0, totalMs: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.n++;
      gc.totalMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const line = { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), gc };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    h.reset();
    gc = { n: 0, totalMs: 0, maxMs: 0 };
  });
}
