// `npm run bench:heavy`: does a light request stay fast while heavy ones run?
//
// A real server process (src/server.ts, as `npm start` runs it) on DATA_DIR with its own SQLite
// file. Phase 1, the same-run baseline: GET /v1/topics alone, one request at a time, for
// BENCH_SECONDS. Phase 2: the same probe while PLAN_CONCURRENCY heavy requests (the Pro plan's
// maximum, 25) are kept in flight — 40 variables × every state with geometry, ~16 MB each,
// vintages rotated — by another process (bench/lib/heavy-clients.ts): reading 25 such answers
// at full speed in the probe's own process delayed the probe's callbacks, which was then
// measured as server latency. Reports /v1/topics p50/p99 in both phases and their ratio, the
// server's own event-loop delay and longest GC pause per phase (bench/lib/loop-delay.ts,
// preloaded), the server's peak RSS (from /proc), and how the heavy requests ended (200, 503
// busy with Retry-After, other). Admission is real: keys on separate accounts.
// BENCH_SAME_PROCESS=1 runs the heavy clients in this process, as before (for comparison).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { heavyPath } from './lib/heavy-request.js';
import { timedGet } from './lib/timed-get.js';
import { nowMs, summarize } from './lib/stats.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? 'data');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const HEAVY = Number(process.env.PLAN_CONCURRENCY ?? 25);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function adminKey(db: string, plan: string, email: string): string {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/cli/admin.ts'), 'keys', 'create', '--email', email, '--plan', plan],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_PATH: db, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function probe(port: number, key: string, seconds: number, pid: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let peak = 0;
  const end = nowMs() + seconds * 1000;
  let statusOk = 0;
  while (nowMs() < end) {
    const r = await timedGet(port, '/v1/topics', key, agent);
    if (r.status === 200) statusOk++;
    samples.push(r.ms);
    peak = Math.max(peak, rssMb(pid));
    await new Promise((res) => setTimeout(res, 20));
  }
  agent.destroy();
  return { ...summarize(samples), ok: statusOk, peakRss: peak };
}

