// A partition's serving index built from its parsed cells (observations/cell-columns.ts) rather than
// read back from the Parquet file with DuckDB: the same file, byte for byte (test/etl/
// serving-index-builder.test.ts), for a fraction of the CPU — DuckDB's reading took six passes over
// the partition, about a third of the observations step (docs/performance.md, "ETL").
import type { FileCells } from './observations/cell-columns.js';
import { varWidthOf, type IndexColumns } from './serving-index-write.js';

/** Sorted distinct strings. Keys, variable names and annotation codes are ASCII, where JS order is byte order (DuckDB's). */
const sortedUnion = (lists: Iterable<string[]>): string[] => {
  const all = new Set<string>();
  for (const l of lists) for (const s of l) all.add(s);
  return [...all].sort();
};

const idsOf = (list: string[]) => new Map(list.map((s, i) => [s, i]));

/** Two files (or one) give the same cell: an input error of the partition. */
export class RepeatedCell extends Error {
  override name = 'RepeatedCell';
}

export class ServingIndexBuilder {
  readonly files: FileCells[] = [];

  static of(files: FileCells[]): ServingIndexBuilder {
    const b = new ServingIndexBuilder();
    for (const f of files) b.add(f);
    return b;
  }

  add(cells: FileCells): void {
    this.files.push(cells);
  }

  /** Rows in (geography, variable) order; throws when a cell is given twice (across files too). */
  columns(): IndexColumns {
    const files = this.files;
    const geos = sortedUnion(files.map((f) => f.geos));
    const variables = sortedUnion(files.map((f) => f.variables));
    const annotations = sortedUnion(files.map((f) => f.annotations));
    const ng = geos.length;
    const nv = variables.length;
    const rows = files.reduce((n, f) => n + f.count, 0);
    if (rows >= 2 ** 32) throw new Error(`${rows} rows, the index holds fewer than 2^32`);

    // Every row with the partition's ids (annotations 1-based, 0 = none), in file order.
    const geoIds = idsOf(geos);
    const varIds = idsOf(variables);
    const annIds = idsOf(annotations);
    const g = new Uint32Array(rows);
    const v = new Uint32Array(rows);
    const est = new Float64Array(rows);
    const moeAt = new Float64Array(rows);
    const ea = new Uint8Array(rows);
    const ma = new Uint8Array(rows);
    const starts = new Uint32Array(ng + 1);
    const describe = (r: number) => `${geos[g[r]!]} ${variables[v[r]!]}`;
    for (let at = 0, k = 0; k < files.length; at += files[k]!.count, k++) {
      const f = files[k]!;
      const n = f.count;
      const fg = f.geo;
      const fv = f.variable;
      const gl = Uint32Array.from(f.geos, (s) => geoIds.get(s)!);
      const vl = Uint32Array.from(f.variables, (s) => varIds.get(s)!);
      for (let i = 0; i < n; i++) {
        const gi = gl[fg[i]!]!;
        g[at + i] = gi;
        v[at + i] = vl[fv[i]!]!;
        starts[gi + 1]!++;
      }
      if (f.annotations.length > 0) {
        const al = Uint8Array.from([0, ...f.annotations.map((s) => annIds.get(s)! + 1)]);
        const fea = f.estimateAnnotation;
        const fma = f.moeAnnotation;
        for (let i = 0; i < n; i++) {
          ea[at + i] = al[fea[i]!]!;
          ma[at + i] = al[fma[i]!]!;
        }
      }
      est.set(f.estimate, at);
      moeAt.set(f.moe, at);
    }
    for (let i = 0; i < ng; i++) starts[i + 1] = starts[i + 1]! + starts[i]!;
    const order = ng * nv <= 4 * rows + 65_536 ? orderByGrid(g, v, ng, nv, describe) : orderBySorting(g, v, starts, nv, describe);

    const dense = rows === ng * nv;
    const estimate = new Float64Array(rows);
    const moe = new Float64Array(rows);
    for (let j = 0; j < rows; j++) {
      const r = order[j]!;
      estimate[j] = est[r]!;
      moe[j] = moeAt[r]!;
    }
    const vars = dense
      ? undefined
      : varWidthOf(nv) === 2
        ? permuted(new Uint16Array(rows), v, order)
        : permuted(new Uint32Array(rows), v, order);
    let annotated = 0;
    if (annotations.length > 0) for (let r = 0; r < rows; r++) if (ea[r] !== 0 || ma[r] !== 0) annotated++;

    let annStarts: Uint32Array | undefined;
    let ann: Buffer | undefined;
    if (annotated > 0) {
      annStarts = new Uint32Array(ng + 1);
      ann = Buffer.alloc(annotated * 6);
      let a = 0;
      for (let gi = 0; gi < ng; gi++) {
        for (let j = starts[gi]!; j < starts[gi + 1]!; j++) {
          const r = order[j]!;
          if (ea[r] === 0 && ma[r] === 0) continue;
          ann.writeUInt32LE(v[r]!, a * 6);
          ann[a * 6 + 4] = ea[r]!;
          ann[a * 6 + 5] = ma[r]!;
          a++;
        }
        annStarts[gi + 1] = a;
      }
    }
    return {
      geos,
      variables,
      annotations,
      rows,
      dense,
      estimate,
      moe,
      vars,
      starts: dense ? undefined : starts,
      annStarts,
      ann,
      annotated,
    };
  }
}

