// dollars=YYYY on data, compare and timeseries: every dollar-denominated cell restated in that
// year's dollars with the R-CPI-U-RS (src/domain/dollars.ts), its MOE scaled by the same factor;
// every other cell left as published and saying why. Checked before anything is charged.
import { z } from 'zod';
import { checkTargetYear, dollarFactor, dollarYearOf, type PriceIndex } from '../../domain/dollars.js';
import { AppError } from '../../domain/errors.js';
import { loadPriceIndex } from '../../store/price-index.js';
import type { ObservationCell } from './engine.js';

export const dollarsInputShape = {
  dollars: z
    .number()
    .int()
    .optional()
    .describe(
      "Restate every dollar-denominated value (unit dollar) in this year's dollars with the R-CPI-U-RS, the index the Census Bureau uses for ACS income comparisons; the MOE is scaled by the same factor. A 1-year estimate is in its vintage's dollars, a 5-year estimate in its last year's. Each cell says how it was adjusted (`dollars`); other units are left as published. A year outside the index's annual averages (1978–2024) is a 422.",
    ),
};

export const cellDollarsSchema = z
  .discriminatedUnion('adjusted', [
    z.object({
      adjusted: z.literal(true),
      factor: z.number().describe('target_index / source_index: the estimate and MOE were multiplied by it.'),
      source_year: z.number().int().describe('The year whose dollars the published value is in (the vintage, for acs1 and acs5).'),
      target_year: z.number().int(),
      source_index: z.number().describe('R-CPI-U-RS annual average of source_year.'),
      target_index: z.number().describe('R-CPI-U-RS annual average of target_year.'),
      index: z.string().describe('The price index used, e.g. "R-CPI-U-RS, All items".'),
    }),
    z.object({
      adjusted: z.literal(false),
      reason: z
        .enum(['not_dollars', 'unit_unknown', 'not_in_index'])
        .describe(
          'not_dollars: a count, percent or year, left as is; unit_unknown: a census code whose table title does not settle its unit, left as is; not_in_index: no index value for the source year.',
        ),
    }),
  ])
  .describe('With dollars=YYYY only: how this cell was restated, or why it was left as published.');

export type CellDollars = z.infer<typeof cellDollarsSchema>;

export interface DollarsRequest {
  index: PriceIndex;
  target: number;
  toJSON(): number;
}

/** The request's dollars= checked against the index file; null when not asked for. */
export function dollarsRequest(year: number | undefined, load = loadPriceIndex): DollarsRequest | null {
  if (year === undefined) return null;
  const { index } = load();
  if (!index) {
    throw new AppError(
      'dependency-unavailable',
      'Constant dollars (dollars=) are unavailable on this deployment: its price index file (R-CPI-U-RS, catalog/cpi-u-rs.csv) is missing or unreadable. Ask without dollars= for values in published dollars.',
    );
  }
  const target = checkTargetYear(index, year);
  // In a cache key (answer-key.ts) the request is its target year: the index is the deployment's.
  return { index, target, toJSON: () => target };
}

/** format=compact shares per-variable fields only, with no place for each cell's adjustment. */
export function refuseCompactDollars(): never {
  throw new AppError(
    'unprocessable-request',
    'dollars= is not available with format=compact; ask for the long format (format=json) or CSV, where each cell says how it was adjusted.',
    { errors: [{ field: 'dollars', message: 'not with format=compact', type: 'value_error' }] },
  );
}

/** One cell restated (a new object: cells may be shared with a cache). */
export function adjustCell<C extends ObservationCell>(c: C, req: DollarsRequest): C & { dollars: CellDollars } {
  if (c.unit !== 'dollar') {
    return { ...c, dollars: { adjusted: false, reason: c.unit === null ? 'unit_unknown' : 'not_dollars' } };
  }
  const f = dollarFactor(req.index, dollarYearOf(c.vintage), req.target);
  if (!f) return { ...c, dollars: { adjusted: false, reason: 'not_in_index' } };
  return {
    ...c,
    estimate: c.estimate === null ? null : c.estimate * f.factor,
    moe_numeric: c.moe_numeric === null ? null : c.moe_numeric * f.factor,
    dollars: { adjusted: true, ...f, index: req.index.series },
  };
}

/** meta.dollars: which index, which release, where it came from. */
export function dollarsMeta(req: DollarsRequest) {
  const i = req.index;
  return {
    target_year: req.target,
    index: i.series,
    title: i.title,
    publisher: i.publisher,
    base: i.base,
    release: i.release,
    years: { first: i.first, last: i.last },
    source_url: i.source_url,
    transcribed_from: i.transcribed_from,
    method:
      'estimate × (index[target_year] / index[source_year]), MOE × the same factor; source_year is the vintage (a 5-year estimate is in its last year’s dollars).',
  };
}
