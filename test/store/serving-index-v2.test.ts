// The compact serving index (format version 2) on partitions crafted to hit every encoding: small
// integers (i16), large ones (i32), non-integers and -0 (f64), nulls, annotations, dense and sparse
// partitions. Every cell must come back exactly as DuckDB reads it from the Parquet file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withDuckDB } from '../../etl/duckdb.js';
import { narrowest, writeServingIndex } from '../../etl/steps/serving-index.js';
import { sqlString } from '../../src/store/duckdb.js';
import type { StoredCell } from '../../src/store/observations.js';
import { ServingIndex } from '../../src/store/serving-index.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'idx-v2-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Row extends StoredCell {
  geo_key: string;
  variable: string;
}

const COLUMNS = `geo_key VARCHAR, table_id VARCHAR, variable VARCHAR, estimate DOUBLE, moe DOUBLE, estimate_annotation VARCHAR, moe_annotation VARCHAR`;

/** Writes the rows (a SELECT) as a table-major Parquet file and its index; returns every row and the index. */
async function build(name: string, select: string) {
  const parquet = path.join(tmp, `${name}.parquet`);
  const target = path.join(tmp, `${name}.idx`);
  return withDuckDB(async (db) => {
    await db.run(`CREATE OR REPLACE TABLE t (${COLUMNS})`);
    await db.run(`INSERT INTO t ${select}`);
    await db.run(`COPY (SELECT * FROM t ORDER BY table_id, geo_key, variable) TO ${sqlString(parquet)} (FORMAT parquet, COMPRESSION zstd)`);
    const written = await writeServingIndex(db, parquet, target);
    const rows = (
      await db.runAndReadAll(
        `SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${sqlString(parquet)})`,
      )
    ).getRowObjectsJS() as unknown as Row[];
    return { written, rows, idx: ServingIndex.open(target)!, target };
  });
}

function expectAllCells(idx: ServingIndex, rows: Row[]) {
  for (const r of rows) {
    const got: StoredCell[] = [];
    idx.lookup(r.geo_key, [r.variable], (_c, cell) => got.push(cell));
    expect(got, `${r.geo_key} ${r.variable}`).toHaveLength(1);
    // Object.is: -0 must stay -0, not become 0.
    expect(Object.is(got[0]!.estimate, r.estimate), `${r.geo_key} ${r.variable} estimate ${got[0]!.estimate} vs ${r.estimate}`).toBe(true);
    expect(Object.is(got[0]!.moe, r.moe), `${r.geo_key} ${r.variable} moe`).toBe(true);
    expect(got[0]!.estimate_annotation).toBe(r.estimate_annotation);
    expect(got[0]!.moe_annotation).toBe(r.moe_annotation);
  }
}

/** geos × codes grid; `value(g, v)` gives the SQL of the estimate. */
const grid = (geos: number, codes: number, est: string, moe: string, extra = '') =>
  `SELECT 'tract:' || lpad(g::VARCHAR, 11, '0'), 'B0100' || (v % 3), 'B0100' || (v % 3) || '_' || lpad(v::VARCHAR, 3, '0') || 'E',
     ${est}, ${moe}, NULL, NULL FROM range(${geos}) a(g), range(${codes}) b(v) ${extra}`;

