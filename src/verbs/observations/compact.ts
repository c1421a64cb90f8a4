// `format=compact`: the cells of one data answer as a columnar table. The long format repeats the
// geography name, the variable label, unit, dataset and vintage in every cell (about 500 bytes a
// cell); here each is written once and the values are geographies × variables arrays, with the
// annotation of a null value as its code and the codes' meanings listed once (docs/api.md).
// Lossless: every field of every cell can be rebuilt from it.
import { describeAnnotation, type AnnotationInfo } from '../../domain/annotations.js';
import type { EngineGrid, ObservationCell } from './engine.js';

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

/** Fields a cell has per geography, per value, or once per answer: everything else is the variable's. */
const NOT_VARIABLE = new Set([
  'geo_key',
  'geo_name',
  'geo_type',
  'geometry',
  'estimate',
  'moe_numeric',
  'estimate_annotation',
  'moe_annotation',
  'dataset',
  'vintage',
]);

function variableFields(c: ObservationCell): Record<string, unknown> & { variable: string } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) if (!NOT_VARIABLE.has(k)) out[k] = v;
  return out as Record<string, unknown> & { variable: string };
}

const emptyTable = (dataset: string, vintage: number): CompactData => ({
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

/**
 * Cells of a single-vintage answer (what /v1/data returns) into the compact table. Geographies and
 * variables keep their first-seen order, so the table reads in the order the long format does.
 */
export function compactCells(
  cells: ReadonlyArray<ObservationCell & { geometry?: unknown }>,
  fallback: { dataset: string; vintage: number },
): CompactData {
  const geoIndex = new Map<string, number>();
  const varIndex = new Map<string, number>();
  const out = emptyTable(cells[0]?.dataset ?? fallback.dataset, cells[0]?.vintage ?? fallback.vintage);
  for (const c of cells) {
    if (!geoIndex.has(c.geo_key)) {
      geoIndex.set(c.geo_key, out.geographies.length);
      out.geographies.push(
        c.geometry === undefined
          ? { geo_key: c.geo_key, geo_name: c.geo_name, geo_type: c.geo_type }
          : { geo_key: c.geo_key, geo_name: c.geo_name, geo_type: c.geo_type, geometry: c.geometry },
      );
    }
    if (!varIndex.has(c.variable)) {
      varIndex.set(c.variable, out.variables.length);
      out.variables.push(variableFields(c));
    }
  }
  const grid = <T>() => out.geographies.map(() => new Array<T | null>(out.variables.length).fill(null));
  out.estimate = grid<number>();
  out.moe_numeric = grid<number>();
  out.estimate_annotation = grid<string>();
  out.moe_annotation = grid<string>();
  for (const c of cells) {
    const g = geoIndex.get(c.geo_key)!;
    const v = varIndex.get(c.variable)!;
    out.estimate[g]![v] = c.estimate;
    out.moe_numeric[g]![v] = c.moe_numeric;
    if (c.estimate_annotation) {
      out.estimate_annotation[g]![v] = c.estimate_annotation.code;
      out.annotations[c.estimate_annotation.code] = c.estimate_annotation;
    }
    if (c.moe_annotation) {
      out.moe_annotation[g]![v] = c.moe_annotation.code;
      out.annotations[c.moe_annotation.code] = c.moe_annotation;
    }
  }
  return out;
}

/** Whether an answer's data is already the compact table (the data verb builds it when asked for compact). */
export const isCompactData = (data: unknown): data is CompactData =>
  typeof data === 'object' && data !== null && !Array.isArray(data) && (data as { format?: unknown }).format === 'compact';

/**
 * The engine's grid of a single-vintage answer straight into the compact table, without a cell
 * object per value (on 45,000-cell answers those objects and their collection were most of the
 * time). Exactly compactCells(cellsOf(grid), fallback): geographies and variables in first-seen
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
