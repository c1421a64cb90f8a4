// compare_to=YYYY on timeseries: each point of a series compared with the same variable and
// geography in the base vintage — difference, percent change, their MOEs and the Bureau's 90% test
// (src/domain/change.ts) — or, where a test would mislead, no verdict and the reason.
import { z } from 'zod';
import { changeBetween, groupQuartersCaveat, overlapReason, untestedMoeDetail, type NotTested } from '../../domain/change.js';
import type { DatasetKey } from '../../domain/datasets.js';
import type { ObservationCell } from './engine.js';

export const changeSchema = z
  .object({
    base_vintage: z.number().int(),
    base_estimate: z.number().nullable().describe('The base vintage’s value (in dollars= dollars when asked).'),
    base_moe: z.number().nullable(),
    difference: z.number().nullable().describe('estimate − base_estimate.'),
    difference_moe: z.number().nullable().describe('√(MOE² + base MOE²): the handbook’s MOE of a difference.'),
    percent_change: z.number().nullable().describe('100 × difference / base_estimate.'),
    percent_change_moe: z
      .number()
      .nullable()
      .describe('100 × √(MOE² + R²·base MOE²) / base_estimate, R = estimate / base_estimate: the handbook’s ratio MOE.'),
    significant: z
      .boolean()
      .nullable()
      .describe(
        '|difference| > difference_moe: significant at 90% (the Bureau’s test, Z = 1.645). Null: no verdict, see not_tested_reason.',
      ),
    not_tested_reason: z
      .string()
      .nullable()
      .describe(
        'Why no test was made: overlapping_periods (acs5 periods sharing years), an annotation code of either value (not_comparable, not_in_vintage, top_coded, controlled, …), label_changed, or not_in_index (dollars could not be restated).',
      ),
    not_tested_detail: z.string().nullable(),
    caveat: z
      .object({
        code: z.string().describe('group_quarters_2005: one side is the 2005 ACS, which sampled households only.'),
        detail: z.string(),
        source: z.string().describe("The Census Bureau's page the caveat rests on."),
      })
      .nullable()
      .describe(
        'A caveat on a comparison that is still made: group_quarters_2005 when one vintage is the 2005 acs1, which covered only the household population (group quarters were added in 2006). Null otherwise.',
      ),
  })
  .nullable()
  .describe('With compare_to=YYYY only: this point against the base vintage; null on the base vintage’s own point.');

export type CellChange = z.infer<typeof changeSchema>;

const UNTESTABLE_ESTIMATE = new Set(['top_coded', 'bottom_coded']);

type Dollared = ObservationCell & { dollars?: { adjusted: boolean; reason?: string } };

/** A value usable as a number in a difference (not null, not an interval bound). */
const usable = (c: ObservationCell) =>
  c.estimate !== null && !(c.estimate_annotation && UNTESTABLE_ESTIMATE.has(c.estimate_annotation.code));

/** Why this one cell keeps a pair from being tested, or null. */
function cellReason(c: Dollared, vintage: number): NotTested | null {
  const at = ` (${vintage})`;
  if (c.estimate === null) {
    const a = c.estimate_annotation;
    return { code: a?.code ?? 'not_computable', detail: `${a?.meaning ?? 'No estimate'}${at}.` };
  }
  if (c.estimate_annotation && UNTESTABLE_ESTIMATE.has(c.estimate_annotation.code)) {
    return {
      code: c.estimate_annotation.code,
      detail: `${c.estimate_annotation.meaning}${at}: an interval bound, not an estimate to test.`,
    };
  }
  // Any other annotation on a value means the Bureau qualified it: no verdict rests on it.
  if (c.estimate_annotation) return { code: c.estimate_annotation.code, detail: `${c.estimate_annotation.meaning}${at}.` };
  if (c.moe_numeric === null || c.moe_annotation) {
    const a = c.moe_annotation;
    return {
      code: a?.code ?? 'moe_not_computable',
      detail: `${a?.meaning ?? 'No margin of error'}${at}: ${untestedMoeDetail(a?.code ?? null)}.`,
    };
  }
  if (c.label_changed) {
    return {
      code: 'label_changed',
      detail: `The code's label or universe in ${vintage} differs from its latest vintage's: not the same measure.`,
    };
  }
  if (c.dollars && !c.dollars.adjusted && c.dollars.reason === 'not_in_index') {
    return { code: 'not_in_index', detail: `No price index value to restate ${vintage} dollars.` };
  }
  return null;
}

