// The definition of format=compact, cell by cell: the long format's cells of a single-vintage
// answer into the compact table, geographies and variables in first-seen order. The service builds
// the table from the engine's grid instead (src/verbs/observations/compact.ts, compactGrid); tests
// hold it to exactly this.
import type { ObservationCell } from '../../../src/verbs/observations/engine.js';
import { emptyTable, type CompactData } from '../../../src/verbs/observations/compact.js';

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
