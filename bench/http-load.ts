// `npm run bench:load`: the service as deployed, under load from another process.
//
//   * the service runs as its own process (`src/server.ts`, NODE_ENV=production, default logging
//     to a discarded stdout), once cold (OBSERVATION_CACHE_CELLS=0) and once warm (default cache);
//   * the baseline is a bare fastify process (bench/lib/bare-server.ts) sending the very bytes the
//     service sent for the same request, measured in the same run, interleaved round by round;
//   * autocannon runs here, in a third process, with keys rotated over many Enterprise accounts,
//     so admission (key lookup, the usage transaction, limits) is real and the per-account burst
//     limit (6,000/min) does not bind.
//
//   * BENCH_FLOOR=1 adds a middle subject to every round: the service's own application
//     (bench/lib/stack-server.ts: buildApp, production logger and hooks) answering the same bytes
//     from a route with no authentication, charge or operation. Bare → stack → service splits a
//     request's cost into the framework as configured and what admission and the operation add.
//     The `datasets` case is the other floor: an admitted, charged route doing almost no work.
//
// Env: BENCH_SECONDS (5), BENCH_ROUNDS (2), BENCH_CONNECTIONS (10), BENCH_ACCOUNTS (100),
// DATA_DIR (.cache/test-data), BENCH_MODES (cold,warm), BENCH_CASES (comma list of case names),
// BENCH_FLOOR (1: the stack subject above), BENCH_ENCODING (br or gzip: Accept-Encoding), BENCH_CPU_PROF (directory for the service's CPU
// profile), BENCH_JSON (write the figures there).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { enterpriseAccounts } from './lib/bench-accounts.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? '.cache/test-data');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 100);
const MODES = (process.env.BENCH_MODES ?? 'cold,warm').split(',');
const FLOOR = process.env.BENCH_FLOOR === '1';
/** BENCH_ENCODING=br (or gzip): the clients ask for a compressed answer, to measure its CPU cost. */
const ENCODING = process.env.BENCH_ENCODING ?? '';

const FIVE = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E';
const TEN = `${FIVE},B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E`;
// The Census-API-compatible endpoint against /v1/data for the same cells (estimate and MOE of each
// variable × geography), in the same run: tables the acs1 2018 build holds.
const HELD_FIVE = ['B19013_001', 'B01001_002', 'B01002_001', 'B17001_002', 'B02001_002'];
const HELD_TEN = [...HELD_FIVE, 'B19301_001', 'B25010_001', 'B01001_001', 'B08006_001', 'B23001_001'];
const v1Codes = (codes: string[]) => codes.map((c) => `${c}E`).join(',');
const bureauGet = (codes: string[]) => codes.flatMap((c) => [`${c}E`, `${c}M`]).join(',');
/** 50 of California's 58 counties (06001, 06003, … 06099). */
const FIFTY_COUNTIES = Array.from({ length: 50 }, (_, i) => `county:06${String(2 * i + 1).padStart(3, '0')}`);
const ALL_CASES: Array<{ name: string; label: string; path: string; sameCellsAs?: string }> = [
  { name: 'data-1x5', label: '/v1/data 1 state × 5 variables', path: `/v1/data?variables=${FIVE}&geo=state:06&dataset=acs1&vintage=2018` },
  {
    name: 'data-52x10',
    label: '/v1/data all states × 10 variables',
    path: `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018`,
  },
  {
    name: 'data-52x10-compact',
    label: '/v1/data all states × 10 variables, format=compact',
    path: `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018&format=compact`,
  },
  // A custom region of 50 counties against the same counties as a plain list (acs5 2023, the county
  // values the real build holds): the region must cost no more than 3× the list (printed below).
  {
    name: 'region-50x10',
    label: '/v1/data a region of 50 counties × 10 variables (acs5 2023)',
    path: `/v1/data?variables=${TEN}&geo=${encodeURIComponent(`region(${FIFTY_COUNTIES.join(',')})`)}&vintage=2023`,
  },
  {
    name: 'list-50x10',
    label: '/v1/data the same 50 counties as a plain list × 10 variables (acs5 2023)',
    path: `/v1/data?variables=${TEN}&geo=${FIFTY_COUNTIES.join(';')}&vintage=2023`,
  },
  { name: 'geocode', label: '/v1/geocode lat/lng', path: '/v1/geocode?lat=38.8977&lng=-77.0365' },
  { name: 'search', label: '/v1/variables?search=median income', path: '/v1/variables?search=median%20income' },
  { name: 'datasets', label: '/v1/datasets (admitted and charged, almost no work: the floor of a charged route)', path: '/v1/datasets' },
  {
    name: 'v1-1x5-held',
    label: '/v1/data 1 state × 5 held variables',
    path: `/v1/data?variables=${v1Codes(HELD_FIVE)}&geo=state:06&dataset=acs1&vintage=2018`,
  },
  {
    name: 'census-api-1x5',
    label: '/data/2018/acs/acs1 1 state × 5 variables (E and M)',
    path: `/data/2018/acs/acs1?get=${bureauGet(HELD_FIVE)}&for=state:06`,
    sameCellsAs: 'v1-1x5-held',
  },
  {
    name: 'v1-52x10-held',
    label: '/v1/data all states × 10 held variables',
    path: `/v1/data?variables=${v1Codes(HELD_TEN)}&geo=state:*&dataset=acs1&vintage=2018`,
  },
  {
    name: 'census-api-52x10',
    label: '/data/2018/acs/acs1 all states × 10 variables (E and M)',
    path: `/data/2018/acs/acs1?get=${bureauGet(HELD_TEN)}&for=state:*`,
    sameCellsAs: 'v1-52x10-held',
  },
];
const CASES = process.env.BENCH_CASES ? ALL_CASES.filter((c) => process.env.BENCH_CASES!.split(',').includes(c.name)) : ALL_CASES;

