// Builds written before format 2 carry version-1 serving indexes (18-byte float64 records), and the
// server still reads them; no writer of version 1 is left, so this test encodes one from the
// reader's layout (src/store/serving-index.ts) and checks that it answers exactly what the
// version-2 index the ETL writes for the same rows answers, one geography at a time and many at once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withDuckDB } from '../../etl/duckdb.js';
import { writeServingIndex } from '../../etl/steps/serving-index.js';
import { sqlString } from '../../src/store/duckdb.js';
import type { StoredCell } from '../../src/store/observations.js';
import { RECORD_BYTES, SERVING_INDEX_MAGIC, ServingIndex } from '../../src/store/serving-index.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'idx-v1-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Row extends StoredCell {
  geo_key: string;
  variable: string;
}

// Sparse (state:02 has no B19013), with integers, fractions, -0, nulls and annotations.
const ROWS: Row[] = [
  {
    geo_key: 'state:01',
    variable: 'B01001_001E',
    estimate: 4_903_185,
    moe: null,
    estimate_annotation: null,
    moe_annotation: 'not_applicable',
  },
  { geo_key: 'state:01', variable: 'B01001_002E', estimate: 2_369_486.5, moe: 1_204, estimate_annotation: null, moe_annotation: null },
  {
    geo_key: 'state:01',
    variable: 'B19013_001E',
    estimate: null,
    moe: null,
    estimate_annotation: 'not_computable',
    moe_annotation: 'not_computable',
  },
  { geo_key: 'state:02', variable: 'B01001_001E', estimate: 731_545, moe: -0, estimate_annotation: null, moe_annotation: null },
  { geo_key: 'state:02', variable: 'B01001_002E', estimate: 0.25, moe: 1e-7, estimate_annotation: null, moe_annotation: null },
  { geo_key: 'state:06', variable: 'B01001_001E', estimate: 39_512_223, moe: 12, estimate_annotation: null, moe_annotation: null },
  { geo_key: 'state:06', variable: 'B19013_001E', estimate: 75_277, moe: 317, estimate_annotation: null, moe_annotation: null },
];

/** A version-1 file: records, variable ids, per-geography starts, JSON footer, length, magic. */
function writeV1(rows: Row[], file: string): void {
  const geos = [...new Set(rows.map((r) => r.geo_key))].sort();
  const variables = [...new Set(rows.map((r) => r.variable))].sort();
  const annotations = [
    ...new Set(rows.flatMap((r) => [r.estimate_annotation, r.moe_annotation]).filter((a) => a !== null)),
  ].sort() as string[];
  const sorted = [...rows].sort(
    (a, b) => geos.indexOf(a.geo_key) - geos.indexOf(b.geo_key) || variables.indexOf(a.variable) - variables.indexOf(b.variable),
  );
  const records = Buffer.alloc(sorted.length * RECORD_BYTES);
  const vars = Buffer.alloc(sorted.length * 2);
  const starts = new Uint32Array(geos.length + 1);
  const ann = (a: string | null) => (a === null ? 0 : annotations.indexOf(a) + 1);
  sorted.forEach((r, i) => {
    records.writeDoubleLE(r.estimate ?? Number.NaN, i * RECORD_BYTES);
    records.writeDoubleLE(r.moe ?? Number.NaN, i * RECORD_BYTES + 8);
    records[i * RECORD_BYTES + 16] = ann(r.estimate_annotation);
    records[i * RECORD_BYTES + 17] = ann(r.moe_annotation);
    vars.writeUInt16LE(variables.indexOf(r.variable), i * 2);
    starts[geos.indexOf(r.geo_key) + 1]!++;
  });
  for (let g = 0; g < geos.length; g++) starts[g + 1] = starts[g + 1]! + starts[g]!;
  const footer = Buffer.from(
    JSON.stringify({ version: 1, rows: sorted.length, varWidth: 2, geos, variables, annotations, synthetic: false }),
  );
  const tail = Buffer.alloc(12);
  tail.writeUInt32LE(footer.length, 0);
  tail.write(SERVING_INDEX_MAGIC, 4, 'latin1');
  fs.writeFileSync(file, Buffer.concat([records, vars, Buffer.from(starts.buffer), footer, tail]));
}

async function writeV2(rows: Row[], file: string): Promise<void> {
  const parquet = path.join(tmp, 'rows.parquet');
  const values = rows
    .map(
      (r) =>
        `(${[r.geo_key, r.variable.split('_')[0]!, r.variable].map(sqlString).join(',')}, ${r.estimate ?? 'NULL'}::DOUBLE, ${
          r.moe === null ? 'NULL' : Object.is(r.moe, -0) ? "'-0.0'" : r.moe
        }::DOUBLE, ${r.estimate_annotation === null ? 'NULL' : sqlString(r.estimate_annotation)}, ${r.moe_annotation === null ? 'NULL' : sqlString(r.moe_annotation)})`,
    )
    .join(',');
  await withDuckDB(async (db) => {
    await db.run(
      `COPY (SELECT * FROM (VALUES ${values}) t(geo_key, table_id, variable, estimate, moe, estimate_annotation, moe_annotation) ORDER BY table_id, geo_key, variable) TO ${sqlString(parquet)} (FORMAT parquet)`,
    );
    await writeServingIndex(db, parquet, file);
  });
}

const GEOS = ['state:01', 'state:02', 'state:06', 'state:99'];
const CODES = ['B19013_001E', 'B01001_001E', 'B99999_999E', 'B01001_002E', 'B01001_001E'];

function perGeography(idx: ServingIndex): Array<[string, string, StoredCell]> {
  const out: Array<[string, string, StoredCell]> = [];
  for (const g of GEOS) idx.lookup(g, CODES, (c, cell) => out.push([g, c, cell]));
  return out;
}

function many(idx: ServingIndex): Array<[string, string, StoredCell]> {
  const out: Array<[string, string, StoredCell]> = [];
  idx.lookupMany(GEOS, CODES, (k, c, estimate, moe, estimate_annotation, moe_annotation) =>
    out.push([GEOS[k]!, CODES[c]!, { estimate, moe, estimate_annotation, moe_annotation }]),
  );
  return out;
}

describe('serving index, version 1 (builds written before format 2)', () => {
  it('answers every cell as the version-2 index of the same rows does, one geography at a time and many at once', async () => {
    const v1 = path.join(tmp, 'v1.idx');
    const v2 = path.join(tmp, 'v2.idx');
    writeV1(ROWS, v1);
    await writeV2(ROWS, v2);
    const fromV2 = ServingIndex.open(v2)!;
    const expected = perGeography(fromV2);
    fromV2.close();
    // Each row once per time its code is asked (B01001_001E twice), unknown geography and code absent.
    expect(expected).toHaveLength(ROWS.length + ROWS.filter((r) => r.variable === 'B01001_001E').length);
    for (const hold of [true, false]) {
      const idx = ServingIndex.open(v1, { hold })!;
      expect(idx.version).toBe(1);
      const one = perGeography(idx);
      expect(one).toEqual(expected);
      expect(many(idx)).toEqual(one);
      // -0 stays -0 (toEqual does not tell it from 0).
      expect(Object.is(one.find(([g, c]) => g === 'state:02' && c === 'B01001_001E')![2].moe, -0)).toBe(true);
      idx.close();
    }
  });
});
