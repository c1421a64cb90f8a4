// `npm run bench:http`: autocannon against GET /v1/data (one geography, five variables, real
// data, real key, real admission) and GET /v1/geocode (a coordinate), each against a bare fastify
// route returning a constant body of the same size in the same run. Reports both and the ratio:
// what the service costs over the framework itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { openAccountStores } from '../src/store/accounts/index.js';
import { resolveCurrentBuild } from '../src/store/data-dir.js';
import { openDataStores } from '../src/store/open.js';
import { adminIssueKey } from '../src/verbs/account-admin-issue-key.js';
import { admitRequest } from '../src/verbs/admit-request.js';
import { defaultSeams } from '../src/verbs/lifecycle/seams.js';
import type { Stores, VerbContext } from '../src/context/verb-context.js';
import { loadRun, type LoadRun } from './lib/load-run.js';

const DATA_DIR = process.env.DATA_DIR ?? 'data';
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CASES = [
  {
    name: 'GET /v1/data (1 geo, 5 vars)',
    path: '/v1/data?variables=B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E&geo=state:06&dataset=acs1&vintage=2018',
  },
  { name: 'GET /v1/geocode (lat/lng)', path: '/v1/geocode?lat=38.8977&lng=-77.0365' },
];

const run = (url: string, headers: Record<string, string>) => loadRun({ url, connections: CONNECTIONS, duration: DURATION, headers });

async function main() {
  const buildDir = resolveCurrentBuild(path.resolve(DATA_DIR));
  if (!buildDir) throw new Error(`no data build under ${DATA_DIR}: run npm run etl first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-http-'));
  const config = loadConfig(
    { NODE_ENV: 'production', LOG_LEVEL: 'silent' },
    { DATA_DIR: path.resolve(DATA_DIR), DATABASE_PATH: path.join(tmp, 'a.sqlite') },
  );
  // Cold: every request goes to DuckDB (cache off). Warm: the default result cache.
  const CACHE = Number(process.env.OBSERVATION_CACHE_CELLS ?? 250_000);
  const data = await openDataStores(buildDir, console, { cacheCells: CACHE });
  const accounts = openAccountStores(config);
  const stores: Stores = { ...data.stores, ...accounts };
  const ctx = {
    requestId: 'bench',
    caller: null,
    stores,
    config,
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    via: 'bench',
  } as VerbContext;
  // Enterprise: the benchmark measures serving, not the quota refusing it.
  const key = (await adminIssueKey({ ctx, input: { email: 'bench@example.org', plan: 'enterprise' } })).data.key;

  // Admission runs for real (one SQLite transaction per request), but the per-minute burst window
  // would cap the run at Enterprise's 100 requests/s: each request gets its own minute.
  let minute = Date.parse('2026-01-01T00:00:00Z');
  const seams = defaultSeams();
  seams.admit = async ({ ctx: c, cost, ip, instance }) => {
    const own = new Date((minute += 60_000));
    const { headers, release } = (await admitRequest({ ctx: { ...c, now: () => own }, input: { cost, instance, ip } })).data;
    return { headers, release };
  };
  const app = await buildApp({ config, stores, seams, logger: pino({ level: 'silent' }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const bodies = new Map<string, Buffer>(); // bytes, as bench/lib/bare-server.ts holds them
  for (const c of CASES) {
    const res = await fetch(base + c.path, { headers: { 'x-api-key': key } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${c.path} answered ${res.status}: ${text.slice(0, 200)}`);
    bodies.set(c.path, Buffer.from(text));
  }

  // The baseline: fastify alone, sending the very bytes the service sends for the same request.
  const bare = Fastify({ logger: false });
  bare.get('/constant/:i', async (req, reply) =>
    reply.type('application/json').send(bodies.get(CASES[Number((req.params as { i: string }).i)]!.path)),
  );
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareBase = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/constant/`;

  console.log(
    `${CONNECTIONS} connections × ${DURATION} s per run, two interleaved rounds; ${os.cpus().length} cores; result cache ${CACHE ? `${CACHE} cells (warm)` : 'off (cold: every request queries DuckDB)'}`,
  );
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const [i, c] of CASES.entries()) {
    const subject: LoadRun[] = [];
    const baseline: LoadRun[] = [];
    // Interleave so load from other processes hits both sides alike.
    for (let round = 0; round < 2; round++) {
      baseline.push(await run(bareBase + i, {}));
      subject.push(await run(base + c.path, { 'x-api-key': key }));
    }
    const d = { rps: avg(subject.map((r) => r.rps)), p50: avg(subject.map((r) => r.p50)), p99: avg(subject.map((r) => r.p99)) };
    const b = { rps: avg(baseline.map((r) => r.rps)), p50: avg(baseline.map((r) => r.p50)), p99: avg(baseline.map((r) => r.p99)) };
    console.log(`\n${c.name} — payload ${bodies.get(c.path)!.length} bytes`);
    console.log(`  bare fastify, same bytes : ${b.rps.toFixed(0)} req/s, p50 ${b.p50} ms, p99 ${b.p99.toFixed(1)} ms`);
    console.log(`  service                  : ${d.rps.toFixed(0)} req/s, p50 ${d.p50} ms, p99 ${d.p99.toFixed(1)} ms`);
    console.log(`  ratio service ÷ bare     : throughput ${(d.rps / b.rps).toFixed(3)}, p99 ${(d.p99 / b.p99).toFixed(1)}×`);
    const bad = subject.reduce((a, r) => a + r.non2xx + r.errors, 0);
    if (bad) console.log(`  warning: ${bad} non-2xx or errored responses`);
  }

  await bare.close();
  await app.close();
  accounts.accounts.close();
  data.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
