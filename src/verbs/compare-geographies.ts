// GET /v1/compare and the MCP tool compare_geographies: the same variables for several
// geographies side by side, each value compared with the first geography, with the Census
// Bureau's test of whether the difference is statistically significant at 90% confidence.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { checkResponseSize, checkRowCap } from '../domain/row-cap.js';
import type { ObservationCell } from './observations/engine.js';
import { computeCellsWithRegions, regionMeta, rowKeysOf } from './observations/regions.js';
import { savedRegionsOf } from './observations/saved-regions.js';
import { observationMeta } from './observations/meta.js';
import { geoTerms, mayExpand, normalizeObservationInput, observationInputShape, prepare } from './observations/prepare.js';
import { comparedCellSchema } from './observations/schemas.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';
import { adjustCell, dollarsInputShape, dollarsMeta } from './observations/dollars.js';
import { nominalDollarsNote, changeSchema, compareToShape, withChanges, type CellChange } from './observations/change.js';
import { checkVintage } from '../domain/datasets.js';

export const compareInput = z.object({
  ...observationInputShape,
  vintage: z
    .number()
    .int()
    .optional()
    .describe(
      "Survey year; default: the latest vintage this deployment holds values for (for these variables and geographies), else the dataset's latest (2024).",
    ),
  ...dollarsInputShape,
  ...compareToShape('every geography'),
});

export interface Comparison {
  /** The geography every other one is compared with: the first one requested. */
  reference_geo_key: string;
  difference: number | null;
  /** MOE of the difference: √(MOE₁² + MOE₂²). */
  difference_moe: number | null;
  /** |difference| > difference_moe: the difference is statistically significant at 90%. */
  significant: boolean | null;
  /**
   * Why no test was made (null when it was): the annotation code of the value or MOE that makes a
   * test meaningless — a null estimate, a top- or bottom-coded median (an interval bound), a
   * controlled estimate (no sampling error to test), or an MOE that is missing or annotated.
   */
  not_tested_reason: string | null;
}

export type ComparedCell = ObservationCell & { comparison: Comparison | null; change?: CellChange };

const UNTESTABLE_ESTIMATE = new Set(['top_coded', 'bottom_coded']);

/**
 * Why a cell cannot enter the test, or null when its estimate and sampling MOE are both usable.
 * `rank` orders the reasons from the most basic: no value at all (0), a coded value (1), an
 * unusable MOE (2), so that of two untestable cells the answer names the more basic reason (a
 * parent that was not loaded, rather than the place's missing MOE).
 */
function untestable(c: ObservationCell): { code: string; rank: number } | null {
  if (c.estimate === null) return { code: c.estimate_annotation?.code ?? 'not_computable', rank: 0 };
  if (c.estimate_annotation && UNTESTABLE_ESTIMATE.has(c.estimate_annotation.code)) return { code: c.estimate_annotation.code, rank: 1 };
  if (c.moe_numeric === null || c.moe_annotation) return { code: c.moe_annotation?.code ?? 'moe_not_computable', rank: 2 };
  return null;
}

export function compareWith(reference: ObservationCell, c: ObservationCell): Comparison {
  const base = { reference_geo_key: reference.geo_key };
  const estimateUsable = (x: ObservationCell) =>
    x.estimate !== null && !(x.estimate_annotation && UNTESTABLE_ESTIMATE.has(x.estimate_annotation.code));
  const difference = estimateUsable(reference) && estimateUsable(c) ? c.estimate! - reference.estimate! : null;
  const [r1, r2] = [untestable(reference), untestable(c)];
  const why = r1 && r2 ? (r2.rank < r1.rank ? r2 : r1) : (r1 ?? r2);
  if (why !== null) return { ...base, difference, difference_moe: null, significant: null, not_tested_reason: why.code };
  const m1 = reference.moe_numeric!;
  const m2 = c.moe_numeric!;
  const difference_moe = Math.sqrt(m1 * m1 + m2 * m2);
  return { ...base, difference, difference_moe, significant: Math.abs(difference!) > difference_moe, not_tested_reason: null };
}

export const compareGeographies = defineVerb({
  name: 'compare-geographies',
  input: compareInput,
  output: z.array(comparedCellSchema.extend({ change: changeSchema.optional() })),
  feature: 'data',
  formats: ['json', 'csv'],
  normalize: (input, at) => normalizeObservationInput(input, at),
  heavy: mayExpand,
  // Before the queue: variables and places found, at least two rows, limits.
  resolve: async ({ ctx, input, plan, maxRows }) => {
    const p = await prepare(ctx, plan, input, { requested: input.vintage, defaultToLoaded: true, regions: { saved: savedRegionsOf(ctx) } });
    const base = input.compare_to === undefined ? undefined : checkVintage(p.dataset, input.compare_to);
    // Rows: the listed geographies, then the regions (observations/regions.ts).
    const rows = rowKeysOf(p);
    // The time form (compare_to) compares each geography with itself, so one geography is enough.
    if (rows.length < (base === undefined ? 2 : 1)) {
      throw new AppError(
        'validation-error',
        `compare needs at least two geographies; got ${rows.length}. Separate them with ";" (geo=state:06;state:48) or repeat geo.`,
        {
          errors: [{ field: 'geo', message: 'at least two geographies', type: 'too_short' }],
        },
      );
    }
    checkRowCap(rows.length * p.variables.length, maxRows);
    checkResponseSize({ geographies: rows.length, variables: p.variables.length });
    return { p, base, rows };
  },
  cost: (_input, { p }) => ({ kind: 'compare', variables: p.variables.length, geos: geoTerms(p.geo, p.regions) }),
  run: async ({ input, resolved: { p, base, rows } }): Promise<VerbResult<ComparedCell[]>> => {
    const dollars = input.dollars;
    const vintage = p.vintage;
    const result = await computeCellsWithRegions(p, base !== undefined && base !== vintage ? [vintage, base] : [vintage]);
    const first = rows[0]!;
    const all = dollars ? result.cells.map((c) => adjustCell(c, dollars)) : result.cells;
    const restated = all.filter((c) => c.vintage === vintage);
    const reference = new Map(restated.filter((c) => c.geo_key === first).map((c) => [c.variable, c]));
    // Ordered by variable, then geography in request order: one block per variable, side by side.
    const order = new Map(rows.map((k, i) => [k, i]));
    const varOrder = new Map(p.variables.map((v, i) => [v.api_name, i]));
    const cells = restated
      .map((c) => ({ ...c, comparison: c.geo_key === first ? null : compareWith(reference.get(c.variable)!, c) }))
      .sort((a, b) => varOrder.get(a.variable)! - varOrder.get(b.variable)! || order.get(a.geo_key)! - order.get(b.geo_key)!);
    return {
      data: base === undefined ? cells : withChanges(p.dataset, cells, all, base),
      meta: {
        ...observationMeta(p, [vintage], result, {
          extraHint:
            [p.defaultNote, nominalDollarsNote(base, [vintage], dollars !== null, restated)].filter(Boolean).join(' ') || undefined,
        }),
        ...regionMeta(p, { meta: result.regions }),
        ...(dollars ? { dollars: dollarsMeta(dollars) } : {}),
        ...(base !== undefined ? { compare_to: base } : {}),
      },
    };
  },
});
