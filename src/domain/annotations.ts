// How the Census Bureau's special values become null plus a structured annotation.
// The Bureau encodes "no number here" as jam values in the estimate (E) / margin of error (M)
// columns and as symbols in the annotation (EA / MA) columns. We never serve a jam value as a
// number: the cell becomes null and carries one of these codes. Top- and bottom-coded medians are
// real published figures (the code is the interval bound), so they keep their number and are
// annotated. See docs/annotations.md for the user-facing table.

export interface AnnotationInfo {
  code: string;
  /** The symbol data.census.gov shows for it. */
  symbol: string;
  meaning: string;
}

export const ANNOTATIONS = {
  not_computable: {
    symbol: '-',
    meaning:
      'Estimate could not be computed: too few sample observations, or the ratio/median could not be calculated (jam value -666666666).',
  },
  insufficient_sample: {
    symbol: 'N',
    meaning: 'Not displayed: insufficient number of sample cases in this geography (jam value -999999999).',
  },
  not_applicable: {
    symbol: '(X)',
    meaning: 'Not applicable or not available for this geography (jam value -888888888).',
  },
  moe_not_computable: {
    symbol: '**',
    meaning: 'Margin of error could not be computed: too few sample observations (jam value -222222222).',
  },
  moe_open_ended: {
    symbol: '***',
    meaning: 'Median falls in the lowest or highest open-ended interval; a margin of error is not appropriate (jam value -333333333).',
  },
  controlled: {
    symbol: '*****',
    meaning: 'Estimate is controlled to official population estimates: no sampling error, so no margin of error (jam value -555555555).',
  },
  top_coded: {
    symbol: '+',
    meaning:
      'Median is in the open-ended top interval; the number is the interval bound as published (e.g. 250,000+), not a point estimate.',
  },
  bottom_coded: {
    symbol: '-',
    meaning:
      'Median is in the open-ended bottom interval; the number is the interval bound as published (e.g. 2,500-), not a point estimate.',
  },
  source_annotated: {
    symbol: '*',
    meaning: 'The Census Bureau attached an annotation to this published value; the value is served as published.',
  },
  missing_in_source: {
    symbol: '',
    meaning:
      'The value is absent from the source file (the redistributed file replaced the Census special value by NA; the original code is not recoverable).',
  },
  not_in_vintage: {
    symbol: '',
    meaning: "The Census Bureau's variable list for this vintage of the dataset does not include this variable.",
  },
  no_data_loaded: {
    symbol: '',
    meaning:
      'The Census Bureau publishes this figure, but this deployment has not loaded it: values of this table for this dataset, vintage and geography level.',
  },
  not_published: {
    symbol: '',
    meaning:
      'The Census Bureau published no value of this table for this geography in this release (its own API answers null here): not every table is tabulated for every area.',
  },
  below_acs1_threshold: {
    symbol: '',
    meaning:
      'ACS 1-year estimates are published only for areas of 65,000 people or more; use the 5-year dataset (acs5) for this geography.',
  },
  not_in_dataset: {
    symbol: '',
    meaning: 'This dataset is not published for this geography level (ACS 1-year has no tract or block-group estimates); use acs5.',
  },
  geography_not_defined: {
    symbol: '',
    meaning:
      "This geography does not exist in this vintage: the Bureau published no such area under that year's definitions (a metro of another delineation, a county before or after a change, a tract of another census). The value is null rather than another area's.",
  },
  not_comparable: {
    symbol: '',
    meaning:
      'The census code changed meaning (label or universe) in this vintage; the value is withheld rather than joined to a different concept.',
  },
  region_member_missing: {
    symbol: '',
    meaning:
      "A member of the custom region has no value for this variable, so the region's total is not known (meta.regions names the members and their reasons).",
  },
  not_additive: {
    symbol: '',
    meaning:
      "A median, mean, ratio, rate or percentage cannot be summed over a custom region's members, and no distribution to estimate it from is known; the value is null rather than a wrong figure.",
  },
  median_open_interval: {
    symbol: '',
    meaning:
      "The custom region's median falls in the distribution's open-ended lowest or highest interval, so there is no bound to interpolate to; no estimate is given.",
  },
  moe_design_factor_unavailable: {
    symbol: '',
    meaning:
      "The Bureau's MOE for a median estimated from a distribution needs the design factor it publishes per characteristic and state (ACS Accuracy of the Data), which this deployment does not hold; no MOE is given rather than a guess.",
  },
  derived_from_annotated: {
    symbol: '',
    meaning: 'Derived value: at least one component was null or annotated, so the derived figure or its MOE is not available.',
  },
} as const satisfies Record<string, Omit<AnnotationInfo, 'code'>>;

