// `npm run bench:first-load`: issue 37 §14, the first explorer load and a profile's series in
// headless Chromium against a freshly started production server (`npm start` with
// NODE_ENV=production over the test build, BENCH_BUILD_DIR to override), each measured
//
//   * at start — the page opened as soon as the server answers /health, while the start-up
//                warm-up (src/store/warm-up.ts) is still preparing partitions;
//   * warm     — the page opened once the warm-up logged that it finished.
//
// Every run starts its own server (nothing cached from an earlier run but the page cache), so a
// run is a first load. Timed from the click that submits the key to: the explorer's series table
// (its /v1/timeseries over the 13 ACS 1-year vintages) and map; the Texas profile's figures and
// its series ("Over time"). BENCH_RUNS (3) runs of each; the load average is printed with them.
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
async function timePage(browser: Browser, base: string, key: string, which: 'explore' | 'profile') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(which === 'explore' ? `${base}/explore` : `${base}/profile/state:48`);
    await page.getByLabel('Your API key').fill(key);
    const t0 = nowMs();
    await page.getByRole('button', { name: which === 'explore' ? 'Explore' : 'Show profile' }).click();
    const at = async (selector: string) => {
      await page.locator(selector).first().waitFor({ timeout: 60_000 });
      return nowMs() - t0;
    };
    const marks =
      which === 'explore'
        ? { map: await at('svg.map path.shape'), series: await at('[data-testid="series-table"]') }
        : { figures: await at('[data-testid="estimate"]'), series: await at('[data-testid="trends-loaded"]') };
    const api = (await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.includes('/v1/timeseries'))
        .map((e) => Math.round((e as PerformanceResourceTiming).responseEnd - e.startTime)),
    )) as number[];
    return { ...marks, timeseries_ms: api };
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
        for (const when of ['at start', 'warm'] as const) {
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
