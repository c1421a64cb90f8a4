// ObservationStore reads DuckDB's answer pivoted (one row per vintage × geography, annotations as
// their number in the catalogue) for up to PIVOT_MAX_CODES codes, one row per cell beyond that, and
// one row per cell again when a file holds an annotation outside the catalogue. Each path must give
// exactly the Parquet rows: values, nulls and annotation strings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckPool, sqlString } from '../../src/store/duckdb.js';
import { numericColumn, ObservationStore, PIVOT_MAX_CODES, type StoredCell } from '../../src/store/observations.js';
import { testBuildDir } from '../support/build.js';

let pool: DuckPool;
let store: ObservationStore;
let dir: string;
const tmp: string[] = [];

beforeAll(async () => {
  dir = await testBuildDir();
  pool = await DuckPool.open({ connections: 2 });
  // DuckDB for every query (no serving index), nothing kept.
  store = await ObservationStore.open(dir, pool, { cacheCells: 0, pointLookupMaxGeos: 0 });
});
afterAll(() => {
  pool?.close();
  for (const t of tmp) fs.rmSync(t, { recursive: true, force: true });
});

const fileOf = (root: string, dataset: string, vintage: number, level: string) =>
  path.join(root, 'observations', `dataset=${dataset}`, `vintage=${vintage}`, `level=${level}`, 'data_0.parquet');

/** The Parquet rows themselves, keyed as the store's cells are. */
async function rowsOf(file: string, vintage: number, codes: string[]): Promise<Map<string, StoredCell>> {
  const rows = await pool.rows<{ geo_key: string; variable: string } & StoredCell>(
    `SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${sqlString(file)}) WHERE variable IN (${codes.map(sqlString).join(',')})`,
  );
  return new Map(
    rows.map((r) => [
      `${vintage}|${r.geo_key}|${r.variable}`,
      { estimate: r.estimate, moe: r.moe, estimate_annotation: r.estimate_annotation, moe_annotation: r.moe_annotation },
    ]),
  );
}

/** Codes of a file with annotated cells first (every kind the file holds), then plain ones, `n` in all. */
async function codesOf(file: string, n: number): Promise<string[]> {
  const annotated = await pool.rows<{ variable: string }>(
    `SELECT variable FROM read_parquet(${sqlString(file)}) WHERE estimate_annotation IS NOT NULL OR moe_annotation IS NOT NULL
     GROUP BY variable ORDER BY count(DISTINCT coalesce(estimate_annotation, '') || coalesce(moe_annotation, '')) DESC, variable LIMIT ${Math.ceil(n / 2)}`,
  );
  const plain = await pool.rows<{ variable: string }>(
    `SELECT DISTINCT variable FROM read_parquet(${sqlString(file)}) ORDER BY variable LIMIT ${n}`,
  );
  return [...new Set([...annotated.map((r) => r.variable), ...plain.map((r) => r.variable)])].slice(0, n);
}