export type AnnotationCode = keyof typeof ANNOTATIONS;

/** One frozen description per known code: answers of tens of thousands of cells share them. */
const DESCRIBED = new Map<string, AnnotationInfo>(
  Object.entries(ANNOTATIONS as Record<string, Omit<AnnotationInfo, 'code'>>).map(([code, entry]) => [
    code,
    Object.freeze({ code, symbol: entry.symbol, meaning: entry.meaning }),
  ]),
);

export function describeAnnotation(code: string | null): AnnotationInfo | null {
  if (code === null) return null;
  return DESCRIBED.get(code) ?? { code, symbol: '', meaning: 'Annotated by the source.' };
}

const ESTIMATE_JAMS: Record<number, AnnotationCode> = {
  [-666666666]: 'not_computable',
  [-999999999]: 'insufficient_sample',
  [-888888888]: 'not_applicable',
  [-222222222]: 'moe_not_computable',
  [-333333333]: 'moe_open_ended',
  [-555555555]: 'controlled',
};

const MOE_JAMS: Record<number, AnnotationCode> = {
  [-555555555]: 'controlled',
  [-222222222]: 'moe_not_computable',
  [-333333333]: 'moe_open_ended',
  [-999999999]: 'insufficient_sample',
  [-888888888]: 'not_applicable',
  [-666666666]: 'not_computable',
};

/** Annotation symbols (EA / MA columns) that name a specific condition. */
const SYMBOLS: Record<string, AnnotationCode> = {
  '*****': 'controlled',
  '***': 'moe_open_ended',
  '**': 'moe_not_computable',
  '-': 'not_computable',
  N: 'insufficient_sample',
  '(X)': 'not_applicable',
};

export interface CleanValue {
  value: number | null;
  annotation: AnnotationCode | null;
}

/**
 * Turn one published E or M string (plus its EA/MA annotation, when the file has one) into a
 * number or null with an annotation. `raw` is the JSON value from the API body (string or null).
 * Returns `undefined` when `raw` is not a number-like string, so the caller can report the file.
 *
 * Jam values are matched numerically: some vintages publish them as `-666666666.0`. A number
 * whose annotation symbol names a no-value condition (`*****`, `***`, `**`, `-`, `N`, `(X)`) is
 * the older years' spelling of that jam value (a `0` beside `*****` in 2005–2009), so it becomes
 * null with the same code. Top/bottom-coded medians and other symbols keep the published number.
 */
export function cleanCell(raw: string | null, annotation: string | null | undefined, kind: 'E' | 'M'): CleanValue | undefined {
  if (raw === null || raw.trim() === '') {
    return { value: null, annotation: 'missing_in_source' };
  }
  const n = Number(raw);
  if (!Number.isFinite(n)) return undefined;
  const jam = (kind === 'E' ? ESTIMATE_JAMS : MOE_JAMS)[n];
  if (jam) return { value: null, annotation: jam };
  // Any other large negative sentinel is treated as a jam value rather than leaked as a number.
  if (n <= -100_000_000) return { value: null, annotation: kind === 'E' ? 'not_computable' : 'moe_not_computable' };
  const ann = annotation?.trim();
  if (!ann) return { value: n, annotation: null };
  // A symbol that says "there is no such number" wins over the number beside it: 2005–2009 files
  // publish a controlled or not-computable MOE as 0 with `*****`/`***`/`**`, where later years
  // publish the jam value. One fact, one form: null with the symbol's code, whatever the year.
  const named = SYMBOLS[ann];
  if (named) return { value: null, annotation: named };
  if (ann.endsWith('+')) return { value: n, annotation: 'top_coded' };
  if (ann.endsWith('-')) return { value: n, annotation: 'bottom_coded' };
  return { value: n, annotation: 'source_annotated' };
}
