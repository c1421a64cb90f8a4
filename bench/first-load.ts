// `npm run bench:first-load`: issue 37 §14, the first explorer load and a profile's series in
// headless Chromium against a freshly started production server (`npm start` with
// NODE_ENV=production over the test build, BENCH_BUILD_DIR to override), each measured
//
//   * at start — the page opened as soon as the server answers /health, while the start-up
//                warm-up (src/store/warm-up.ts) is still preparing partitions;
//   * warm     — the page opened once the warm-up logged that it finished.
//
// Every run starts its own server (nothing cached from an earlier run but the page cache), so a
// run is a first load. Timed in the page from the key's submission to the frame that paints: the
// explorer's series table (its /v1/timeseries over the 13 ACS 1-year vintages) and map; the Texas
// profile's figures and its series ("Over time"). BENCH_RUNS (3) runs of each; the load average is
// printed with them. BENCH_TRACE=1 prints every request's start and end; BENCH_WHEN=start|warm
// runs one case only.
// BENCH_COMPARE_DIR=<a checkout of another commit, with node_modules and dist linked>: each case
// is also run on that code, alternating with this one, for a comparison under the same load.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, freePort } from '../test/support/browser.js';
import { REPO_ROOT } from '../test/support/paths.js';
import { enterpriseAccounts } from './lib/bench-accounts.js';
import { awaitFirstAnswer } from './lib/first-answer.js';
import { nowMs } from './lib/stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DATA_DIR = path.resolve(process.env.BENCH_BUILD_DIR ?? path.join(REPO_ROOT, '.cache', 'test-data'));
/** BENCH_WHEN=start or warm: only that case (WARM_UP_BYTES=0 never warms up: \`start\` only). */
const WHEN = (['at start', 'warm'] as const).filter(
  (w) => !process.env.BENCH_WHEN || w.startsWith(process.env.BENCH_WHEN === 'start' ? 'at' : 'warm'),
);
const WARM_UP_DONE = 'warm-up: observation partitions ready';

interface Server {
  port: number;
  warmedUp: Promise<number>;
  stop(): Promise<void>;
}

const COMPARE_DIR = process.env.BENCH_COMPARE_DIR ? path.resolve(process.env.BENCH_COMPARE_DIR) : undefined;

async function startServer(dbPath: string, key: string, cwd: string): Promise<Server> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR,
      DATABASE_PATH: dbPath,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = nowMs();
  let exitCode: number | null = null;
  child.on('exit', (c) => (exitCode = c ?? 1));
  const warmedUp = new Promise<number>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.includes(WARM_UP_DONE)) {
        resolve(nowMs() - started);
        out = '';
      } else out = out.slice(-200);
    });
  });
  const agent = new http.Agent({ keepAlive: false });
  await awaitFirstAnswer({ port, path: '/health', key, agent, exited: () => exitCode, pollMs: 10 });
  return {
    port,
    warmedUp,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Milliseconds from the key's submission to each marker of the page, and the API requests' own times. */
/** What each page's load is timed to: a selector's first appearance. */
const MARKS = {
  explore: { map: 'svg.map path.shape', series: '[data-testid="series-table"]' },
  profile: { figures: '[data-testid="estimate"]', series: '[data-testid="trends-loaded"]' },
} as const;

/**
 * Milliseconds from the key's submission to each marker of the page, and the API requests' own
 * times. Both ends are taken in the page (the form's submit event; the frame after a
 * MutationObserver saw the marker's element), not by polling from here: Playwright's waitFor polls at growing intervals
 * (to 500 ms and more), which had quantised every figure to its schedule.
 */
async function timePage(browser: Browser, base: string, key: string, which: 'explore' | 'profile') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(which === 'explore' ? `${base}/explore` : `${base}/profile/state:48`);
    await page.getByLabel('Your API key').fill(key);
    const selectors = MARKS[which];
    await page.evaluate((sels: Record<string, string>) => {
      const w = window as unknown as { __bench: { t0?: number; seen: Record<string, number> } };
      w.__bench = { seen: {} };
      addEventListener('submit', () => (w.__bench.t0 = performance.now()), { capture: true, once: true });
      const pending = new Set<string>();
      new MutationObserver(() => {
        for (const [name, sel] of Object.entries(sels))
          if (w.__bench.seen[name] === undefined && !pending.has(name) && document.querySelector(sel)) {
            // Seen when the frame that paints it starts, not when it enters the DOM.
            pending.add(name);
            requestAnimationFrame(() => (w.__bench.seen[name] = performance.now()));
          }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    }, selectors);
    await page.getByRole('button', { name: which === 'explore' ? 'Explore' : 'Show profile' }).click();
    for (const sel of Object.values(selectors)) await page.locator(sel).first().waitFor({ timeout: 60_000 });
    const { t0, seen } = (await page.evaluate(
      () => (window as unknown as { __bench: { t0: number; seen: Record<string, number> } }).__bench,
    )) as {
      t0: number;
      seen: Record<string, number>;
    };
    const marks = Object.fromEntries(Object.keys(selectors).map((name) => [name, seen[name]! - t0]));
    const entries = (await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => ({ name: e.name, start: e.startTime, end: (e as PerformanceResourceTiming).responseEnd })),
    )) as { name: string; start: number; end: number }[];
    if (process.env.BENCH_TRACE) {
      // Every request's start and end, from the submission (ms): where a first load's time goes.
      for (const e of entries) {
        const u = new URL(e.name);
        console.log(
          `  ${String(Math.round(e.start - t0)).padStart(5)} → ${String(Math.round(e.end - t0)).padStart(5)}  ${u.pathname}${u.search.slice(0, 90)}`,
        );
      }
    }
    const api = entries.filter((e) => e.name.includes('/v1/timeseries')).map((e) => Math.round(e.end - e.start));
    // The page itself before the key is asked for: navigation to its load event (HTML, script, styles).
    const loaded = (await page.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
    )) as number;
    return { page_load: loaded, ...marks, timeseries_ms: api };
  } finally {
    await context.close();
  }
}

async function main() {
  const accounts = await enterpriseAccounts({ dataDir: DATA_DIR, count: 1, name: 'first-load' });
  const key = accounts.keys[0]!;
  const browser = await launchBrowser();
  const rows: string[] = [];
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const which of ['explore', 'profile'] as const) {
        for (const when of WHEN) {
          const codes = COMPARE_DIR ? (run % 2 ? [REPO_ROOT, COMPARE_DIR] : [COMPARE_DIR, REPO_ROOT]) : [REPO_ROOT];
          for (const code of codes) {
            const label = code === REPO_ROOT ? 'this' : 'compare';
            const server = await startServer(accounts.dbPath, key, code);
            try {
              let warm = '';
              if (when === 'warm') warm = ` (warm-up done ${((await server.warmedUp) / 1000).toFixed(1)} s after spawn)`;
              const load = os.loadavg()[0]!.toFixed(1);
              const t = await timePage(browser, `http://127.0.0.1:${server.port}`, key, which);
              const marks = Object.entries(t)
                .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('/') : Math.round(v)}`)
                .join(', ');
              const line = `run ${run} ${COMPARE_DIR ? `${label.padEnd(7)} ` : ''}${which.padEnd(7)} ${when.padEnd(8)}: ${marks} ms; load ${load}${warm}`;
              console.log(line);
              rows.push(line);
            } finally {
              await server.stop();
            }
          }
        }
      }
    }
  } finally {
    await browser.close();
    fs.rmSync(accounts.tmp, { recursive: true, force: true });
  }
}

void main();
