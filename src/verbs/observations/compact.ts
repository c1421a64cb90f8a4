// `format=compact`: the cells of one data answer as a columnar table. The long format repeats the
// geography name, the variable label, unit, dataset and vintage in every cell (about 500 bytes a
// cell); here each is written once and the values are geographies × variables arrays, with the
// annotation of a null value as its code and the codes' meanings listed once (docs/formats.md).
// Lossless: every field of every cell can be rebuilt from it.
import { describeAnnotation, type AnnotationInfo } from '../../domain/annotations.js';
import type { EngineGrid } from './engine.js';

export interface CompactData {
  format: 'compact';
  dataset: string;
  vintage: number;
  geographies: Array<{ geo_key: string; geo_name: string; geo_type: string; geometry?: unknown }>;
  /** Per variable: every field of a cell that is not per geography, per value, dataset or vintage. */
  variables: Array<Record<string, unknown> & { variable: string }>;
  /** estimate[g][v]: geography g (order of `geographies`), variable v (order of `variables`). */
  estimate: (number | null)[][];
  moe_numeric: (number | null)[][];
  /** Annotation codes, same shape; null where the cell has none. */
  estimate_annotation: (string | null)[][];
  moe_annotation: (string | null)[][];
  /** Every annotation code used above, with its symbol and meaning. */
  annotations: Record<string, AnnotationInfo>;
}

export const emptyTable = (dataset: string, vintage: number): CompactData => ({
  format: 'compact',
  dataset,
  vintage,
  geographies: [],
  variables: [],
  estimate: [],
  moe_numeric: [],
  estimate_annotation: [],
  moe_annotation: [],
  annotations: {},
});

/** Whether an answer's data is already the compact table (the data verb builds it when asked for compact). */
export const isCompactData = (data: unknown): data is CompactData =>
  typeof data === 'object' && data !== null && !Array.isArray(data) && (data as { format?: unknown }).format === 'compact';

/**
 * The engine's grid of a single-vintage answer straight into the compact table, without a cell
 * object per value (on 45,000-cell answers those objects and their collection were most of the
 * time). Exactly what compacting cellsOf(grid) cell by cell gives (the definition,
 * test/verbs/observations/compact-reference.ts): geographies and variables in first-seen
 * order, a repeated geography or variable written to its first row or column, annotations listed
 * in the order the cells meet them (test/verbs/observations/grid-renderings.test.ts holds it to that).
 */
export function compactGrid(grid: EngineGrid, fallback: { dataset: string; vintage: number }): CompactData {
  const first = grid.slices.find((s) => s.geographies.length > 0 && s.variables.length > 0);
  const out = emptyTable(first ? grid.dataset : fallback.dataset, first ? first.vintage : fallback.vintage);
  if (!first) return out;
  const geoIndex = new Map<string, number>();
  const varIndex = new Map<string, number>();
  // Per slice, the row of each of its geographies and the column of each of its variables.
  const rowsOf = grid.slices.map((s) =>
    s.variables.length === 0
      ? []
      : s.geographies.map((g) => {
          let row = geoIndex.get(g.key);
          if (row === undefined) {
            geoIndex.set(g.key, (row = out.geographies.length));
            out.geographies.push({ geo_key: g.key, geo_name: g.name, geo_type: g.type });
          }
          return row;
        }),
  );
  const colsOf = grid.slices.map((s) =>
    s.geographies.length === 0
      ? []
      : s.variables.map((v) => {
          let col = varIndex.get(v.variable);
          if (col === undefined) {
            varIndex.set(v.variable, (col = out.variables.length));
            out.variables.push(v as unknown as GridVariableFields);
          }
          return col;
        }),
  );
  const nRows = out.geographies.length;
  const nCols = out.variables.length;
  const grid2 = <T>() => Array.from({ length: nRows }, () => new Array<T | null>(nCols).fill(null));
  out.estimate = grid2<number>();
  out.moe_numeric = grid2<number>();
  out.estimate_annotation = grid2<string>();
  out.moe_annotation = grid2<string>();
  const note = (code: string) => {
    if (!(code in out.annotations)) out.annotations[code] = describeAnnotation(code)!;
  };
  grid.slices.forEach((s, si) => {
    const rows = rowsOf[si]!;
    const cols = colsOf[si]!;
    const nv = cols.length;
    for (let g = 0; g < rows.length; g++) {
      const row = rows[g]!;
      const est = out.estimate[row]!;
      const moe = out.moe_numeric[row]!;
      const ea = out.estimate_annotation[row]!;
      const ma = out.moe_annotation[row]!;
      for (let v = 0; v < nv; v++) {
        const i = g * nv + v;
        const col = cols[v]!;
        est[col] = s.estimate[i]!;
        moe[col] = s.moe[i]!;
        const a = s.estimate_annotation[i]!;
        const b = s.moe_annotation[i]!;
        ea[col] = a;
        ma[col] = b;
        if (a !== null) note(a);
        if (b !== null) note(b);
      }
    }
  });
  return out;
}

type GridVariableFields = CompactData['variables'][number];