describe('compact serving index (version 2)', () => {
  it('picks the narrowest exact encoding', () => {
    expect(narrowest(new Float64Array([0, 1, -32767, 32767, Number.NaN]))).toBe('i16');
    expect(narrowest(new Float64Array([32768]))).toBe('i32');
    expect(narrowest(new Float64Array([-32768]))).toBe('i32'); // the i16 null sentinel is not a value
    expect(narrowest(new Float64Array([2147483647, -2147483647]))).toBe('i32');
    expect(narrowest(new Float64Array([-2147483648]))).toBe('f64');
    expect(narrowest(new Float64Array([2147483648]))).toBe('f64');
    expect(narrowest(new Float64Array([1.5]))).toBe('f64');
    expect(narrowest(new Float64Array([-0]))).toBe('f64');
  });

  it('dense small integers: i16 columns, no per-row variable ids, exact', async () => {
    const { written, rows, idx } = await build('dense16', grid(40, 7, '(g * 7 + v) % 30000', '(g + v) % 500'));
    expect(written).toMatchObject({ dense: true, estimate: 'i16', moe: 'i16', rows: 280 });
    // 4 bytes per cell plus the footer's dictionaries: no variable ids, no annotation sections.
    expect(written.bytes).toBeLessThan(280 * 4 + 3000);
    expectAllCells(idx, rows);
    idx.close();
  });

  it('large integers, non-integers, -0 and nulls: i32 and f64 columns, exact', async () => {
    const { written, rows, idx } = await build(
      'mixed',
      grid(
        30,
        5,
        `CASE WHEN g = 3 THEN NULL WHEN g = 4 THEN 2147483647 WHEN g = 5 THEN -2147483647 ELSE g * 100000 + v END`,
        `CASE WHEN v = 2 THEN NULL WHEN g = 7 THEN '-0.0'::DOUBLE WHEN g = 8 THEN 0.1::DOUBLE + v ELSE g / 3 END`,
      ),
    );
    expect(written).toMatchObject({ dense: true, estimate: 'i32', moe: 'f64' });
    expect(rows.some((r) => Object.is(r.moe, -0))).toBe(true);
    expectAllCells(idx, rows);
    idx.close();
  });

  it('annotations stored only where present, nulls with their codes', async () => {
    const { written, rows, idx } = await build(
      'annotated',
      `SELECT geo_key, table_id, variable,
         CASE WHEN (g + v) % 11 = 0 THEN NULL ELSE estimate END,
         CASE WHEN (g + v) % 11 = 0 OR (g * v) % 13 = 1 THEN NULL ELSE moe END,
         CASE WHEN (g + v) % 11 = 0 THEN 'not_computable' END,
         CASE WHEN (g + v) % 11 = 0 THEN 'moe_not_computable' WHEN (g * v) % 13 = 1 THEN 'controlled' END
       FROM (${grid(50, 9, 'g + v', '1 + v').replace("'tract:'", "g, v, 'tract:'")})
         AS x(g, v, geo_key, table_id, variable, estimate, moe, ea, ma)`,
    );
    expect(written.dense).toBe(true);
    expect(rows.filter((r) => r.estimate_annotation !== null).length).toBeGreaterThan(10);
    expect(rows.filter((r) => r.moe_annotation === 'controlled').length).toBeGreaterThan(5);
    expectAllCells(idx, rows);
    // Several codes of one geography in one lookup, an annotated one among them.
    const r = rows.find((x) => x.moe_annotation === 'controlled')!;
    const same = rows.filter((x) => x.geo_key === r.geo_key);
    const got = new Map<string, StoredCell>();
    idx.lookup(r.geo_key, [...same.map((x) => x.variable), 'B99999_001E'], (c, cell) => got.set(c, cell));
    expect(got.size).toBe(same.length);
    for (const x of same)
      expect(got.get(x.variable)).toEqual({
        estimate: x.estimate,
        moe: x.moe,
        estimate_annotation: x.estimate_annotation,
        moe_annotation: x.moe_annotation,
      });
    idx.close();
  });

  it('many annotated cells per geography, all codes in one lookupMany: the same annotations held or read from the file', async () => {
    // A geography's annotations are searched in place (an acs1 state has thousands; building a Map
    // of them per geography per request was 22% of an all-states answer's CPU). Read from the file,
    // they must be a buffer of their own: the value reads that follow reuse the shared one.
    const {
      target,
      rows,
      idx: held,
    } = await build(
      'many-annotated',
      `SELECT geo_key, table_id, variable, CASE WHEN (g + v) % 4 = 0 THEN NULL ELSE estimate END, moe,
         CASE WHEN (g + v) % 4 = 0 THEN 'not_computable' WHEN v % 7 = 0 THEN 'top_coded' END,
         CASE WHEN (g * v) % 3 = 1 THEN 'controlled' END
       FROM (${grid(6, 400, 'g + v', '1 + v').replace("'tract:'", "g, v, 'tract:'")})
         AS x(g, v, geo_key, table_id, variable, estimate, moe, ea, ma)`,
    );
    expect(rows.filter((r) => r.estimate_annotation !== null || r.moe_annotation !== null).length).toBeGreaterThan(1000);
    const geos = [...new Set(rows.map((r) => r.geo_key))].sort();
    // Every code, last first, an unknown one in the middle: ids are searched in any order.
    const codes = [...new Set(rows.map((r) => r.variable))].sort().reverse();
    codes.splice(200, 0, 'B99999_001E');
    const want = new Map(rows.map((r) => [`${r.geo_key} ${r.variable}`, r]));
    for (const idx of [held, ServingIndex.open(target, { hold: false })!]) {
      let n = 0;
      idx.lookupMany(geos, codes, (k, c, estimate, moe, estimate_annotation, moe_annotation) => {
        const r = want.get(`${geos[k]} ${codes[c]}`)!;
        n++;
        expect({ estimate, moe, estimate_annotation, moe_annotation }, `${geos[k]} ${codes[c]}`).toEqual({
          estimate: r.estimate,
          moe: r.moe,
          estimate_annotation: r.estimate_annotation,
          moe_annotation: r.moe_annotation,
        });
      });
      expect(n).toBe(rows.length);
      idx.close();
    }
  });

  it('sparse partitions (not every geography has every code): per-row ids, exact, absent cells absent', async () => {
    const { written, rows, idx } = await build('sparse', grid(60, 8, 'g * 1.25 + v', 'g', 'WHERE (g + v) % 4 <> 0 AND NOT (g = 10)'));
    expect(written).toMatchObject({ dense: false, estimate: 'f64', moe: 'i16' });
    expectAllCells(idx, rows);
    const got: string[] = [];
    idx.lookup('tract:00000000001', ['B01000_003E', 'B01001_004E'], (c) => got.push(c)); // g=1: (1+3)%4 = 0 absent, (1+4)%4 present
    expect(got).toEqual(['B01001_004E']);
    idx.lookup('tract:00000000010', ['B01001_001E'], (c) => got.push(c)); // geography with no rows at all
    idx.lookup('tract:99999999999', ['B01001_001E'], (c) => got.push(c));
    expect(got).toEqual(['B01001_004E']);
    idx.close();
  });

  it('an empty partition, a damaged file and a cell stored twice are handled', async () => {
    const empty = await build('empty', grid(3, 3, 'g', 'v', 'WHERE false'));
    expect(empty.written.rows).toBe(0);
    const got: string[] = [];
    empty.idx.lookup('tract:00000000001', ['B01001_001E'], (c) => got.push(c));
    expect(got).toEqual([]);
    empty.idx.close();

    const ok = await build('damaged', grid(20, 4, 'g', 'v'));
    ok.idx.close();
    const bytes = fs.readFileSync(ok.target);
    fs.writeFileSync(ok.target, Buffer.concat([bytes.subarray(0, 40), bytes.subarray(bytes.length - 300)]));
    expect(() => ServingIndex.open(ok.target)).toThrow();

    // Duplicates that still add up to geos × codes rows must not pass as a dense partition.
    await expect(
      build('twice', `${grid(2, 2, 'g', 'v', 'WHERE NOT (g = 1 AND v = 1)')} UNION ALL ${grid(1, 1, 'g', 'v')}`),
    ).rejects.toThrow(/stored twice/);
  });
});
