// The observations step over the real shared files: every file compiles, published values come
// through unchanged, and jam values never survive as numbers. Expected counts come from the
// shared tree's README, which counted them independently.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckPool, sqlString } from '../../src/store/duckdb.js';
import { ObservationStore } from '../../src/store/observations.js';
import { listApiFiles } from '../../etl/steps/observations.js';
import { readManifest } from '../../src/store/data-dir.js';
import { testBuildDir } from '../support/build.js';
import { SHARED_CENSUS } from '../support/paths.js';

let buildDir: string;
let pool: DuckPool;
let store: ObservationStore;
const one = async <T>(sql: string): Promise<T> => (await pool.rows<T>(sql))[0]!;
const all = () => sqlString(path.join(buildDir, 'observations/**/*.parquet'));

beforeAll(async () => {
  buildDir = await testBuildDir();
  pool = await DuckPool.open({ connections: 1 });
  store = await ObservationStore.open(buildDir, pool);
});
afterAll(() => store?.close());

describe('observations build', () => {
  it('compiles every values file of the source tree', async () => {
    const manifest = readManifest(buildDir);
    const files = await listApiFiles(SHARED_CENSUS);
    expect(files.length).toBe(23_873);
    expect(Object.keys(manifest.steps.observations!.inputs)).toEqual(files);
    // acs1: 11,927 files per level at state and nation (README §1a) + 15 metro + 4 county files.
    const { n } = await one<{ n: number }>(
      `SELECT count(DISTINCT dataset || vintage || level)::INTEGER AS n FROM read_parquet(${all()}, hive_partitioning = true)`,
    );
    expect(n).toBe(29);
  });

  it.each([
    ['acs1', 2018, 'state', 'state:06', 'B19013_001E', 75277, 317],
    ['acs1', 2018, 'state', 'state:01', 'B19013_001E', 49861, 783],
    ['acs1', 2018, 'nation', 'nation:1', 'B19013_001E', 61937, 94],
    ['acs5', 2017, 'metro', 'metro:10100', 'B19013_001E', 54533, 2641],
    ['acs5', 2022, 'county', 'county:01001', 'B01003_001E', 58761, null],
    ['acs5', 2023, 'county', 'county:01001', 'B01003_001E', 59285, null],
  ])('serves %s %i %s %s %s = %d ± %s as published', async (dataset, vintage, level, geo, code, est, moe) => {
    const cells = await store.fetch({ dataset, vintages: [vintage], level, geoKeys: [geo], codes: [code] });
    const cell = cells.get(`${vintage}|${geo}|${code}`);
    expect(cell?.estimate).toBe(est);
    expect(cell?.moe).toBe(moe);
  });

  it('has values at every geography level present in the source (nation, state, county, metro)', async () => {
    const rows = await pool.rows<{ level: string; n: number }>(
      `SELECT level, (count(*) FILTER (WHERE estimate IS NOT NULL))::INTEGER AS n FROM read_parquet(${all()}, hive_partitioning = true) GROUP BY level ORDER BY level`,
    );
    expect(rows.map((r) => r.level)).toEqual(['county', 'metro', 'nation', 'state']);
    for (const r of rows) expect(r.n).toBeGreaterThan(0);
  });

  it('never stores a jam value as a number', async () => {
    const { n } = await one<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM read_parquet(${all()}) WHERE estimate <= -100000000 OR moe <= -100000000`,
    );
    expect(n).toBe(0);
  });

  it('turns exactly the jam values of the acs1 files into null + annotation (README §1 counts)', async () => {
    // Counts of nulled cells: README §1 counted the integer-form jam strings; 2005-2006 files also
    // publish 160 estimates and 201 MOEs in float form (`-666666666.0`; 106 `-222222222.0`, 95
    // `-333333333.0`), counted
    // separately by scanning the raw files, which must be nulled too.
    const rows = await pool.rows<{ a: string; n: number }>(`
      SELECT a, count(*)::INTEGER AS n FROM (
        SELECT estimate_annotation AS a FROM read_parquet(${all()}, hive_partitioning = true) WHERE dataset = 'acs1' AND estimate IS NULL
        UNION ALL
        SELECT moe_annotation FROM read_parquet(${all()}, hive_partitioning = true) WHERE dataset = 'acs1' AND moe IS NULL
      ) WHERE a IS NOT NULL GROUP BY a`);
    const count = Object.fromEntries(rows.map((r) => [r.a, r.n]));
    expect(count.not_computable).toBe(2_518 + 160);
    // 2005–2009 spell the same no-value MOEs as `0` beside the symbol (counted by scanning the raw
    // files: 3,946 beside *****, 893 beside **, 634 beside ***): one fact, one form, null too.
    expect(count.controlled).toBe(6_443 + 3_946);
    expect(count.moe_not_computable).toBe(1_667 + 106 + 893);
    expect(count.moe_open_ended).toBe(186 + 95 + 634);
  });

  it('keeps top- and bottom-coded medians as published numbers, annotated', async () => {
    const rows = await pool.rows<{ a: string; n: number }>(`
      SELECT estimate_annotation AS a, count(*)::INTEGER AS n FROM read_parquet(${all()}, hive_partitioning = true)
      WHERE dataset = 'acs1' AND estimate IS NOT NULL AND estimate_annotation IN ('top_coded', 'bottom_coded') GROUP BY 1`);
    const count = Object.fromEntries(rows.map((r) => [r.a, r.n]));
    expect(count.top_coded).toBe(74 + 7 + 499);
    expect(count.bottom_coded).toBe(240 + 97 + 2);
    // README: the top-coded EA values are exactly 250,000+ / 200,000+ / 100,000+.
    const codes = await pool.rows<{ v: number }>(`
      SELECT DISTINCT estimate AS v FROM read_parquet(${all()}, hive_partitioning = true)
      WHERE dataset = 'acs1' AND estimate_annotation = 'top_coded' ORDER BY 1`);
    expect(codes.map((r) => r.v)).toEqual([100001, 200001, 250001]);
  });

  it("sorts each partition table-major (table, geography, variable) so a scan reads only its tables' row groups", async () => {
    const file = sqlString(path.join(buildDir, 'observations/dataset=acs1/vintage=2018/level=state/data_0.parquet'));
    const { sorted } = await one<{ sorted: boolean }>(
      `SELECT bool_and((table_id, geo_key, variable) >= prev) AS sorted FROM (SELECT table_id, geo_key, variable,
         lag((table_id, geo_key, variable), 1, ('', '', '')) OVER () AS prev FROM read_parquet(${file}))`,
    );
    expect(sorted).toBe(true);
  });
});
