// The SYNTHETIC build generator (etl/synthetic): a tiny synthetic build (2 states' tracts, 5 codes,
// 2 vintages) must look exactly like a real build to the read side — same Parquet schema, sort
// order (table-major) and serving indexes, tracts split by state — while carrying the synthetic
// marker everywhere, and be a pure function of its seed. With a real build's catalog,
// geographies and boundaries beside it the service serves it, and every answer says SYNTHETIC.
// The real build it is compared with is the shared test build over ../shared/census.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckPool, sqlString } from '../../src/store/duckdb.js';
import { ObservationStore } from '../../src/store/observations.js';
import { ServingIndex } from '../../src/store/serving-index.js';
import { startService } from '../support/service.js';
import { renderCompare, renderData, renderTimeseries } from '../../src/mcp/render.js';
import { readManifest, resolveCurrentBuild } from '../../src/store/data-dir.js';
import {
  catalogCodes,
  generateSyntheticBuild,
  isSyntheticBuild,
  type SynthOptions,
  type SynthSummary,
} from '../../etl/synthetic/generate.js';
import { createStepLogger } from '../../etl/log.js';
import { testBuildDir, TEST_DATA_DIR } from '../support/build.js';
import { SHARED_CENSUS } from '../support/paths.js';

const STATES = ['09', '10']; // Connecticut (planning regions from 2022) and Delaware
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'synthetic-test-'));
const base = (dataDir: string, seed: number): SynthOptions => ({
  dataDir,
  sourceDir: SHARED_CENSUS,
  vintages: [2019, 2023],
  levels: ['state', 'tract'],
  states: STATES,
  variables: 5,
  seed,
  log: createStepLogger({ quiet: true }),
});

let realBuild: string;
let synth: SynthSummary;
let pool: DuckPool;
const rows = <T>(sql: string) => pool.rows<T>(sql);
/** A partition's file; tracts are per state (`state` defaults to Connecticut's). */
const part = (buildDir: string, dataset: string, vintage: number, level: string, state = '09') =>
  path.join(
    buildDir,
    'observations',
    `dataset=${dataset}`,
    `vintage=${vintage}`,
    `level=${level}`,
    level === 'tract' ? `state=${state}` : '',
    'data_0.parquet',
  );
const tractFiles = (buildDir: string, vintage: number) => STATES.map((st) => part(buildDir, 'acs5', vintage, 'tract', st));
/** Digest of every row in file order (so equal digests mean equal content and equal order). */
const digest = async (file: string) =>
  (
    await rows<{
      d: string;
    }>(`SELECT md5(string_agg(concat_ws('|', geo_key, table_id, variable, estimate, moe, estimate_annotation, moe_annotation), '\n' ORDER BY file_row_number)) AS d
     FROM read_parquet(${sqlString(file)}, file_row_number = true)`)
  )[0]!.d;
