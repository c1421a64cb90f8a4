// The serving index built from the parse's own cells (ServingIndexBuilder, what the observations
// step writes) must be the very file DuckDB's reading of the partition's Parquet file gives
// (writeServingIndex, which the step used before and the synthetic generator still uses): checked
// byte for byte on real partitions and on crafted bodies that hit the awkward cases.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDuckDB } from '../../etl/duckdb.js';
import { copyTsvToParquetSql, groupPartitions, listApiFiles, stagePartition, type Partition } from '../../etl/steps/observations.js';
import { ParsePool } from '../../etl/steps/observations/parse-pool.js';
import { writeIndexFile, writeServingIndex } from '../../etl/steps/serving-index.js';
import { orderByGrid, orderBySorting } from '../../etl/steps/serving-index-builder.js';
import { ServingIndex } from '../../src/store/serving-index.js';
import { SHARED_CENSUS } from '../support/paths.js';

let dir: string;
let pool: ParsePool;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'idx-builder-'));
  pool = new ParsePool(2);
});
afterAll(async () => {
  await pool.close();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Both indexes of one partition: from the staged cells, and from the Parquet file DuckDB writes of the staging file. */
async function bothIndexes(source: string, p: Partition, name: string) {
  const tsv = path.join(dir, `${name}.tsv`);
  const parquet = path.join(dir, `${name}.parquet`);
  const staged = await stagePartition(source, p, tsv, () => {}, pool);
  const built = writeIndexFile(path.join(dir, `${name}.built.idx`), staged.cells.columns());
  const read = await withDuckDB(async (db) => {
    await db.run(copyTsvToParquetSql(tsv, parquet, staged.count));
    return writeServingIndex(db, parquet, path.join(dir, `${name}.read.idx`));
  });
  const [a, b] = await Promise.all([fs.readFile(path.join(dir, `${name}.built.idx`)), fs.readFile(path.join(dir, `${name}.read.idx`))]);
  return { built, read, same: a.equals(b), count: staged.count, file: path.join(dir, `${name}.built.idx`) };
}

/** The JSON footer of a version-2 index file (u32 length and 8-byte magic at the end). */
async function footerOf(file: string): Promise<{ geos: string[]; variables: string[]; annotated: number }> {
  const buf = await fs.readFile(file);
  const len = buf.readUInt32LE(buf.length - 12);
  return JSON.parse(buf.subarray(buf.length - 12 - len, buf.length - 12).toString('utf8'));
}

/** One stored cell of the index. */
function cellOf(file: string, geo: string, code: string) {
  const idx = ServingIndex.open(file)!;
  let found: unknown;
  idx.lookup(geo, [code], (_, cell) => (found = cell));
  idx.close();
  return found as { estimate: number | null; moe: number | null; estimate_annotation: string | null; moe_annotation: string | null };
}

async function writeBodies(name: string, bodies: Record<string, unknown[][]>): Promise<{ source: string; p: Partition }> {
  const source = path.join(dir, name);
  const level = path.join(source, 'api/2018/acs/acs1/state');
  await fs.mkdir(level, { recursive: true });
  for (const [file, body] of Object.entries(bodies)) await fs.writeFile(path.join(level, file), JSON.stringify(body));
  const [p] = groupPartitions(await listApiFiles(source));
  return { source, p: p! };
}

describe('ServingIndexBuilder', () => {
  it('writes the same bytes as the index read from the Parquet file, on real partitions (dense and sparse, with annotations)', async () => {
    const parts = groupPartitions(await listApiFiles(SHARED_CENSUS)).filter((x) => x.dataset === 'acs1' && x.vintage === 2018);
    const nation = parts.find((x) => x.level === 'nation')!;
    const state = parts.find((x) => x.level === 'state')!;
    const n = await bothIndexes(SHARED_CENSUS, nation, 'nation');
    expect(n.built).toEqual(n.read);
    expect(n.built.dense).toBe(true);
    expect(n.same).toBe(true);
    // Puerto Rico-only tables make the state partition sparse; jam values give it annotations.
    const s = await bothIndexes(SHARED_CENSUS, { ...state, files: state.files.slice(0, 400) }, 'state');
    expect(s.count).toBeGreaterThan(100_000);
    expect(s.built).toEqual(s.read);
    expect(s.built.dense).toBe(false);
    expect((await footerOf(s.file)).annotated).toBeGreaterThan(0);
    expect(s.same).toBe(true);
  });

  it('orders variables across files, maps each file’s annotations, stores -0 as 0 and a missing MOE column as annotated', async () => {
    // B01001A sorts before B01001 in byte order, but its file comes after; each file numbers its
    // annotations in its own order; "-0" takes the full rules and is stored as DuckDB reads "0".
    const { source, p } = await writeBodies('crafted', {
      'B01001.json': [
        ['B01001_002E', 'B01001_002M', 'B01001_001E', 'B01001_001M', 'B01001_001EA', 'B01001_001MA', 'state'],
        ['10', '1', '-666666666', '-222222222', null, null, '06'],
        ['-0', '0.5', '12.25', '-555555555', null, null, '01'],
      ],
      'B01001A.json': [
        ['B01001A_001E', 'B01001A_001M', 'state'],
        ['-999999999', '-333333333', '01'],
        ['7', '2', '06'],
      ],
      'B99999.json': [
        ['B99999_001E', 'state'],
        ['3', '72'],
      ],
    });
    const r = await bothIndexes(source, p, 'crafted-idx');
    expect(r.count).toBe(7);
    expect(r.built).toEqual(r.read);
    expect(r.same).toBe(true);
    const footer = await footerOf(r.file);
    expect(footer.geos).toEqual(['state:01', 'state:06', 'state:72']);
    expect(footer.variables).toEqual(['B01001A_001E', 'B01001_001E', 'B01001_002E', 'B99999_001E']);
    expect(cellOf(r.file, 'state:01', 'B01001_002E')).toMatchObject({ estimate: 0, moe: 0.5 });
    expect(Object.is(cellOf(r.file, 'state:01', 'B01001_002E').estimate, 0)).toBe(true);
    expect(cellOf(r.file, 'state:72', 'B99999_001E')).toMatchObject({ estimate: 3, moe: null, moe_annotation: 'missing_in_source' });
    expect(cellOf(r.file, 'state:01', 'B01001A_001E')).toMatchObject({ estimate: null, estimate_annotation: 'insufficient_sample' });
  });

  it('writes the same bytes for a partition with no annotation at all, and for one geography', async () => {
    const { source, p } = await writeBodies('plain', {
      'B19013.json': [
        ['B19013_001E', 'B19013_001M', 'state'],
        ['75277', '317', '06'],
      ],
    });
    const r = await bothIndexes(source, p, 'plain-idx');
    expect(r.built).toEqual({ rows: 1, bytes: r.read.bytes, dense: true, estimate: 'i32', moe: 'i16' });
    expect(r.same).toBe(true);
  });

  it('refuses a cell given by two files (DuckDB’s index kept both in a sparse partition)', async () => {
    const { source, p } = await writeBodies('twice', {
      'B19013.json': [
        ['B19013_001E', 'state'],
        ['1', '06'],
        ['2', '01'],
      ],
      'B19013X.json': [
        ['B19013_001E', 'B19013X_001E', 'state'],
        ['1', '5', '06'],
      ],
    });
    const staged = await stagePartition(source, p, path.join(dir, 'twice.tsv'), () => {}, pool);
    expect(() => staged.cells.columns()).toThrow('cell state:06 B19013_001E is given twice');
  });
});

describe('the two orderings of the builder', () => {
  // The grid serves partitions where most cells are present, the counting sorts sparse ones; both
  // must give rows in (geography, variable) order, stable, and refuse a repeated cell.
  const rowsOf = (cells: Array<[number, number]>) => ({
    g: Uint32Array.from(cells, ([g]) => g),
    v: Uint32Array.from(cells, ([, v]) => v),
  });
  const startsOf = (g: Uint32Array, ng: number) => {
    const s = new Uint32Array(ng + 1);
    for (const x of g) s[x + 1]!++;
    for (let i = 0; i < ng; i++) s[i + 1] = s[i + 1]! + s[i]!;
    return s;
  };
  const describe_ = (r: number) => `row ${r}`;

  it('agree with a plain sort on any set of distinct cells', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.uniqueArray(fc.tuple(fc.nat(11), fc.nat(11)), { selector: ([g, v]) => `${g},${v}`, maxLength: 144 }),
        (ng, nv, raw) => {
          const cells = raw.filter(([g, v]) => g < ng && v < nv);
          const { g, v } = rowsOf(cells);
          const expected = cells
            .map((c, r) => [c, r] as const)
            .sort(([a], [b]) => a[0] - b[0] || a[1] - b[1])
            .map(([, r]) => r);
          expect([...orderByGrid(g, v, ng, nv, describe_)]).toEqual(expected);
          expect([...orderBySorting(g, v, startsOf(g, ng), nv, describe_)]).toEqual(expected);
        },
      ),
    );
  });

  it('both refuse a cell given twice', () => {
    const { g, v } = rowsOf([
      [1, 2],
      [0, 1],
      [1, 0],
      [1, 2],
    ]);
    expect(() => orderByGrid(g, v, 2, 3, describe_)).toThrow('cell row 3 is given twice');
    expect(() => orderBySorting(g, v, startsOf(g, 2), 3, describe_)).toThrow('is given twice');
  });
});
