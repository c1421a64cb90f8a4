// `npm run bench:metrics`: what /metrics costs on the hot path. The same app over the same stores
// twice — once with METRICS_TOKEN (request counter and latency histogram per route, admission,
// cache and DuckDB counters), once without — under autocannon in interleaved rounds, and the
// throughput and latency ratio of one to the other. Admission runs for real (as in bench/http.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import type { Stores, VerbContext } from '../src/context/verb-context.js';
import { buildApp } from '../src/http/app.js';
import { defaultSeams } from '../src/verbs/lifecycle/seams.js';
import { openAccountStores } from '../src/store/accounts/index.js';
import { resolveCurrentBuild } from '../src/store/data-dir.js';
import { openDataStores } from '../src/store/open.js';
import { adminIssueKey } from '../src/verbs/account-admin-issue-key.js';
import { admitRequest } from '../src/verbs/admit-request.js';
import { loadRun } from './lib/load-run.js';

const DATA_DIR = process.env.DATA_DIR ?? 'data';
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PATH = '/v1/data?variables=B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E&geo=state:06&dataset=acs1&vintage=2018';
const TOKEN = 'bench-metrics-token-0123456789';

async function main() {
  const buildDir = resolveCurrentBuild(path.resolve(DATA_DIR));
  if (!buildDir) throw new Error(`no data build under ${DATA_DIR}: run npm run etl first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-metrics-'));
  const config = loadConfig(
    { NODE_ENV: 'production', LOG_LEVEL: 'silent' },
    { DATA_DIR: path.resolve(DATA_DIR), DATABASE_PATH: path.join(tmp, 'a.sqlite') },
  );
  const data = await openDataStores(buildDir, console);
  const accounts = openAccountStores(config);
  const stores: Stores = { ...data.stores, ...accounts };
  const ctx = { requestId: 'bench', caller: null, stores, config, now: () => new Date(), log: pino({ level: 'silent' }), via: 'bench' };
  const key = (await adminIssueKey({ ctx: ctx as VerbContext, input: { email: 'bench@example.org', plan: 'enterprise' } })).data.key;
  // Each request gets its own minute, so the burst window does not cap the run (bench/http.ts).
  let minute = Date.parse('2026-01-01T00:00:00Z');
  const seams = () => {
    const s = defaultSeams();
    s.admit = async ({ ctx: c, cost, ip, instance }) => {
      const own = new Date((minute += 60_000));
      const { headers, release } = (await admitRequest({ ctx: { ...c, now: () => own }, input: { cost, instance, ip } })).data;
      return { headers, release };
    };
    return s;
  };
  const start = async (metrics: boolean) => {
    const app = await buildApp({
      config: { ...config, METRICS_TOKEN: metrics ? TOKEN : undefined },
      stores,
      seams: seams(),
      logger: pino({ level: 'silent' }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}${PATH}` };
  };
  const plain = await start(false);
  const measured = await start(true);
  for (const s of [plain, measured]) {
    const r = await fetch(s.url, { headers: { 'x-api-key': key } });
    if (r.status !== 200) throw new Error(`${PATH} answered ${r.status}`);
  }
  const run = (url: string) => loadRun({ url, connections: CONNECTIONS, duration: DURATION, headers: { 'x-api-key': key } });
  console.log(`${CONNECTIONS} connections × ${DURATION} s per run, ${ROUNDS} interleaved rounds; ${os.cpus().length} cores; ${PATH}`);
  const a: Awaited<ReturnType<typeof run>>[] = [];
  const b: Awaited<ReturnType<typeof run>>[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await run(plain.url));
    b.push(await run(measured.url));
  }
  const avg = (xs: Array<{ rps: number; p50: number; p99: number }>, k: 'rps' | 'p50' | 'p99') =>
    xs.reduce((s, x) => s + x[k], 0) / xs.length;
  console.log(
    `  without metrics : ${avg(a, 'rps').toFixed(0)} req/s, p50 ${avg(a, 'p50').toFixed(2)} ms, p99 ${avg(a, 'p99').toFixed(1)} ms`,
  );
  console.log(
    `  with metrics    : ${avg(b, 'rps').toFixed(0)} req/s, p50 ${avg(b, 'p50').toFixed(2)} ms, p99 ${avg(b, 'p99').toFixed(1)} ms`,
  );
  console.log(
    `  ratio with ÷ without: throughput ${(avg(b, 'rps') / avg(a, 'rps')).toFixed(3)}, p50 ${(avg(b, 'p50') / avg(a, 'p50')).toFixed(2)}×`,
  );
  const scrape = await measured.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  const line = scrape.body.split('\n').find((l) => l.startsWith('census_http_requests_total{') && l.includes('status="200"'));
  console.log(`  scrape: ${scrape.body.length} bytes; ${line}`);
  const bad = [...a, ...b].reduce((s, r) => s + r.non2xx + r.errors, 0);
  if (bad) console.log(`  warning: ${bad} non-2xx or errored responses`);
  await plain.app.close();
  await measured.app.close();
  accounts.accounts.close();
  data.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