export function changeFrom(dataset: DatasetKey, base: Dollared, point: Dollared): NonNullable<CellChange> {
  const both = usable(base) && usable(point);
  const partial = {
    base_vintage: base.vintage,
    base_estimate: usable(base) ? base.estimate : null,
    base_moe: base.moe_numeric,
    difference: both ? point.estimate! - base.estimate! : null,
    difference_moe: null,
    percent_change: both && base.estimate !== 0 ? (100 * (point.estimate! - base.estimate!)) / base.estimate! : null,
    percent_change_moe: null,
    significant: null,
  };
  const caveat = groupQuartersCaveat(dataset, base.vintage, point.vintage);
  const why = overlapReason(dataset, base.vintage, point.vintage) ?? cellReason(base, base.vintage) ?? cellReason(point, point.vintage);
  if (why) return { ...partial, not_tested_reason: why.code, not_tested_detail: why.detail, caveat };
  const c = changeBetween({ estimate: base.estimate!, moe: base.moe_numeric! }, { estimate: point.estimate!, moe: point.moe_numeric! });
  return {
    ...partial,
    difference: c.difference,
    difference_moe: c.difference_moe,
    percent_change: c.percent_change,
    percent_change_moe: c.percent_change_moe,
    significant: c.significant,
    not_tested_reason: null,
    not_tested_detail: null,
    caveat,
  };
}

/** The key a point and its base share. */
export const seriesKey = (c: ObservationCell) => `${c.variable}\u0000${c.geo_key}`;

/** Said in meta.hint when dollar values of two years are compared without dollars=. */
export const NOMINAL_DOLLARS_NOTE =
  'Dollar values are compared as published (each vintage in its own dollars); add dollars=YYYY to compare in constant dollars.';

/** The hint when dollar values of two vintages were compared without dollars=, else null. */
export function nominalDollarsNote(
  base: number | undefined,
  vintages: readonly number[],
  restated: boolean,
  cells: readonly ObservationCell[],
) {
  const across = base !== undefined && vintages.some((v) => v !== base);
  return across && !restated && cells.some((c) => c.unit === 'dollar') ? NOMINAL_DOLLARS_NOTE : null;
}

/** compare_to on timeseries and compare: the base vintage, as both verbs take it. */
export const compareToShape = (what: string) => ({
  compare_to: z
    .number()
    .int()
    .optional()
    .describe(
      `Base vintage: ${what} gets \`change\` against this vintage's value of the same variable and geography — difference, percent change, their MOEs and \`significant\` at 90% (the Census Bureau's test), computed after dollars= restates dollars. Overlapping acs5 periods, values not comparable across the two vintages, and controlled, top-coded or annotated values get significant: null with the reason.`,
    ),
});

/** Each cell with its change from the same series in `baseCells` (null on a cell of the base vintage itself). */
export function withChanges<C extends ObservationCell>(
  dataset: DatasetKey,
  cells: readonly C[],
  baseCells: readonly ObservationCell[],
  base: number,
): (C & { change: CellChange })[] {
  const bases = new Map(baseCells.filter((c) => c.vintage === base).map((c) => [seriesKey(c), c]));
  return cells.map((c) => ({ ...c, change: c.vintage === base ? null : changeFrom(dataset, bases.get(seriesKey(c))!, c) }));
}
