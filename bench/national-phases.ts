// `npm run bench:national-phases`: where a cold large answer's time goes, phase by phase, in one
// process on the SYNTHETIC national build (DATA_DIR, default .cache/synthetic-national; or a real national build): the whole
// request through the app (app.inject, real admission, cache off), the observation store's fetch
// alone (guard, query, reading DuckDB's result into cells), the store's own SQL in its pool (no
// reading), and DuckDB alone running bench:national's baseline query in a separate instance.
// Subjects interleaved in blocks; wall p50 and CPU ms (every thread) per request of each. Cases:
// bench:national's two large ones (all California tracts × 5, all US counties × 10), JSON and
// format=compact (…-compact).
// Env: DATA_DIR, BENCH_ROUNDS (6), BENCH_BLOCK (8), BENCH_CASES.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadConfig } from '../src/config.js';
import { PLAN_IDS } from '../src/domain/plans.js';
import { buildApp } from '../src/http/app.js';
import { openAccountStores } from '../src/store/accounts/index.js';
import { openDataStores } from '../src/store/open.js';
import { readManifest, resolveCurrentBuild } from '../src/store/data-dir.js';
import { sqlString } from '../src/store/duckdb.js';
import { adminIssueKey } from '../src/verbs/account-admin-issue-key.js';
import type { Stores } from '../src/context/verb-context.js';
import { verbContext } from '../test/support/context.js';
import { nowMs, summarize } from './lib/stats.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? '.cache/synthetic-national');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 8);
const ONLY = process.env.BENCH_CASES?.split(',');

const FIVE = ['B19013_001E', 'B01001_002E', 'B01002_001E', 'B17001_002E', 'B25077_001E'];
const TEN = [...FIVE, 'B01003_001E', 'B02001_002E', 'B25001_001E', 'B25064_001E', 'B15003_022E'];

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function obsFile(build: string, vintage: number, level: string, state?: string) {
  return path.join(
    build,
    'observations',
    'dataset=acs5',
    `vintage=${vintage}`,
    `level=${level}`,
    state ? `state=${state}` : '',
    'data_0.parquet',
  );
}

/** bench:national's DuckDB-alone query (storeSql there). */
function baselineSql(file: string, vintage: number, codes: string[]): string {
  const tables = [...new Set(codes.map((c) => c.split('_')[0]!))];
  return `SELECT vintage, geo_key, variable, estimate, moe, estimate_annotation, moe_annotation
    FROM (SELECT ${vintage} AS vintage, * FROM read_parquet([${sqlString(file)}]))
    WHERE table_id IN (${tables.map(sqlString).join(',')}) AND variable IN (${codes.map(sqlString).join(',')})`;
}

async function main() {
  const build = resolveCurrentBuild(DATA_DIR);
  if (!build) throw new Error(`no build in ${DATA_DIR}`);
  const manifest = readManifest(build);
  // A synthetic build lists its vintages; a real national build (bench:national-build's) has its acs5 partitions' rows.
  const synthetic = (manifest as unknown as { synthetic_options?: { vintages: number[] } }).synthetic_options;
  const vintage = Math.max(
    ...(synthetic?.vintages ??
      Object.keys(manifest.steps.observations?.rows ?? {})
        .filter((k) => k.startsWith('acs5/'))
        .map((k) => Number(k.split('/')[1]))),
  );
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-phases-'));
  const config = loadConfig(
    { NODE_ENV: 'production', LOG_LEVEL: 'silent' },
    { DATA_DIR, DATABASE_PATH: path.join(tmp, 'a.sqlite'), OBSERVATION_CACHE_CELLS: 0 },
  );
  const data = await openDataStores(build, { warn: () => {} }, { cacheCells: 0 });
  const accounts = openAccountStores(config);
  const stores: Stores = { ...data.stores, ...accounts };
  const key = (
    await adminIssueKey({ ctx: verbContext(stores, { plan: null }), input: { email: 'phases@example.org', plan: PLAN_IDS.at(-1)! } })
  ).data.key;
  const app = await buildApp({ config, stores });
  await app.ready();
  const obs = stores.observations!;
  const geos = stores.geographies!;
  const duck = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await duck.connect();

  const cases = [
    {
      name: 'ca-tracts-x5',
      path: `/v1/data?variables=${FIVE.join(',')}&geo=tract:06*&dataset=acs5&vintage=${vintage}`,
      level: 'tract',
      keys: geos.keysByPrefix('tract', '06', vintage),
      codes: FIVE,
      file: obsFile(build, vintage, 'tract', '06'),
    },
    {
      name: 'us-counties-x10',
      path: `/v1/data?variables=${TEN.join(',')}&geo=county:*&dataset=acs5&vintage=${vintage}`,
      level: 'county',
      keys: geos.all('county', vintage).map((g) => g.key),
      codes: TEN,
      file: obsFile(build, vintage, 'county'),
    },
  ];
  // The same answers in format=compact (the request only differs: the store's work is the same).
  const withCompact = [...cases, ...cases.map((c) => ({ ...c, name: `${c.name}-compact`, path: `${c.path}&format=compact` }))].filter(
    (c) => !ONLY || ONLY.includes(c.name),
  );

  const out: string[] = [
    `bench:national-phases — ${path.basename(build)}, vintage ${vintage}; load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  ];
  for (const c of withCompact) {
    const subjects: Record<string, () => Promise<unknown>> = {
      request: async () => {
        const res = await app.inject({ url: c.path, headers: { 'x-api-key': key }, payloadAsStream: true });
        if (res.statusCode !== 200) throw new Error(`${c.name}: ${res.statusCode}`);
        for await (const _ of res.stream());
      },
      'store.fetch': () => obs.fetch({ dataset: 'acs5', vintages: [vintage], level: c.level, geoKeys: c.keys, codes: c.codes }),
      'duckdb alone': () => conn.runAndReadAll(baselineSql(c.file, vintage, c.codes)),
    };
    const wall: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    for (let r = 0; r < ROUNDS; r++)
      for (const [name, run] of Object.entries(subjects)) {
        for (let i = 0; i <= BLOCK; i++) {
          const c0 = cpuMs();
          const t0 = nowMs();
          await run();
          if (i > 0 && r > 0) {
            (wall[name] ??= []).push(nowMs() - t0);
            (cpu[name] ??= []).push(cpuMs() - c0);
          }
        }
      }
    out.push(`  ${c.name} (${c.keys.length} geographies × ${c.codes.length})`);
    const base = summarize(wall['duckdb alone']!).p50;
    for (const name of Object.keys(subjects)) {
      const w = summarize(wall[name]!);
      const cp = summarize(cpu[name]!);
      out.push(
        `    ${name.padEnd(14)} wall p50 ${w.p50.toFixed(1)} ms (${(w.p50 / base).toFixed(2)}× DuckDB alone), p95 ${w.p95.toFixed(1)}; CPU p50 ${cp.p50.toFixed(1)} ms`,
      );
    }
  }
  out.push(
    `  load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  await app.close();
  conn.closeSync();
  duck.closeSync();
  accounts.accounts.close();
  data.close();
  fs.rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(`${out.join('\n')}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
