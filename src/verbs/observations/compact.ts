// `format=compact`: the cells of one data answer as a columnar table. The long format repeats the
// geography name, the variable label, unit, dataset and vintage in every cell (about 500 bytes a
// cell); here each is written once and the values are geographies × variables arrays, with the
// annotation of a null value as its code and the codes' meanings listed once (docs/api.md).
// Lossless: every field of every cell can be rebuilt from it.
import type { AnnotationInfo } from '../../domain/annotations.js';
import type { ObservationCell } from './engine.js';

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
  const out: CompactData = {
    format: 'compact',
    dataset: cells[0]?.dataset ?? fallback.dataset,
    vintage: cells[0]?.vintage ?? fallback.vintage,
    geographies: [],
    variables: [],
    estimate: [],
    moe_numeric: [],
    estimate_annotation: [],
    moe_annotation: [],
    annotations: {},
  };
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
