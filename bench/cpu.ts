// `npm run bench:cpu`: CPU time per request of the bench:load cases (plus all counties × 10, JSON and
// compact: a 32,220-cell answer, the shape of the national all-counties case), in process (app.inject), with
// the production logger (pino, info, to stdout: run with `> /dev/null`) and real admission, against
// a bare fastify route answering the same bytes in the same process, interleaved round by round.
//
// CPU time (process.cpuUsage: every thread, so GC helpers and DuckDB's workers count) hardly
// depends on what else the machine runs, where bench:load's requests per second do: on the shared
// 2-core machine (load 8–17) two bench:load runs of the same code differed by 2×. The ratio
// bare ÷ service is the throughput ratio the service would reach if CPU were the only limit, and
// leaves out the socket work both sides share. Env: BENCH_ROUNDS (3), BENCH_REQUESTS (per round
// and case; 300), BENCH_MODES (cold,warm), BENCH_CASES, DATA_DIR (.cache/test-data),
// BENCH_CPU_PROF (directory: a V8 CPU profile of each case's last service round only, after
// warm-up, so start-up and JIT warm-up do not blur the per-request picture).
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { PLAN_IDS } from '../src/domain/plans.js';
import { buildApp } from '../src/http/app.js';
import { openAccountStores } from '../src/store/accounts/index.js';
import { openDataStores } from '../src/store/open.js';
import { resolveCurrentBuild } from '../src/store/data-dir.js';
import { adminIssueKey } from '../src/verbs/account-admin-issue-key.js';
import type { Stores } from '../src/context/verb-context.js';
import { verbContext } from '../test/support/context.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? '.cache/test-data');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const MODES = (process.env.BENCH_MODES ?? 'cold,warm').split(',');
const ACCOUNTS = 20;

const FIVE = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E';
const TEN = `${FIVE},B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E`;
const ALL_CASES = [
  { name: 'data-1x5', path: `/v1/data?variables=${FIVE}&geo=state:06&dataset=acs1&vintage=2018` },
  { name: 'data-52x10', path: `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018` },
  { name: 'data-52x10-compact', path: `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018&format=compact` },
  // A large answer (32,000 cells): what the national all-counties case spends above DuckDB. acs5 2023
  // is a vintage the real build holds county values for (of these ten codes, the tables it has);
  // until 2026-11-24 this asked for 2018, which the build does not hold: every cell was a null
  // with a hint, read from no file.
  { name: 'data-counties-10', path: `/v1/data?variables=${TEN}&geo=county:*&dataset=acs5&vintage=2023` },
  {
    name: 'data-counties-10-compact',
    path: `/v1/data?variables=${TEN}&geo=county:*&dataset=acs5&vintage=2023&format=compact`,
  },
  { name: 'geocode', path: '/v1/geocode?lat=38.8977&lng=-77.0365' },
  { name: 'search', path: '/v1/variables?search=median%20income' },
];
// bench:national's cases, for a SYNTHETIC national build (DATA_DIR=.cache/synthetic-national): run only
// when named in BENCH_CASES, since the real build has no acs5 2024 tracts. BENCH_VINTAGE (2024).
const NATIONAL_VINTAGE = process.env.BENCH_VINTAGE ?? '2024';
const NATIONAL_CASES = [
  { name: 'national-tract-1x5', path: `/v1/data?variables=${FIVE}&geo=tract:06001400100&dataset=acs5&vintage=${NATIONAL_VINTAGE}` },
  { name: 'national-ca-tracts-5', path: `/v1/data?variables=${FIVE}&geo=tract:06*&dataset=acs5&vintage=${NATIONAL_VINTAGE}` },
  {
    name: 'national-ca-tracts-5-compact',
    path: `/v1/data?variables=${FIVE}&geo=tract:06*&dataset=acs5&vintage=${NATIONAL_VINTAGE}&format=compact`,
  },
  { name: 'national-counties-10', path: `/v1/data?variables=${TEN}&geo=county:*&dataset=acs5&vintage=${NATIONAL_VINTAGE}` },
  {
    name: 'national-counties-10-compact',
    path: `/v1/data?variables=${TEN}&geo=county:*&dataset=acs5&vintage=${NATIONAL_VINTAGE}&format=compact`,
  },
];
const NAMED = process.env.BENCH_CASES?.split(',');
const CASES = NAMED ? [...ALL_CASES, ...NATIONAL_CASES].filter((c) => NAMED.includes(c.name)) : ALL_CASES;

