// Change over time between two ACS estimates of the same thing, and whether it is statistically
// significant, by the Census Bureau's published methods:
//   - "Understanding and Using American Community Survey Data: What All Data Users Need to Know"
//     (2020), ch. 7 "Comparing ACS Data" and ch. 8 "Calculating Measures of Error for Derived
//     Estimates" (the same formulas as the ACS General Handbook 2018, ch. 7–8 and its appendix);
//   - the ACS "Accuracy of the Data" documents (statistical testing, 90% confidence, Z = 1.645).
// All MOEs are published 90% margins of error.
import { datasetSpec, type DatasetKey } from './datasets.js';
import { moeRatio, standardError, type Estimate } from './moe.js';

/** The Bureau's critical value for a test at the 90% confidence level. */
export const Z90 = 1.645;

export interface Change {
  /** later − base. */
  difference: number;
  /** MOE of the difference: √(MOE₁² + MOE₂²) (handbook ch. 8, sums and differences). */
  difference_moe: number;
  /** 100 × (later − base) / base; null when the base is 0. */
  percent_change: number | null;
  /**
   * MOE of the percent change: 100 × the ratio MOE of later/base, √(MOE_later² + R²·MOE_base²)/base
   * with R = later/base (handbook ch. 8: a percent change is a ratio minus one, and the constant
   * does not change the MOE). Null when the base is 0.
   */
  percent_change_moe: number | null;
  /** The test statistic |Z| = |difference| / SE(difference), SE = MOE / 1.645. Null when SE is 0. */
  z: number | null;
  /** |Z| > 1.645, i.e. |difference| > MOE of the difference: significant at 90%. */
  significant: boolean;
}

/**
 * The change from `base` to `later` and its test (handbook ch. 7, "Statistical testing"):
 * Z = (X_later − X_base) / √(SE_later² + SE_base²); the difference is significant at 90% when
 * |Z| > 1.645. With SE = MOE/1.645 that is |difference| > √(MOE_later² + MOE_base²). The test
 * treats the two estimates as independent, which holds for non-overlapping ACS periods only: a
 * caller decides first whether the pair may be tested at all (see overlapReason).
 */
export function changeBetween(base: Estimate, later: Estimate): Change {
  const difference = later.estimate - base.estimate;
  const difference_moe = Math.sqrt(base.moe * base.moe + later.moe * later.moe);
  const se = standardError(difference_moe);
  const z = se === 0 ? null : Math.abs(difference) / se;
  const hasBase = base.estimate !== 0;
  return {
    difference,
    difference_moe,
    percent_change: hasBase ? (100 * difference) / base.estimate : null,
    percent_change_moe: hasBase ? 100 * moeRatio(later, base) : null,
    z,
    significant: Math.abs(difference) > difference_moe,
  };
}

/** Why no verdict was given: a stable code and a sentence. */
export interface NotTested {
  code: string;
  detail: string;
}

/**
 * Why two ACS estimates may not be tested against each other for overlapping periods, or null.
 * Two 5-year estimates whose periods share years (2014–2018 and 2016–2020) share sample: they are
 * not independent and the Bureau advises against testing them (handbook 2020, ch. 7 "Comparing
 * ACS Data": compare non-overlapping periods). 1-year estimates never overlap.
 */
export function overlapReason(dataset: DatasetKey, baseVintage: number, vintage: number): NotTested | null {
  const p = datasetSpec(dataset).periodYears;
  if (p === 1 || baseVintage === vintage) return null;
  const gap = Math.abs(vintage - baseVintage);
  if (gap >= p) return null;
  const [a, b] = baseVintage < vintage ? [baseVintage, vintage] : [vintage, baseVintage];
  const shared = p - gap;
  return {
    code: 'overlapping_periods',
    detail: `The ${p}-year periods ${a - p + 1}–${a} and ${b - p + 1}–${b} share ${shared} year${shared === 1 ? '' : 's'} of sample, so they are not independent and the Bureau advises against testing them; compare periods that do not overlap (e.g. ${b - 2 * p + 1}–${b - p} with ${b - p + 1}–${b}).`,
  };
}

/**
 * Why a margin of error gives no test, said as what is true of it (the annotation code of the MOE,
 * or null for a MOE that is simply absent). A controlled estimate has no sampling error; every
 * other case has sampling error of a size the answer does not know or the Bureau qualified.
 */
export function untestedMoeDetail(code: string | null): string {
  switch (code) {
    case 'controlled':
      return 'the estimate is controlled, so it has no sampling error to test with';
    case 'moe_design_factor_unavailable':
      return 'the estimate has sampling error, but its margin of error is unknown here (a region median needs a design factor this deployment does not hold), so no test can be made';
    case 'source_annotated':
      return 'the Bureau published this margin of error marked `*`, qualifying it; a test would treat it as exact, so none is made';
    case 'moe_not_computable':
      return 'the Bureau could not compute the margin of error, so the sampling error is unknown and no test can be made';
    case 'moe_open_ended':
      return 'the median lies in an open-ended interval, where the Bureau gives no margin of error, so no test can be made';
    default:
      return 'the margin of error is unknown, so the sampling error is unknown and no test can be made';
  }
}

/** A caveat on a change that is still tested: a stable code, a sentence and the Bureau's page it rests on. */
export interface ChangeCaveat {
  code: string;
  detail: string;
  source: string;
}

/** The first ACS year whose sample included people in group quarters. */
export const FIRST_GQ_VINTAGE = 2006;

/**
 * The 2005 ACS sampled housing units only: group quarters (college dormitories, nursing homes,
 * prisons, military barracks) entered the sample in 2006, when many tables' universe grew from the
 * household population to the total population. A 1-year comparison across that line compares
 * different populations wherever the universe includes people in group quarters; the Bureau's
 * guidance asks for caution. (The Census Bureau, "2006 American Community Survey Data Products Now
 * Include the Group Quarters Population", census.gov/acs/www/UseData/2006GQ.html; "Group
 * Quarters/Residence Rules", census.gov/topics/income-poverty/guidance/group-quarters.html.)
 */
export function groupQuartersCaveat(dataset: DatasetKey, baseVintage: number, vintage: number): ChangeCaveat | null {
  const p = datasetSpec(dataset).periodYears;
  // The first year of each period: a 1-year period before 2006 lacks group quarters.
  const before = (v: number) => v - p + 1 < FIRST_GQ_VINTAGE;
  if (p !== 1 || before(baseVintage) === before(vintage)) return null;
  const [a, b] = baseVintage < vintage ? [baseVintage, vintage] : [vintage, baseVintage];
  return {
    code: 'group_quarters_2005',
    detail: `The ${a} ACS covered only the household population; people in group quarters (college dormitories, nursing homes, prisons, military barracks) were added in ${FIRST_GQ_VINTAGE}, so ${b} counts a population ${a} did not. Where the universe includes people in group quarters (total population, people by age, school enrollment, …) the change mixes that addition with real change; the Census Bureau advises caution comparing ${a} with later years. Household and housing-unit universes are unaffected.`,
    source: 'https://www.census.gov/topics/income-poverty/guidance/group-quarters.html',
  };
}
