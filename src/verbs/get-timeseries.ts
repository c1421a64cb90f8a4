// GET /v1/timeseries and the MCP tool get_timeseries: variables across vintages. Every vintage
// of the range appears for every variable and geography; vintages without a value are null with
// the reason (not published that year, not loaded, changed meaning).
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { checkResponseSize, checkRowCap } from '../domain/row-cap.js';
import { datasetSpec, checkVintage, referencePeriod, type DatasetKey } from '../domain/datasets.js';
import type { ObservationCell } from './observations/engine.js';
import { computeCellsWithRegions, regionMeta } from './observations/regions.js';
import { savedRegionsOf } from './observations/saved-regions.js';
import { observationMeta } from './observations/meta.js';
import { geoTerms, mayExpand, normalizeObservationInput, observationInputShape, prepare } from './observations/prepare.js';
import { observationCellSchema } from './observations/schemas.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';
import { adjustCell, dollarsInputShape, dollarsMeta } from './observations/dollars.js';
import { nominalDollarsNote, changeSchema, compareToShape, withChanges, type CellChange } from './observations/change.js';

export const timeseriesInput = z.object({
  ...observationInputShape,
  from: z.number().int().optional().describe('First vintage (default: the first of the dataset: acs5 2009, acs1 2005).'),
  to: z
    .number()
    .int()
    .optional()
    .describe('Last vintage (default: the latest, 2024). Geographies are resolved as defined in this vintage.'),
  ...dollarsInputShape,
  ...compareToShape('every point'),
});

/** Points per variable and geography: the whole acs5 range (2009–2024) is 16. */
export const MAX_POINTS = 16;

/** The vintages of a series ending at `to` (checked), from `from` or 16 points back. */
function seriesVintages(dataset: DatasetKey, to: number, fromInput: number | undefined): number[] {
  const all = datasetSpec(dataset).vintages;
  const from = fromInput === undefined ? Math.max(all[0]!, to - (MAX_POINTS - 1)) : fromInput;
  // from/to bound a range, so an unpublished year inside it (acs1 2020) is fine; outside the
  // dataset's years it is an invalid vintage.
  if (from < all[0]! || from > all.at(-1)!) checkVintage(dataset, from);
  if (from > to) {
    throw new AppError('validation-error', `from (${from}) is after to (${to}).`, {
      errors: [{ field: 'from', message: 'must not be after to', type: 'value_error' }],
    });
  }
  const vintages = all.filter((y) => y >= from && y <= to);
  if (vintages.length > MAX_POINTS) {
    throw new AppError(
      'validation-error',
      `A series has at most ${MAX_POINTS} points per variable and geography; ${from}–${to} has ${vintages.length}. Narrow from/to.`,
      {
        errors: [{ field: 'from', message: `at most ${MAX_POINTS} vintages`, type: 'too_long' }],
      },
    );
  }
  return vintages;
}

/**
 * Estimates pooling several years (the registry's periodYears: 5 for acs5) overlap when two
 * vintages of the series are closer than a period: said in meta, with a non-overlapping pair.
 */
function overlapNote(dataset: DatasetKey, vintages: readonly number[]): string | undefined {
  const { periodYears: n, shortLabel } = datasetSpec(dataset);
  if (n <= 1 || !vintages.some((v, i) => i > 0 && v - vintages[i - 1]! < n)) return undefined;
  const last = vintages.at(-1)!;
  const span = (end: number) => `${end - n + 1}–${end}`;
  return `${shortLabel} periods overlap (${last} covers ${span(last)}); compare non-overlapping periods, e.g. ${span(last - n)} with ${span(last)}, to measure change.`;
}

export const getTimeseries = defineVerb({
  name: 'get-timeseries',
  input: timeseriesInput,
  output: z.array(observationCellSchema.extend({ change: changeSchema.optional() })),
  feature: 'data',
  formats: ['json', 'csv'],
  normalize: (input, at) => normalizeObservationInput(input, at),
  heavy: mayExpand,
  // Before the queue: variables and places found, the range and the base checked, limits.
  resolve: async ({ ctx, input, plan, maxRows }) => {
    // A series ends at the dataset's latest vintage by default: missing years show as nulls.
    const p = await prepare(ctx, plan, input, {
      requested: input.to,
      defaultToLoaded: false,
      range: (to) => seriesVintages(input.dataset, to, input.from),
      regions: { saved: savedRegionsOf(ctx) },
    });
    const rows = p.geo.geographies.length + p.regions.length;
    const vintages = p.vintages;
    const base = input.compare_to === undefined ? undefined : checkVintage(p.dataset, input.compare_to);
    // A base outside the range is read too, and charged as one more vintage.
    const extra = base !== undefined && !vintages.includes(base) ? [base] : [];
    checkRowCap(rows * p.variables.length * vintages.length, maxRows);
    checkResponseSize({ geographies: rows, variables: p.variables.length, vintages: vintages.length });
    return { p, base, extra };
  },
  cost: (_input, { p, extra }) => ({
    kind: 'timeseries',
    variables: p.variables.length,
    geos: geoTerms(p.geo, p.regions),
    vintages: p.vintages.length + extra.length,
  }),
  run: async ({ input, resolved: { p, base, extra } }): Promise<VerbResult<(ObservationCell & { change?: CellChange })[]>> => {
    const dollars = input.dollars;
    const vintages = p.vintages;
    const to = vintages.at(-1)!;
    // A region's members are those of the last vintage; in an earlier one a member not defined
    // there makes the region's value null, naming it (observations/regions.ts).
    const result = await computeCellsWithRegions(p, [...vintages, ...extra]);
    // Dollars are restated first, so a change is measured in constant dollars.
    const all = dollars ? result.cells.map((c) => adjustCell(c, dollars)) : result.cells;
    const shown = extra.length ? all.filter((c) => c.vintage !== base) : all;
    // One series per variable and geography, in vintage order.
    const sorted = [...shown].sort(
      (a, b) => a.variable.localeCompare(b.variable) || a.geo_key.localeCompare(b.geo_key) || a.vintage - b.vintage,
    );
    let cells: (ObservationCell & { change?: CellChange })[] = sorted;
    if (base !== undefined) cells = withChanges(p.dataset, sorted, all, base);
    const overlap = overlapNote(p.dataset, vintages);
    const period = `${referencePeriod(p.dataset, vintages[0]!).split('–')[0]}–${to}`;
    const nominal = nominalDollarsNote(base, vintages, dollars !== null, shown) ?? undefined;
    return {
      data: cells,
      meta: {
        ...observationMeta(p, vintages, result, {
          referencePeriod: period,
          extraHint: [nominal, overlap].filter(Boolean).join(' ') || undefined,
        }),
        ...regionMeta(p, { meta: result.regions }),
        vintages,
        ...(dollars ? { dollars: dollarsMeta(dollars) } : {}),
        ...(base !== undefined ? { compare_to: base } : {}),
      },
    };
  },
});
