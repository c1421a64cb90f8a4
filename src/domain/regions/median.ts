// A median estimated from a frequency distribution by linear interpolation within the interval
// that holds the 50th percentile, as the Census Bureau documents it (American Community Survey
// "Accuracy of the Data" and PUMS Accuracy documents, section on the standard error of a median;
// "Understanding and Using ACS Data: What State and Local Government Users Need to Know", 2020,
// case study 1):
//   median = A1 + (50 − C1) / (C2 − C1) × (A2 − A1)
// where A1 is the lower bound of the interval holding the 50th percentile, A2 the lower bound of the
// next interval, and C1, C2 the cumulative percentages of the distribution below A1 and A2.
// Its MOE, by the same documents, is found from SE(50%) = DF × √(95 / (5·B) × 50²), which needs the
// design factor DF the Bureau publishes per characteristic and state; this deployment does not
// hold the design factors, so no MOE is given.

export interface Interval {
  /** Inclusive lower bound; null for an interval open below ("less than $10,000"). */
  lower: number | null;
  /** The next interval's lower bound; null for the interval open above ("$200,000 or more"). */
  upper: number | null;
}

export type MedianResult =
  | { estimate: number; interval: number }
  /** The 50th percentile falls in an open-ended interval (no bound to interpolate to), or the distribution is empty. */
  | { estimate: null; why: 'open_ended' | 'empty' };

export function interpolateMedian(intervals: readonly Interval[], counts: readonly number[]): MedianResult {
  const total = counts.reduce((s, c) => s + c, 0);
  if (!(total > 0)) return { estimate: null, why: 'empty' };
  let below = 0;
  for (let i = 0; i < intervals.length; i++) {
    const c1 = (below / total) * 100;
    const c2 = ((below + counts[i]!) / total) * 100;
    if (c2 >= 50 && counts[i]! > 0) {
      const { lower, upper } = intervals[i]!;
      if (lower === null || upper === null) return { estimate: null, why: 'open_ended' };
      return { estimate: lower + ((50 - c1) / (c2 - c1)) * (upper - lower), interval: i };
    }
    below += counts[i]!;
  }
  return { estimate: null, why: 'empty' };
}

/** A published median and the distribution the Bureau tabulates beside it. */
export interface MedianDistribution {
  median: string;
  codes: readonly string[];
  intervals: readonly Interval[];
}

const incomeBounds = [
  10_000, 15_000, 20_000, 25_000, 30_000, 35_000, 40_000, 45_000, 50_000, 60_000, 75_000, 100_000, 125_000, 150_000, 200_000,
];

/** B19013 (median household income) from B19001 (household income in 16 intervals, the same in every vintage). */
const HOUSEHOLD_INCOME: MedianDistribution = {
  median: 'B19013_001E',
  codes: Array.from({ length: 16 }, (_, i) => `B19001_${String(i + 2).padStart(3, '0')}E`),
  // "Less than $10,000" is open below (incomes can be zero or negative); "$200,000 or more" above.
  intervals: [null, ...incomeBounds].map((lower, i) => ({ lower, upper: incomeBounds[i] ?? null })),
};

export const MEDIAN_DISTRIBUTIONS: ReadonlyMap<string, MedianDistribution> = new Map([[HOUSEHOLD_INCOME.median, HOUSEHOLD_INCOME]]);