const tsx = ['--import', 'tsx'];

async function waitForLine(stream: NodeJS.ReadableStream): Promise<string> {
  let buf = '';
  for await (const chunk of stream) {
    buf += String(chunk);
    if (buf.includes('\n')) return buf.split('\n')[0]!;
  }
  throw new Error('child exited before printing its port');
}

/**
 * A baseline process given the bodies file, and the port it prints: the bare server prints it on
 * stdout; the stack server on file descriptor 3 (`portOn: 'fd3'`), its stdout being the request
 * log, discarded as the service's is.
 */
function spawnBaseline(
  script: string,
  bodiesFile: string,
  env: NodeJS.ProcessEnv,
  portOn: 'stdout' | 'fd3' = 'stdout',
): { child: ChildProcess; port: Promise<string> } {
  const fd3 = portOn === 'fd3';
  const child = spawn(process.execPath, [...tsx, script, bodiesFile], {
    env,
    stdio: fd3 ? ['ignore', 'ignore', 'inherit', 'pipe'] : ['ignore', 'pipe', 'inherit'],
  });
  return { child, port: waitForLine((fd3 ? child.stdio[3] : child.stdout) as NodeJS.ReadableStream) };
}

async function startService(dbPath: string, cacheCells: number): Promise<{ base: string; child: ChildProcess; startMs: number }> {
  const port = 20_000 + Math.floor(Math.random() * 40_000);
  const t0 = Date.now();
  // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there on exit (node --cpu-prof).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const child = spawn(process.execPath, [...prof, ...tsx, 'src/server.ts'], {
    env: { ...serviceEnv(dbPath, cacheCells), PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${base}/health`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, child, startMs: Date.now() - t0 };
}

function serviceEnv(dbPath: string, cacheCells: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATA_DIR,
    DATABASE_PATH: dbPath,
    AUTO_BUILD_DATA: 'false',
    OBSERVATION_CACHE_CELLS: String(cacheCells),
  };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  bytes: number;
}

async function load(url: string, keys: string[] | null): Promise<Run> {
  let i = 0;
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const headers = { ...req.headers, ...(ENCODING ? { 'accept-encoding': ENCODING } : {}) };
          return keys ? { ...req, headers: { ...headers, 'x-api-key': keys[i++ % keys.length]! } } : { ...req, headers };
        },
      },
    ],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors, bytes: r.throughput.average };
}

async function main() {
  const { tmp, dbPath, keys } = await enterpriseAccounts({ dataDir: DATA_DIR, count: ACCOUNTS, name: 'load' });

  console.log(
    `bench:load — ${CONNECTIONS} connections × ${SECONDS} s × ${ROUNDS} interleaved rounds; keys over ${ACCOUNTS} Enterprise accounts; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; data ${DATA_DIR}`,
  );
  const results: Record<string, unknown>[] = [];
  for (const mode of MODES) {
    const { base, child, startMs } = await startService(dbPath, mode === 'cold' ? 0 : 250_000);
    let bare: ChildProcess | undefined;
    let stack: ChildProcess | undefined;
    try {
      console.log(`\n== ${mode} (${mode === 'cold' ? 'OBSERVATION_CACHE_CELLS=0' : 'default result cache'}); service up in ${startMs} ms`);
      const cases: typeof CASES = [];
      const bodies: string[] = [];
      for (const c of CASES) {
        const res = await fetch(base + c.path, { headers: { 'x-api-key': keys[0]! } });
        const text = await res.text();
        if (res.status !== 200) {
          console.log(`  ${c.name}: answered ${res.status}, skipped (${text.slice(0, 120)})`);
          continue;
        }
        cases.push(c);
        bodies.push(text);
      }
      const file = path.join(tmp, 'bodies.json');
      fs.writeFileSync(file, JSON.stringify(bodies));
      const b0 = spawnBaseline('bench/lib/bare-server.ts', file, process.env);
      bare = b0.child;
      const barePort = await b0.port;
      const s0 = FLOOR
        ? spawnBaseline('bench/lib/stack-server.ts', file, serviceEnv(dbPath, mode === 'cold' ? 0 : 250_000), 'fd3')
        : undefined;
      stack = s0?.child;
      const stackPort = await s0?.port;
      for (const [i, c] of cases.entries()) {
        const s: Run[] = [];
        const b: Run[] = [];
        const k: Run[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          b.push(await load(`http://127.0.0.1:${barePort}/constant/${i}`, null));
          if (stackPort) k.push(await load(`http://127.0.0.1:${stackPort}/bench/constant/${i}`, null));
          s.push(await load(base + c.path, keys));
        }
        const avg = (xs: Run[], k: keyof Run) => xs.reduce((a, r) => a + r[k], 0) / xs.length;
        const ratio = avg(s, 'rps') / avg(b, 'rps');
        const bad = s.reduce((a, r) => a + r.bad, 0);
        console.log(`  ${c.label} (${bodies[i]!.length} bytes)`);
        console.log(
          `    bare fastify, same bytes: ${avg(b, 'rps').toFixed(0)} req/s, p50 ${avg(b, 'p50').toFixed(1)} ms, p99 ${avg(b, 'p99').toFixed(1)} ms`,
        );
        if (k.length)
          console.log(
            `    app stack, same bytes   : ${avg(k, 'rps').toFixed(0)} req/s, p50 ${avg(k, 'p50').toFixed(1)} ms (${(avg(k, 'rps') / avg(b, 'rps')).toFixed(3)}× bare; no auth, charge or operation)`,
          );
        console.log(
          `    service                 : ${avg(s, 'rps').toFixed(0)} req/s, p50 ${avg(s, 'p50').toFixed(1)} ms, p99 ${avg(s, 'p99').toFixed(1)} ms${bad ? `  (${bad} non-2xx/errors!)` : ''}`,
        );
        console.log(`    ratio service ÷ bare    : ${ratio.toFixed(3)}×`);
        results.push({
          mode,
          case: c.name,
          bytes: bodies[i]!.length,
          service_rps: avg(s, 'rps'),
          service_p50: avg(s, 'p50'),
          bare_rps: avg(b, 'rps'),
          ...(k.length ? { stack_rps: avg(k, 'rps') } : {}),
          ratio,
          bad,
        });
      }
      // The compatibility endpoint's cost per request against /v1/data's for the same cells.
      for (const c of cases.filter((x) => x.sameCellsAs)) {
        const mine = results.find((r) => r.mode === mode && r.case === c.name);
        const v1 = results.find((r) => r.mode === mode && r.case === c.sameCellsAs);
        if (!mine || !v1) continue;
        const cost = (v1.service_rps as number) / (mine.service_rps as number);
        console.log(`  ${c.name} ÷ ${c.sameCellsAs}: ${cost.toFixed(3)}× the time per request (target ≤ 1.2×)`);
        mine.cost_vs_v1 = cost;
      }
    } finally {
      if (bare) await stop(bare);
      if (stack) await stop(stack);
      await stop(child);
    }
  }
  // A region against its members asked as a plain list, same run and mode (target: at most 3×).
  for (const mode of MODES) {
    const of = (name: string) =>
      results.find((r) => r.mode === mode && r.case === name) as { service_rps: number; service_p50: number } | undefined;
    const region = of('region-50x10');
    const list = of('list-50x10');
    if (region && list)
      console.log(
        `\n${mode}: a 50-county region costs ${(list.service_rps / region.service_rps).toFixed(2)}× its members as a plain list in req/s (p50 ${region.service_p50.toFixed(1)} vs ${list.service_p50.toFixed(1)} ms); target ≤ 3×`,
      );
  }
  if (process.env.BENCH_JSON)
    fs.writeFileSync(process.env.BENCH_JSON, `${JSON.stringify({ at: new Date().toISOString(), load: os.loadavg(), results }, null, 1)}\n`);
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