const PROF_DIR = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : null;

async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (!PROF_DIR) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(PROF_DIR, { recursive: true });
    fs.writeFileSync(path.join(PROF_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/**
 * Reads an injected response's body as a stream and drops it. A loop of awaited injects never
 * yields a turn of the event loop (everything continues in microtasks and nextTicks), and a
 * collected (non-stream) body is only freed in a later turn: measured with light-my-request 6.8,
 * ~47 MB of buffers per 24.7 MB body piled up, forced GCs or not, until the loop yielded (a timer
 * freed them all), so the counties case's 300 bare requests ran the process out of memory.
 * Streamed, the same requests hold nothing; both subjects are read this way.
 */
async function drained(res: Promise<{ stream(): NodeJS.ReadableStream }>): Promise<void> {
  for await (const _chunk of (await res).stream());
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main() {
  const build = resolveCurrentBuild(DATA_DIR);
  if (!build) throw new Error(`no build in ${DATA_DIR}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cpu-'));
  const lines: string[] = [
    `bench:cpu — CPU ms per request in process, ${REQUESTS} requests × ${ROUNDS} interleaved rounds per case; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  ];
  for (const mode of MODES) {
    const config = loadConfig(
      { NODE_ENV: 'production', LOG_LEVEL: 'info' },
      {
        DATA_DIR,
        DATABASE_PATH: path.join(tmp, `${mode}.sqlite`),
        OBSERVATION_CACHE_CELLS: mode === 'cold' ? 0 : 250_000,
      },
    );
    const data = await openDataStores(build, { warn: () => {} }, { cacheCells: config.OBSERVATION_CACHE_CELLS });
    const accounts = openAccountStores(config);
    const stores: Stores = { ...data.stores, ...accounts };
    const keys: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++)
      keys.push(
        (await adminIssueKey({ ctx: verbContext(stores, { plan: null }), input: { email: `cpu${i}@example.org`, plan: PLAN_IDS.at(-1)! } }))
          .data.key,
      );
    // No logger passed: the app builds the production one (src/http/plugins/logging.ts).
    const app = await buildApp({ config, stores });
    await app.ready();
    const bare = Fastify({ logger: false });
    const bodies: Buffer[] = []; // bytes, as bench/lib/bare-server.ts holds them
    bare.get('/constant/:i', async (req, reply) => reply.type('application/json').send(bodies[Number((req.params as { i: string }).i)]));
    await bare.ready();
    lines.push(`\n== ${mode}`);
    for (const [i, c] of CASES.entries()) {
      const first = await app.inject({ url: c.path, headers: { 'x-api-key': keys[0]! } });
      if (first.statusCode !== 200) {
        lines.push(`  ${c.name}: ${first.statusCode}, skipped`);
        continue;
      }
      bodies[i] = first.rawPayload;
      let n = 0;
      const service: number[] = [];
      const baseline: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const t = cpuMs();
        for (let k = 0; k < REQUESTS; k++) await drained(bare.inject({ url: `/constant/${i}`, payloadAsStream: true }));
        baseline.push((cpuMs() - t) / REQUESTS);
        const serviceRound = async () => {
          const t0 = cpuMs();
          for (let k = 0; k < REQUESTS; k++)
            await drained(app.inject({ url: c.path, headers: { 'x-api-key': keys[n++ % keys.length]! }, payloadAsStream: true }));
          service.push((cpuMs() - t0) / REQUESTS);
        };
        await (r === ROUNDS - 1 ? profiled(`${mode}-${c.name}`, serviceRound) : serviceRound());
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      lines.push(
        `  ${c.name.padEnd(20)} ${first.body.length} bytes: service ${mean(service).toFixed(3)} ms, bare ${mean(baseline).toFixed(3)} ms CPU per request; ratio bare ÷ service ${(mean(baseline) / mean(service)).toFixed(3)}×  (service rounds: ${service.map((x) => x.toFixed(3)).join(' ')})`,
      );
    }
    await app.close();
    await bare.close();
    accounts.accounts.close();
    data.close();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  // stdout carries the service's log lines; the figures go to stderr.
  process.stderr.write(`${lines.join('\n')}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