describe('ObservationStore: pivoted and per-cell reads', () => {
  for (const [dataset, vintage, level, sizes] of [
    ['acs1', 2018, 'state', [5, PIVOT_MAX_CODES, PIVOT_MAX_CODES + 5]],
    ['acs1', 2017, 'state', [PIVOT_MAX_CODES, PIVOT_MAX_CODES + 1]],
    // Every county, both codes the test build holds for them.
    ['acs5', 2023, 'county', [2]],
  ] as const) {
    it(`${dataset} ${vintage} ${level}: the pivoted read (≤ ${PIVOT_MAX_CODES} codes) and the per-cell read (more) give the Parquet rows exactly`, async () => {
      const file = fileOf(dir, dataset, vintage, level);
      for (const n of sizes) {
        const codes = await codesOf(file, n);
        expect(codes).toHaveLength(n);
        const cells = await store.fetch({ dataset, vintages: [vintage], level, geoKeys: 'all', codes });
        const expected = await rowsOf(file, vintage, codes);
        expect(expected.size).toBeGreaterThan(n);
        expect(new Map(cells)).toEqual(expected);
        // Annotated cells are among them, of more than one kind.
        const kinds = new Set([...expected.values()].flatMap((c) => [c.estimate_annotation, c.moe_annotation]).filter(Boolean));
        if (level === 'state') expect(kinds.size).toBeGreaterThan(1);
      }
    });
  }

  it('a file holding an annotation outside the catalogue is read per cell, the string kept as written', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pivot-'));
    tmp.push(root);
    const file = fileOf(root, 'acs1', 2018, 'state');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const source = fileOf(dir, 'acs1', 2018, 'state');
    // The real rows of two tables, an estimate's and a MOE's annotation replaced by codes the catalogue lacks.
    await pool.rows(
      `COPY (SELECT * REPLACE (CASE WHEN geo_key = 'state:06' AND variable = 'B19013_001E' THEN 'brand_new_code' ELSE estimate_annotation END AS estimate_annotation,
                               CASE WHEN geo_key = 'state:48' AND variable = 'B01002_001E' THEN 'another_new_code' ELSE moe_annotation END AS moe_annotation)
        FROM read_parquet(${sqlString(source)}) WHERE table_id IN ('B19013', 'B01002')) TO ${sqlString(file)} (FORMAT parquet)`,
    );
    fs.writeFileSync(
      path.join(root, 'observations', 'index.json'),
      JSON.stringify({ 'acs1/2018/state': { tables: ['B19013', 'B01002'] } }),
    );
    const odd = await ObservationStore.open(root, pool, { cacheCells: 0, pointLookupMaxGeos: 0 });
    const codes = ['B19013_001E', 'B01002_001E'];
    const cells = await odd.fetch({ dataset: 'acs1', vintages: [2018], level: 'state', geoKeys: 'all', codes });
    expect(cells.get('2018|state:06|B19013_001E')).toMatchObject({ estimate: 75277, moe: 317, estimate_annotation: 'brand_new_code' });
    expect(cells.get('2018|state:48|B01002_001E')).toMatchObject({ moe_annotation: 'another_new_code' });
    expect(new Map(cells)).toEqual(await rowsOf(file, 2018, codes));
  });

  it("every geography of a file asked by key (an expanded wildcard) gives the same cells as 'all'; a subset only its own", async () => {
    const file = fileOf(dir, 'acs5', 2023, 'county');
    const keys = (await pool.rows<{ geo_key: string }>(`SELECT DISTINCT geo_key FROM read_parquet(${sqlString(file)})`)).map(
      (r) => r.geo_key,
    );
    expect(keys.length).toBeGreaterThan(3000);
    const codes = await codesOf(file, 2);
    const q = { dataset: 'acs5', vintages: [2023], level: 'county', codes };
    const all = await store.fetch({ ...q, geoKeys: 'all' });
    const every = await store.fetch({ ...q, geoKeys: [...keys].reverse() });
    expect(new Map(every)).toEqual(new Map(all));
    const some = await store.fetch({ ...q, geoKeys: keys.slice(0, 7) });
    expect(new Set([...some.keys()].map((k) => k.split('|')[1]))).toEqual(new Set(keys.slice(0, 7)));
    expect(new Map(some)).toEqual(new Map([...all].filter(([k]) => keys.slice(0, 7).includes(k.split('|')[1]!))));
  });
});

describe('numericColumn', () => {
  it("takes the vector's own typed array when it has one, else copies item by item", async () => {
    const pool = await DuckPool.open({ connections: 1 });
    try {
      const result = await pool.materialized('SELECT i::INTEGER AS a, i / 4 AS b FROM range(3000) t(i)');
      let rows = 0;
      for (let c = 0; c < result.chunkCount; c++) {
        const chunk = result.getChunk(c);
        const n = chunk.rowCount;
        const a = numericColumn(chunk.getColumnVector(0), Int32Array, n);
        const b = numericColumn(chunk.getColumnVector(1), Float64Array, n);
        for (let r = 0; r < n; r++) {
          expect(a[r]).toBe(rows + r);
          expect(b[r]).toBe((rows + r) / 4);
        }
        rows += n;
      }
      expect(rows).toBe(3000);
      // A vector without its array exposed (another version of the node API): read through getItem.
      const copied = numericColumn({ getItem: (i: number) => i * 1.5 }, Float64Array, 4);
      expect([...copied]).toEqual([0, 1.5, 3, 4.5]);
    } finally {
      pool.close();
    }
  });
});
