// Margins of error for derived estimates, by the Census Bureau's approximation formulas
// (ACS General Handbook 2018, ch. 8 "Calculating Measures of Error for Derived Estimates";
// repeated in "Understanding and Using ACS Data: What All Data Users Need to Know", 2020, ch. 8).
// All MOEs are at the published 90% confidence level; no function here rescales them.
// The formulas treat the components as independent, which they are not (they come from one
// sample), so every result is an approximation: see docs/moe.md for the limits.

export interface Estimate {
  estimate: number;
  moe: number;
}

/**
 * MOE of a sum or difference: √ΣMOE².
 * Zero estimates: the handbook (2018, ch. 8) says that when several component estimates are 0,
 * only the largest MOE among those zero estimates enters the sum, because published MOEs of zero
 * estimates are model-based and adding them all would overstate the error.
 */
export function moeSum(parts: readonly Estimate[]): number {
  let squares = 0;
  let largestZeroMoe = 0;
  for (const p of parts) {
    if (p.estimate === 0) largestZeroMoe = Math.max(largestZeroMoe, Math.abs(p.moe));
    else squares += p.moe * p.moe;
  }
  return Math.sqrt(squares + largestZeroMoe * largestZeroMoe);
}

/** MOE of a ratio R = X/Y where X is not a subset of Y: √(MOE_X² + R²·MOE_Y²)/Y. */
export function moeRatio(x: Estimate, y: Estimate): number {
  const r = x.estimate / y.estimate;
  return Math.sqrt(x.moe * x.moe + r * r * y.moe * y.moe) / Math.abs(y.estimate);
}

export interface ProportionMoe {
  moe: number;
  /** True when the proportion radicand was negative and the ratio formula was used instead. */
  usedRatioFallback: boolean;
}

/**
 * MOE of a proportion p = X/Y where X is a subset of Y: √(MOE_X² − p²·MOE_Y²)/Y.
 * When the radicand is negative the handbook says to use the ratio formula (plus sign) instead.
 */
export function moeProportion(x: Estimate, y: Estimate): ProportionMoe {
  const p = x.estimate / y.estimate;
  const radicand = x.moe * x.moe - p * p * y.moe * y.moe;
  if (radicand < 0) return { moe: moeRatio(x, y), usedRatioFallback: true };
  return { moe: Math.sqrt(radicand) / Math.abs(y.estimate), usedRatioFallback: false };
}

/** MOE of a product A·B: √(A²·MOE_B² + B²·MOE_A²). */
export function moeProduct(a: Estimate, b: Estimate): number {
  return Math.sqrt(a.estimate * a.estimate * b.moe * b.moe + b.estimate * b.estimate * a.moe * a.moe);
}

/** Standard error from a 90% MOE (the ACS publishes MOEs with z = 1.645). */
export function standardError(moe: number): number {
  return moe / 1.645;
}

/** Coefficient of variation in percent: SE / estimate × 100 (null when the estimate is 0). */
export function coefficientOfVariation(e: Estimate): number | null {
  if (e.estimate === 0) return null;
  return (standardError(e.moe) / Math.abs(e.estimate)) * 100;
}
