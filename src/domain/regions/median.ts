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

/** One interval of a distribution: its bounds and the codes whose sum is its count (B01001 splits ages by sex). */
export interface MedianInterval extends Interval {
  codes: readonly string[];
}

/** A published median and the distribution the Bureau tabulates beside it, as its table shell is in a vintage. */
export interface MedianDistribution {
  median: string;
  intervalsIn(vintage: number): readonly MedianInterval[];
}

const code = (table: string, line: number) => `${table}_${String(line).padStart(3, '0')}E`;

/**
 * Intervals from their lower bounds: interval i runs from bounds[i] to bounds[i + 1]; the last is
 * open above. `openBelow`: the first interval has no lower bound ("Less than $10,000").
 */
function intervals(bounds: readonly number[], openBelow: boolean, codesOf: (i: number) => string[]): MedianInterval[] {
  return bounds.map((lower, i) => ({
    lower: i === 0 && openBelow ? null : lower,
    upper: bounds[i + 1] ?? null,
    codes: codesOf(i),
  }));
}

// B19013 (median household income) from B19001 (household income in 16 intervals, the same in
// every vintage). "Less than $10,000" is open below (incomes can be zero or negative); "$200,000 or
// more" above.
const HOUSEHOLD_INCOME = intervals(
  [0, 10_000, 15_000, 20_000, 25_000, 30_000, 35_000, 40_000, 45_000, 50_000, 60_000, 75_000, 100_000, 125_000, 150_000, 200_000],
  true,
  (i) => [code('B19001', i + 2)],
);

// B01002 (median age) from B01001 (sex by age: 23 age intervals for males, lines 3–25, and the same
// for females, lines 27–49; an interval's count is the sum of both). Ages start at 0; "85 years and
// over" is open above.
const AGE = intervals([0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55, 60, 62, 65, 67, 70, 75, 80, 85], false, (i) => [
  code('B01001', i + 3),
  code('B01001', i + 27),
]);

// B25077 (median value, owner-occupied units) from B25075 (value). The table shell gained three
// intervals above $1,000,000 in 2015: "$1,000,000 or more" until 2014, then "$1,000,000 to
// $1,499,999", "$1,500,000 to $1,999,999" and "$2,000,000 or more".
const VALUE_BOUNDS = [
  0, 10_000, 15_000, 20_000, 25_000, 30_000, 35_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000, 125_000, 150_000, 175_000,
  200_000, 250_000, 300_000, 400_000, 500_000, 750_000, 1_000_000,
];
const HOME_VALUE_TO_2014 = intervals(VALUE_BOUNDS, true, (i) => [code('B25075', i + 2)]);
const HOME_VALUE_FROM_2015 = intervals([...VALUE_BOUNDS, 1_500_000, 2_000_000], true, (i) => [code('B25075', i + 2)]);

// B25064 (median gross rent, renter-occupied units paying cash rent) from B25063 (gross rent, the
// "With cash rent" intervals, lines 3 on; "No cash rent" is outside the median's universe). Until
// 2014 the top interval is "$2,000 or more"; from 2015 it runs on to "$3,500 or more".
const RENT_BOUNDS = [0, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 750, 800, 900, 1_000, 1_250, 1_500, 2_000];
const GROSS_RENT_TO_2014 = intervals(RENT_BOUNDS, true, (i) => [code('B25063', i + 3)]);
const GROSS_RENT_FROM_2015 = intervals([...RENT_BOUNDS, 2_500, 3_000, 3_500], true, (i) => [code('B25063', i + 3)]);

/** The first vintage whose table shells have the wider value and rent intervals. */
const WIDER_SHELLS = 2015;

export const MEDIAN_DISTRIBUTIONS: ReadonlyMap<string, MedianDistribution> = new Map(
  [
    { median: 'B19013_001E', intervalsIn: () => HOUSEHOLD_INCOME },
    { median: 'B01002_001E', intervalsIn: () => AGE },
    { median: 'B25077_001E', intervalsIn: (y: number) => (y >= WIDER_SHELLS ? HOME_VALUE_FROM_2015 : HOME_VALUE_TO_2014) },
    { median: 'B25064_001E', intervalsIn: (y: number) => (y >= WIDER_SHELLS ? GROSS_RENT_FROM_2015 : GROSS_RENT_TO_2014) },
  ].map((d) => [d.median, d]),
);