const countKeys = async (rel: string, where: string) =>
  (
    await rows<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM read_csv(${sqlString(path.join(SHARED_CENSUS, rel))}, all_varchar = true) WHERE ${where}`,
    )
  )[0]!.n;

beforeAll(async () => {
  realBuild = await testBuildDir();
  pool = await DuckPool.open({ connections: 1 });
  synth = await generateSyntheticBuild({ ...base(path.join(tmp, 'synthetic-a'), 7), withBuild: realBuild });
});
afterAll(() => {
  pool?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('synthetic build generator', () => {
  it('takes every code the compiled catalog stores (direct codes and formula components)', () => {
    const compiled = catalogCodes(path.join(realBuild, 'catalog', 'catalog.json'));
    expect(catalogCodes()).toEqual(compiled);
    expect(compiled.length).toBeGreaterThanOrEqual(392);
    expect(synth.codes).toBe(5);
  });

  it('is marked synthetic in the manifest, the build id and the index; a real build is not', () => {
    const m = readManifest(synth.buildDir);
    expect(m.synthetic).toBe(true);
    expect(m.source.mode).toBe('synthetic');
    expect(m.build_id).toMatch(/^synthetic-/);
    expect(m.steps.observations!.notes.join(' ')).toMatch(/SYNTHETIC/);
    expect(isSyntheticBuild(synth.buildDir)).toBe(true);
    expect(isSyntheticBuild(realBuild)).toBe(false);
    const index = JSON.parse(fs.readFileSync(path.join(synth.buildDir, 'observations', 'index.json'), 'utf8')) as Record<
      string,
      { synthetic: boolean; tables: string[] }
    >;
    expect(Object.keys(index).sort()).toEqual(['acs5/2019/state', 'acs5/2019/tract', 'acs5/2023/state', 'acs5/2023/tract']);
    for (const e of Object.values(index)) expect(e.synthetic).toBe(true);
  });

  it('carries synthetic in the Parquet key-value metadata of every partition (real partitions do not)', async () => {
    const kv = async (file: string) =>
      rows<{ k: string; v: string }>(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlString(file)})`);
    for (const key of Object.keys(synth.rows)) {
      const [, vintage, level] = key.split('/');
      for (const st of STATES) {
        const meta = await kv(part(synth.buildDir, 'acs5', Number(vintage), level!, st));
        expect(meta).toContainEqual({ k: 'synthetic', v: 'true' });
        const idx = ServingIndex.open(path.join(path.dirname(part(synth.buildDir, 'acs5', Number(vintage), level!, st)), 'cells.idx'))!;
        expect(idx.synthetic).toBe(true);
        idx.close();
      }
    }
    const real = await kv(part(realBuild, 'acs1', 2018, 'state'));
    expect(real.find((r) => r.k === 'synthetic')).toBeUndefined();
  });

  it('has the same Parquet schema and compression as a real partition', async () => {
    const schema = (file: string) =>
      rows<{ name: string; type: string; converted_type: string | null; repetition_type: string }>(
        `SELECT name, type, converted_type, repetition_type FROM parquet_schema(${sqlString(file)}) ORDER BY name`,
      );
    const real = await schema(part(realBuild, 'acs5', 2023, 'county'));
    expect(await schema(part(synth.buildDir, 'acs5', 2023, 'tract'))).toEqual(real);
    expect(await schema(part(synth.buildDir, 'acs5', 2019, 'state'))).toEqual(real);
    const codecs = await rows<{ c: string }>(
      `SELECT DISTINCT compression AS c FROM parquet_metadata(${sqlString(part(synth.buildDir, 'acs5', 2023, 'tract'))})`,
    );
    expect(codecs.map((c) => c.c.toUpperCase())).toEqual(['ZSTD']);
  });

  it('writes rows sorted by (table_id, geo_key, variable) in file order, tracts one file per state', async () => {
    for (const v of [2019, 2023]) {
      for (const file of tractFiles(synth.buildDir, v)) {
        const [r] = await rows<{ bad: number; n: number; states: number }>(`
          SELECT count(*) FILTER (WHERE prev_t IS NOT NULL AND (prev_t, prev_g, prev_v) >= (table_id, geo_key, variable))::INTEGER AS bad, count(*)::INTEGER AS n,
            count(DISTINCT substr(geo_key, 7, 2))::INTEGER AS states
          FROM (SELECT table_id, geo_key, variable, lag(table_id) OVER w AS prev_t, lag(geo_key) OVER w AS prev_g, lag(variable) OVER w AS prev_v
                FROM read_parquet(${sqlString(file)}, file_row_number = true)
                WINDOW w AS (ORDER BY file_row_number))`);
        expect(r!.n).toBeGreaterThan(500);
        expect(r!.bad).toBe(0);
        expect(r!.states).toBe(1);
      }
      expect(fs.existsSync(path.join(synth.buildDir, 'observations/dataset=acs5', `vintage=${v}`, 'level=tract', 'data_0.parquet'))).toBe(
        false,
      );
    }
  });

  it('writes a compact serving index beside every file, equal to the Parquet rows', async () => {
    for (const file of [...tractFiles(synth.buildDir, 2023), part(synth.buildDir, 'acs5', 2019, 'state')]) {
      const idx = ServingIndex.open(path.join(path.dirname(file), 'cells.idx'))!;
      expect(idx.version).toBe(2);
      const sample = await rows<{
        geo_key: string;
        variable: string;
        estimate: number | null;
        moe: number | null;
        estimate_annotation: string | null;
        moe_annotation: string | null;
      }>(
        `(SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${sqlString(file)}) USING SAMPLE 200 ROWS)
         UNION ALL (SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${sqlString(file)}) WHERE moe IS NULL LIMIT 20)`,
      );
      for (const r of sample) {
        let got: unknown;
        idx.lookup(r.geo_key, [r.variable], (_c, cell) => (got = cell));
        expect(got, `${r.geo_key} ${r.variable}`).toEqual({
          estimate: r.estimate,
          moe: r.moe,
          estimate_annotation: r.estimate_annotation,
          moe_annotation: r.moe_annotation,
        });
      }
      idx.close();
    }
  });

  it('uses the real key sets: 2010 tracts up to 2019, 2020 tracts (CT planning regions) from 2022', async () => {
    const inStates = `STATEFP IN (${STATES.map(sqlString).join(',')})`;
    expect(synth.rows['acs5/2019/tract']).toBe((await countKeys('geo/cenpop/2010/tract.csv.gz', inStates)) * 5);
    expect(synth.rows['acs5/2023/tract']).toBe((await countKeys('geo/cenpop/2020/tract.csv.gz', inStates)) * 5);
    expect(synth.rows['acs5/2023/state']).toBe(2 * 5);
    const ct = async (v: number) =>
      (
        await rows<{ c: string }>(
          `SELECT DISTINCT substr(geo_key, 7, 5) AS c FROM read_parquet(${sqlString(part(synth.buildDir, 'acs5', v, 'tract', '09'))}) ORDER BY c`,
        )
      ).map((r) => r.c);
    expect(await ct(2019)).toEqual(['09001', '09003', '09005', '09007', '09009', '09011', '09013', '09015']);
    expect(await ct(2023)).toEqual(['09110', '09120', '09130', '09140', '09150', '09160', '09170', '09180', '09190']);
  });

  it('is readable by ObservationStore like a real build', async () => {
    const store = await ObservationStore.open(synth.buildDir, pool);
    expect(store.loadedVintages('acs5', 'tract')).toEqual([2019, 2023]);
    const codes = catalogCodes().slice(0, 5);
    expect(store.hasTable('acs5', 2023, 'tract', codes[0]!.split('_')[0]!)).toBe(true);
    const all = await store.fetch({ dataset: 'acs5', vintages: [2023], level: 'tract', geoKeys: 'all', codes });
    expect(all.size).toBe(synth.rows['acs5/2023/tract']);
    // A CT planning-region tract key exists in 2023 only; a 2010 CT county key in 2019 only.
    const geo = [...all.keys()].map((k) => k.split('|')[1]!).find((g) => g.startsWith('tract:091'))!;
    const one = await store.fetch({ dataset: 'acs5', vintages: [2019, 2023], level: 'tract', geoKeys: [geo], codes });
    expect([...one.keys()].sort()).toEqual(codes.map((c) => `2023|${geo}|${c}`).sort());
    const cells = [...all.values()];
    const numeric = cells.filter((c) => c.estimate !== null);
    expect(numeric.length).toBeGreaterThan(cells.length * 0.95);
    for (const c of numeric.slice(0, 100)) expect(c.estimate).toBeGreaterThanOrEqual(0);
    for (const c of cells.filter((x) => x.estimate === null)) expect(c.estimate_annotation).toBe('not_computable');
    // A key list reads only its state's file: Delaware's keys give Delaware's cells, the same as 'all'.
    const de = [...all.keys()].map((k) => k.split('|')[1]!).filter((g) => g.startsWith('tract:10'));
    const fromList = await store.fetch({ dataset: 'acs5', vintages: [2023], level: 'tract', geoKeys: de, codes });
    expect(fromList.size).toBe([...all.keys()].filter((k) => k.includes('|tract:10')).length);
    for (const [k, v] of fromList) expect(v).toEqual(all.get(k));
    // Part of a state's file (a key filter) together with a whole one (none): still exactly those cells.
    const ct = [...all.keys()].map((k) => k.split('|')[1]!).filter((g) => g.startsWith('tract:09'));
    const mixed = [...new Set([...de, ...ct.slice(0, 30)])];
    const fromMixed = await store.fetch({ dataset: 'acs5', vintages: [2023], level: 'tract', geoKeys: mixed, codes });
    expect(fromMixed.size).toBe([...all.keys()].filter((k) => mixed.includes(k.split('|')[1]!)).length);
    for (const [k, v] of fromMixed) expect(v).toEqual(all.get(k));
    // Point lookups (serving index) and the DuckDB path agree.
    const few = de.slice(0, 3);
    const point = await store.fetch({
      dataset: 'acs5',
      vintages: [2019, 2023],
      level: 'tract',
      geoKeys: [...few, 'tract:99000000000'],
      codes,
    });
    for (const [k, v] of point) if (k.startsWith('2023|')) expect(v).toEqual(all.get(k));
  });

  it("reuses the real build's catalog, geographies and boundaries; the service labels every answer SYNTHETIC", async () => {
    for (const out of ['catalog', 'geo', 'boundaries', 'tables']) expect(fs.existsSync(path.join(synth.buildDir, out)), out).toBe(true);
    const m = readManifest(synth.buildDir);
    expect(m.steps.catalog!.notes.join(' ')).toMatch(/reused from real build/);
    const svc = await startService({ buildDir: synth.buildDir });
    try {
      const code = catalogCodes().slice(0, 5)[0]!;
      const headers = { 'x-api-key': svc.keys.enterprise };
      const data = await svc.app.inject({ url: `/v1/data?variables=${code}&geo=tract:10001040100&dataset=acs5&vintage=2023`, headers });
      expect(data.statusCode, data.body).toBe(200);
      expect(data.json().meta.synthetic).toBe(true);
      expect(data.json().meta.hint).toMatch(/^SYNTHETIC build/);
      expect(data.json().data[0].estimate).toEqual(expect.any(Number));
      const many = await svc.app.inject({
        url: `/v1/data?variables=${code}&geo=tract:10001*&dataset=acs5&vintage=2023&format=compact`,
        headers,
      });
      expect(many.statusCode, many.body).toBe(200);
      expect(many.json().meta.synthetic).toBe(true);
      const ts = await svc.app.inject({ url: `/v1/timeseries?variables=${code}&geo=state:10&dataset=acs5&from=2019&to=2023`, headers });
      expect(ts.statusCode, ts.body).toBe(200);
      expect(ts.json().meta.synthetic).toBe(true);
      const cmp = await svc.app.inject({ url: `/v1/compare?variables=${code}&geo=state:09;state:10&dataset=acs5&vintage=2023`, headers });
      expect(cmp.statusCode, cmp.body).toBe(200);
      expect(cmp.json().meta.synthetic).toBe(true);
      // MCP text renders the same results: SYNTHETIC first.
      expect(renderData(data.json()).split('\n')[0]).toMatch(/^SYNTHETIC DATA/);
      expect(renderTimeseries(ts.json()).split('\n')[0]).toMatch(/^SYNTHETIC DATA/);
      expect(renderCompare(cmp.json()).split('\n')[0]).toMatch(/^SYNTHETIC DATA/);
      // The OpenAPI description says how a synthetic answer is labelled.
      const doc = (await svc.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, { get: { description: string } }> };
      for (const p of ['/v1/data', '/v1/compare', '/v1/timeseries']) expect(doc.paths[p]!.get.description).toMatch(/meta\.synthetic: true/);
      const health = await svc.app.inject({ url: '/health' });
      expect(health.json().data.synthetic).toBe(true);
    } finally {
      await svc.close();
    }
    // The real build answers exactly as before: no synthetic field at all.
    const real = await startService();
    try {
      const r = await real.app.inject({
        url: '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018',
        headers: { 'x-api-key': real.keys.enterprise },
      });
      expect(r.statusCode).toBe(200);
      expect('synthetic' in r.json().meta).toBe(false);
      expect(r.json().meta.hint ?? '').not.toMatch(/SYNTHETIC/);
    } finally {
      await real.close();
    }
  });

  it('is deterministic for a seed and differs between seeds', async () => {
    const again = await generateSyntheticBuild(base(path.join(tmp, 'synthetic-b'), 7));
    const other = await generateSyntheticBuild(base(path.join(tmp, 'synthetic-c'), 8));
    const file = (s: SynthSummary) => part(s.buildDir, 'acs5', 2023, 'tract', '10');
    expect(again.rows).toEqual(synth.rows);
    expect(await digest(file(again))).toBe(await digest(file(synth)));
    expect(await digest(file(other))).not.toBe(await digest(file(synth)));
  });

  it('refuses a data directory whose live build is real, leaving it untouched', async () => {
    const before = resolveCurrentBuild(TEST_DATA_DIR);
    expect(before).toBeDefined();
    await expect(generateSyntheticBuild(base(TEST_DATA_DIR, 7))).rejects.toThrow(/real data/);
    expect(resolveCurrentBuild(TEST_DATA_DIR)).toBe(before);
    expect(fs.readdirSync(path.join(TEST_DATA_DIR, 'builds')).filter((e) => e.includes('synthetic'))).toEqual([]);
  });
});