/** `out[j] = values[order[j]]`. */
function permuted<T extends Uint16Array | Uint32Array>(out: T, values: Uint32Array, order: Uint32Array): T {
  for (let j = 0; j < order.length; j++) out[j] = values[order[j]!]!;
  return out;
}

/**
 * Rows in (geography, variable) order through a geography × variable grid of row numbers: two
 * passes, for partitions where most cells are present (every real one: tables are published for
 * nearly every geography). Throws on a cell given twice.
 */
export function orderByGrid(g: Uint32Array, v: Uint32Array, ng: number, nv: number, describe: (row: number) => string): Uint32Array {
  const rows = g.length;
  const grid = new Int32Array(ng * nv).fill(-1);
  for (let r = 0; r < rows; r++) {
    const p = g[r]! * nv + v[r]!;
    if (grid[p] !== -1) throw new RepeatedCell(`cell ${describe(r)} is given twice`);
    grid[p] = r;
  }
  const order = new Uint32Array(rows);
  for (let p = 0, j = 0; p < grid.length; p++) if (grid[p] !== -1) order[j++] = grid[p]!;
  return order;
}

/**
 * The same order by two stable counting sorts, variable first, for partitions too sparse for a grid.
 * Files come in table order, which is not variable order (B01001_001E sorts after B01001A_001E).
 */
export function orderBySorting(
  g: Uint32Array,
  v: Uint32Array,
  starts: Uint32Array,
  nv: number,
  describe: (row: number) => string,
): Uint32Array {
  const rows = g.length;
  const byVariable = new Uint32Array(rows);
  const vNext = new Uint32Array(nv + 1);
  for (let r = 0; r < rows; r++) vNext[v[r]! + 1]!++;
  for (let i = 0; i < nv; i++) vNext[i + 1] = vNext[i + 1]! + vNext[i]!;
  for (let r = 0; r < rows; r++) byVariable[vNext[v[r]!]!++] = r;
  const order = new Uint32Array(rows);
  const gNext = starts.slice(0, starts.length - 1);
  for (let j = 0; j < rows; j++) {
    const r = byVariable[j]!;
    order[gNext[g[r]!]!++] = r;
  }
  for (let j = 1; j < rows; j++) {
    const r = order[j]!;
    const q = order[j - 1]!;
    if (v[r] === v[q] && g[r] === g[q]) throw new RepeatedCell(`cell ${describe(r)} is given twice`);
  }
  return order;
}
