// `npm run bench:http`: autocannon against GET /v1/data (one geography, five variables, real
// data, real key, real admission) and, in the same run, against a bare fastify route returning a
// constant body of the same size. Reports both and the ratio: what the service costs over the
// framework itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { openAccountStores } from '../src/store/accounts/index.js';
import { resolveCurrentBuild } from '../src/store/data-dir.js';
import { openDataStores } from '../src/store/open.js';
import { adminIssueKey } from '../src/verbs/account-admin-issue-key.js';
import type { Stores, VerbContext } from '../src/verbs/context.js';

const DATA_DIR = process.env.DATA_DIR ?? 'data';
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const QUERY = '/v1/data?variables=B19013_001E,B01001_001E,B01002_001E,B17001_002E,B25077_001E&geo=state:06&dataset=acs1&vintage=2018';

async function run(url: string, headers: Record<string, string>) {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function main() {
  const buildDir = resolveCurrentBuild(path.resolve(DATA_DIR));
  if (!buildDir) throw new Error(`no data build under ${DATA_DIR}: run npm run etl first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-http-'));
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent' }, { DATA_DIR: path.resolve(DATA_DIR), DATABASE_PATH: path.join(tmp, 'a.sqlite') });
  const data = await openDataStores(buildDir, console);
  const accounts = openAccountStores(config);
  const stores: Stores = { ...data.stores, ...accounts };
  const ctx = { requestId: 'bench', caller: null, stores, config, now: () => new Date(), log: pino({ level: 'silent' }), via: 'bench' } as VerbContext;
  // Enterprise: the benchmark measures serving, not the quota refusing it.
  const key = (await adminIssueKey({ ctx, input: { email: 'bench@example.org', plan: 'enterprise' } })).data.key;

  const app = await buildApp({ config, stores, logger: pino({ level: 'silent' }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const sample = await fetch(base + QUERY, { headers: { 'x-api-key': key } });
  const body = await sample.text();
  if (sample.status !== 200) throw new Error(`data route answered ${sample.status}: ${body.slice(0, 200)}`);

  const bare = Fastify({ logger: false });
  bare.get('/constant', async (_req, reply) => reply.type('application/json').send(body));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/constant`;

  console.log(`payload ${body.length} bytes; ${CONNECTIONS} connections × ${DURATION} s each; ${os.cpus().length} cores`);
  // Interleave twice so load from other processes hits both sides alike.
  const results = { data: [] as Awaited<ReturnType<typeof run>>[], bare: [] as Awaited<ReturnType<typeof run>>[] };
  for (let round = 0; round < 2; round++) {
    results.bare.push(await run(bareUrl, {}));
    results.data.push(await run(base + QUERY, { 'x-api-key': key }));
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const d = { rps: avg(results.data.map((r) => r.rps)), p99: avg(results.data.map((r) => r.p99)), p50: avg(results.data.map((r) => r.p50)) };
  const b = { rps: avg(results.bare.map((r) => r.rps)), p99: avg(results.bare.map((r) => r.p99)), p50: avg(results.bare.map((r) => r.p50)) };
  console.log(`bare fastify constant body : ${b.rps.toFixed(0)} req/s, p50 ${b.p50} ms, p99 ${b.p99.toFixed(1)} ms`);
  console.log(`GET /v1/data (1 geo, 5 vars): ${d.rps.toFixed(0)} req/s, p50 ${d.p50} ms, p99 ${d.p99.toFixed(1)} ms`);
  console.log(`ratio /v1/data ÷ bare: throughput ${(d.rps / b.rps).toFixed(3)}, p99 ${(d.p99 / b.p99).toFixed(1)}×`);
  const bad = results.data.reduce((a, r) => a + r.non2xx + r.errors, 0);
  if (bad) console.log(`warning: ${bad} non-2xx or errored responses on /v1/data`);

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
