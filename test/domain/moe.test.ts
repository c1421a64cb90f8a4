import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coefficientOfVariation, moeProduct, moeProportion, moeRatio, moeSum, standardError } from '../../src/domain/moe.js';

describe('handbook worked examples', () => {
  // ACS General Handbook 2018, ch. 8, "Calculating MOEs for Derived Proportions" (p. 64):
  // X̂ = never-married females 203,119 (MOE 5,070), Ŷ = all females 630,498 (MOE 831).
  // The handbook gives p̂ = 0.322 and MOE(p̂) = ±0.008 (0.0080), i.e. 32.2% ± 0.8 points.
  it('reproduces the derived-proportion example', () => {
    const x = { estimate: 203_119, moe: 5_070 };
    const y = { estimate: 630_498, moe: 831 };
    const r = moeProportion(x, y);
    expect((x.estimate / y.estimate).toFixed(3)).toBe('0.322');
    expect(r.usedRatioFallback).toBe(false);
    expect(r.moe.toFixed(4)).toBe('0.0080');
  });

  it('sum of MOEs is the root of the squares (handbook step list: square, sum, root)', () => {
    expect(
      moeSum([
        { estimate: 10, moe: 3 },
        { estimate: 20, moe: 4 },
      ]),
    ).toBe(5);
  });

  it('uses only the largest MOE among zero estimates in a sum', () => {
    const parts = [
      { estimate: 0, moe: 25 },
      { estimate: 0, moe: 31 },
      { estimate: 36, moe: 56 },
    ];
    expect(moeSum(parts)).toBeCloseTo(Math.sqrt(56 ** 2 + 31 ** 2), 10);
    expect(
      moeSum([
        { estimate: 0, moe: 27 },
        { estimate: 0, moe: 19 },
      ]),
    ).toBe(27);
  });
});

describe('formulas', () => {
  it('ratio uses a plus sign', () => {
    const x = { estimate: 50, moe: 6 };
    const y = { estimate: 100, moe: 8 };
    expect(moeRatio(x, y)).toBeCloseTo(Math.sqrt(36 + 0.25 * 64) / 100, 12);
  });

  it('proportion falls back to the ratio formula when the radicand is negative', () => {
    // p = 0.9, MOE_X² = 1 < p²·MOE_Y² = 0.81·100: radicand negative.
    const x = { estimate: 90, moe: 1 };
    const y = { estimate: 100, moe: 10 };
    const r = moeProportion(x, y);
    expect(r.usedRatioFallback).toBe(true);
    expect(r.moe).toBeCloseTo(moeRatio(x, y), 12);
  });

  it('product', () => {
    expect(moeProduct({ estimate: 3, moe: 1 }, { estimate: 4, moe: 2 })).toBeCloseTo(Math.sqrt(9 * 4 + 16 * 1), 12);
  });

  it('SE and CV from a 90% MOE', () => {
    expect(standardError(1.645)).toBeCloseTo(1, 12);
    expect(coefficientOfVariation({ estimate: 100, moe: 16.45 })).toBeCloseTo(10, 10);
    expect(coefficientOfVariation({ estimate: 0, moe: 5 })).toBeNull();
  });
});

// ACS counts and their MOEs are published as whole numbers; medians/ratios with one decimal.
const est = fc.record({
  estimate: fc.oneof(
    fc.integer({ min: 0, max: 40_000_000 }),
    fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10),
  ),
  moe: fc.oneof(
    fc.integer({ min: 0, max: 2_000_000 }),
    fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10),
  ),
});

describe('properties', () => {
  it('sum MOE is at least the largest component MOE and at most the plain sum of MOEs', () => {
    fc.assert(
      fc.property(fc.array(est, { minLength: 1, maxLength: 12 }), (parts) => {
        const m = moeSum(parts);
        const max = Math.max(...parts.map((p) => p.moe));
        const total = parts.reduce((s, p) => s + p.moe, 0);
        return m >= max * (1 - 1e-12) && m <= total * (1 + 1e-12) + 1e-9;
      }),
    );
  });

  it('proportion falls back to the ratio formula exactly when the radicand is negative', () => {
    fc.assert(
      fc.property(
        est,
        est.filter((y) => y.estimate > 0),
        (x, y) => {
          const p = x.estimate / y.estimate;
          const negative = x.moe ** 2 - p * p * y.moe ** 2 < 0;
          const r = moeProportion(x, y);
          if (r.usedRatioFallback !== negative) return false;
          return negative ? r.moe === moeRatio(x, y) : r.moe <= moeRatio(x, y) * (1 + 1e-12);
        },
      ),
    );
  });

  it('ratio MOE is symmetric in the sign convention and scales with 1/Y', () => {
    fc.assert(
      fc.property(
        est,
        est.filter((y) => y.estimate > 1),
        fc.double({ min: 1, max: 1000, noNaN: true }),
        (x, y, k) => {
          // Scaling both X and Y (and their MOEs) by k leaves the ratio and its MOE unchanged.
          const a = moeRatio(x, y);
          const b = moeRatio({ estimate: x.estimate * k, moe: x.moe * k }, { estimate: y.estimate * k, moe: y.moe * k });
          return Math.abs(a - b) <= 1e-9 * Math.max(1, a);
        },
      ),
    );
  });
});