async function main() {
  if (!fs.existsSync(path.join(DATA_DIR, 'current')))
    throw new Error(`no data build under ${DATA_DIR}: run npm run etl first (or DATA_DIR=.cache/test-data)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-heavy-'));
  const db = path.join(tmp, 'accounts.sqlite');
  const probeKey = adminKey(db, 'pro', 'probe@example.org');
  // Heavy load spread over five Enterprise accounts (5 in flight each): the limits under test are
  // the server's, not one account's burst window.
  const heavyKeys = Array.from({ length: 5 }, (_, i) => adminKey(db, 'enterprise', `heavy${i}@example.org`));

  // SERVER_NODE_ARGS: extra node flags for the server only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const loopFile = path.join(tmp, 'loop-delay.jsonl');
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', '--import', path.join(ROOT, 'bench/lib/loop-delay.ts'), path.join(ROOT, 'src/server.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR,
        DATABASE_PATH: db,
        HOST: '127.0.0.1',
        PORT: '0',
        AUTO_BUILD_DATA: 'false',
        LOG_LEVEL: 'info',
        NODE_ENV: 'production',
        LOOP_DELAY_FILE: loopFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  let port = 0;
  while (!port) {
    const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
    if (m) port = Number(m[1]);
    else await new Promise((r) => setTimeout(r, 100));
  }
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
  const pid = child.pid!;
  const startRss = rssMb(pid);

  // The server's event-loop delay since the previous call (bench/lib/loop-delay.ts).
  const loopDelay = async (): Promise<{ p50: number; p99: number; max: number; gc: { n: number; maxMs: number; totalMs: number } }> => {
    const before = fs.existsSync(loopFile) ? fs.readFileSync(loopFile, 'utf8').split('\n').length : 1;
    child.kill('SIGUSR2');
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      const lines = fs.existsSync(loopFile) ? fs.readFileSync(loopFile, 'utf8').split('\n') : [''];
      if (lines.length > before) return JSON.parse(lines[lines.length - 2]!);
    }
  };

  // Warm-up: the geometries and one heavy answer, so both phases see warm caches.
  const warm = new http.Agent({ keepAlive: true });
  await timedGet(port, heavyPath(0), heavyKeys[0]!, warm);
  await loopDelay();
  const alone = await probe(port, probeKey, SECONDS, pid);
  const loopAlone = await loopDelay();

  let heavy: { outcomes: Record<string, number>; bytes: number; ms: number[] };
  let finish: () => Promise<void>;
  if (process.env.BENCH_SAME_PROCESS === '1') {
    let stop = false;
    heavy = { outcomes: {}, bytes: 0, ms: [] };
    const h = heavy;
    const loops = Array.from({ length: HEAVY }, async (_, i) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      let n = i;
      while (!stop) {
        const r = await timedGet(port, heavyPath(n++), heavyKeys[i % heavyKeys.length]!, agent);
        h.outcomes[r.status] = (h.outcomes[r.status] ?? 0) + 1;
        if (r.status === 200) {
          h.bytes = Math.max(h.bytes, r.bytes);
          h.ms.push(r.ms);
        } else await new Promise((res) => setTimeout(res, 500)); // Retry-After: back off
      }
      agent.destroy();
    });
    finish = async () => {
      stop = true;
      await Promise.all(loops);
    };
  } else {
    const clients = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench/lib/heavy-clients.ts'), String(port), String(HEAVY), heavyKeys.join(',')],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let text = '';
    clients.stdout!.on('data', (d) => (text += String(d)));
    const exited = new Promise((r) => clients.on('exit', r));
    finish = async () => {
      clients.stdin!.end();
      await exited;
      heavy = JSON.parse(text) as typeof heavy;
    };
  }
  await new Promise((r) => setTimeout(r, 2_000));
  await loopDelay();
  const loaded = await probe(port, probeKey, SECONDS, pid);
  const loopLoaded = await loopDelay();
  await finish();
  const { outcomes, bytes: heavyBytes, ms: heavyMs } = heavy!;
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));

  const fmt = (n: number) => n.toFixed(1);
  console.log(
    `bench:heavy  data=${DATA_DIR}  ${SECONDS}s per phase  heavy in flight=${HEAVY} (${(heavyBytes / 1e6).toFixed(1)} MB each, ${process.env.BENCH_SAME_PROCESS === '1' ? 'same process as the probe' : 'from another process'})  load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log('GET /v1/topics            p50 ms   p99 ms   max ms   n');
  console.log(
    `  alone (baseline)      ${fmt(alone.p50).padStart(7)}  ${fmt(alone.p99).padStart(7)}  ${fmt(alone.max).padStart(7)}  ${alone.n}`,
  );
  console.log(
    `  with heavy in flight  ${fmt(loaded.p50).padStart(7)}  ${fmt(loaded.p99).padStart(7)}  ${fmt(loaded.max).padStart(7)}  ${loaded.n}`,
  );
  console.log(`  ratio p99 loaded/alone: ${(loaded.p99 / alone.p99).toFixed(2)}   probes not 200: ${loaded.n - loaded.ok}`);
  const loopLine = (l: typeof loopAlone) =>
    `p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms; GC ${l.gc.n} pauses, longest ${fmt(l.gc.maxMs)} ms, ${fmt(l.gc.totalMs)} ms in all`;
  console.log(`server event-loop delay alone: ${loopLine(loopAlone)}`);
  console.log(`server event-loop delay heavy: ${loopLine(loopLoaded)}`);
  console.log(`server RSS: start ${fmt(startRss)} MB, peak alone ${fmt(alone.peakRss)} MB, peak with heavy ${fmt(loaded.peakRss)} MB`);
  const hs = heavyMs.length ? summarize(heavyMs) : undefined;
  console.log(`heavy outcomes: ${JSON.stringify(outcomes)}${hs ? `; 200s took p50 ${fmt(hs.p50)} ms, p99 ${fmt(hs.p99)} ms` : ''}`);
  fs.rmSync(tmp, { recursive: true, force: true });
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
