// `npm run bench:regions`: a custom region of 2,000 tracts (SYNTHETIC build of California tracts,
// acs5 2023: `npm run etl -- synth --out .cache/synthetic-regions --vintages 2023 --levels tract
// --states 06`) answered in process through the whole app (`app.inject`, production logger, real
// key and admission), cold (OBSERVATION_CACHE_CELLS=0, the headline: target < 100 ms) and warm.
// The region is saved to the account (its 2,000 keys would not fit a URL) and asked as
// geo=region:la-2000. Baselines in the same run, interleaved: the same 2,000 tracts as plain rows
// (a saved region is resolved to keys; the plain rows come from the county's wildcard, 2,498 tracts)
// and a bare fastify route answering the region's bytes.
//
// Env: DATA_DIR (.cache/synthetic-regions), BENCH_ITERATIONS (40), BENCH_MAX_MS (15000).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { openAccountStores } from '../src/store/accounts/index.js';
import { openDataStores } from '../src/store/open.js';
import { resolveCurrentBuild } from '../src/store/data-dir.js';
import { adminIssueKey } from '../src/verbs/account-admin-issue-key.js';
import type { Stores } from '../src/context/verb-context.js';
import { verbContext } from '../test/support/context.js';
import { fmtMs, interleaved, summarize } from './lib/stats.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? '.cache/synthetic-regions');
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const MAX_MS = Number(process.env.BENCH_MAX_MS ?? 15_000);
const VARIABLES = 'B01003_001E,B25001_001E,core_poverty_rate,B19013_001E,B17001_002E';

async function main() {
  const build = resolveCurrentBuild(DATA_DIR);
  if (!build) throw new Error(`no build in ${DATA_DIR} (see this file's header)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-regions-'));
  console.log(
    `bench:regions — SYNTHETIC ${path.basename(build)}; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; variables ${VARIABLES}`,
  );
  for (const mode of ['cold', 'warm']) {
    const config = loadConfig(
      { NODE_ENV: 'production', LOG_LEVEL: 'warn' },
      { DATA_DIR, DATABASE_PATH: path.join(tmp, `${mode}.sqlite`), OBSERVATION_CACHE_CELLS: mode === 'cold' ? 0 : 250_000 },
    );
    const data = await openDataStores(build, { warn: () => {} }, { cacheCells: config.OBSERVATION_CACHE_CELLS });
    const accounts = openAccountStores(config);
    const stores: Stores = { ...data.stores, ...accounts };
    const issued = await adminIssueKey({
      ctx: verbContext(stores, { plan: null }),
      input: { email: 'regions@example.org', plan: 'enterprise' },
    });
    const accountId = (await accounts.accounts.findAccountByEmail('regions@example.org'))!.id;
    const geo = data.stores.geographies!;
    const tracts = geo.tables.tract.keysOf(geo.tables.tract.rowsWithPrefix('06037', 2023)).slice(0, 2000);
    if (tracts.length !== 2000) throw new Error(`expected 2,000 LA County tracts, got ${tracts.length}`);
    const members = { level: 'tract' as const, fips: tracts.map((k) => k.slice(k.indexOf(':') + 1)) };
    await accounts.accounts.createRegion(accountId, { name: 'la-2000', members, now: Date.now() }, 100);
    const app = await buildApp({ config, stores });
    await app.ready();
    const headers = { 'x-api-key': issued.data.key };
    const regionUrl = `/v1/data?variables=${VARIABLES}&geo=region:la-2000&vintage=2023`;
    const listUrl = `/v1/data?variables=${VARIABLES}&geo=tract:06037*&vintage=2023`;
    const first = await app.inject({ url: regionUrl, headers });
    if (first.statusCode !== 200) throw new Error(`region answered ${first.statusCode}: ${first.body.slice(0, 300)}`);
    const body = first.json() as { data: { variable: string; estimate: number | null }[]; meta: { synthetic?: boolean } };
    if (!body.meta.synthetic) throw new Error('not a synthetic build');
    // SYNTHETIC values carry random jam values (~1 cell in 400), so a 2,000-member region is usually
    // null with region_member_missing for each variable: the answer still does the whole work.
    const missing = (first.json() as { meta: { regions: { missing: unknown[] }[] } }).meta.regions[0]!.missing.length;
    const bare = Fastify({ logger: false });
    const bytes = Buffer.from(first.body);
    bare.get('/r', (_req, reply) => reply.type('application/json').send(bytes));
    await bare.ready();
    const [region, list, baseline] = await interleaved(
      [
        async () => {
          const r = await app.inject({ url: regionUrl, headers });
          if (r.statusCode !== 200) throw new Error(String(r.statusCode));
        },
        async () => {
          const r = await app.inject({ url: listUrl, headers });
          if (r.statusCode !== 200) throw new Error(String(r.statusCode));
        },
        () => bare.inject({ url: '/r' }),
      ],
      { warmup: 2, iterations: ITERATIONS, maxMs: MAX_MS },
    );
    const s = summarize(region!);
    const l = summarize(list!);
    const b = summarize(baseline!);
    console.log(`\n== ${mode} (${mode === 'cold' ? 'OBSERVATION_CACHE_CELLS=0' : 'default result cache'})`);
    console.log(
      `  region of 2,000 tracts × 5 variables : p50 ${fmtMs(s.p50)} ms, p95 ${fmtMs(s.p95)} ms (n ${s.n}; ${bytes.length} bytes)`,
    );
    console.log(`  the county's 2,498 tracts as rows   : p50 ${fmtMs(l.p50)} ms, p95 ${fmtMs(l.p95)} ms`);
    console.log(`  bare fastify, the region's bytes    : p50 ${fmtMs(b.p50)} ms`);
    console.log(`  region p50 ${s.p50 < 100 ? '<' : '≥'} 100 ms target; region ÷ rows p50 ${(s.p50 / l.p50).toFixed(2)}×`);
    console.log(
      `  values (${missing} null for a member without a value): ${body.data.map((c) => `${c.variable}=${c.estimate === null ? 'null' : Math.round(c.estimate * 10) / 10}`).join(', ')}`,
    );
    await app.close();
    await bare.close();
    accounts.accounts.close();
    data.close();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
