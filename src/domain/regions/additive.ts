// Which published estimates may be summed over the members of a region. Detailed Tables tabulate
// people, households or housing units into cells (counts), which add up; aggregates ("Aggregate
// household income") add up too. Medians, means, per-capita figures, ratios, rates, percentages
// and indexes do not: a sum of medians is not a median. Decided from the table title, the one
// description every vintage carries; a code whose title is unknown is not summed.
const ADDITIVE_SUMMARY = /^aggregate\b/i;
const NOT_ADDITIVE =
  /^(median|mean|average|per capita|gini)\b|\b(ratio|percent|percentage|index|rate|quintile|imputation|allocation of)\b/i;

export type Additivity = { additive: true } | { additive: false; why: string };

export function additivityOf(tableTitle: string | null): Additivity {
  if (!tableTitle) return { additive: false, why: 'its table title is unknown, so whether it may be summed is not known' };
  const t = tableTitle.trim();
  if (ADDITIVE_SUMMARY.test(t)) return { additive: true };
  const m = NOT_ADDITIVE.exec(t);
  if (m) return { additive: false, why: `it is a ${m[0].toLowerCase()} ("${t}"), which members' values cannot be summed into` };
  return { additive: true };
}

/** Medians: the table whose distribution estimates them, for the bracket interpolation (median.ts). */
export const isMedianTitle = (tableTitle: string | null): boolean => /^median\b/i.test(tableTitle?.trim() ?? '');
