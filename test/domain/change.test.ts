// Change over time and its 90% test (src/domain/change.ts): the handbook's formulas, their
// properties, and the overlap rule for 5-year periods.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Z90, changeBetween, overlapReason } from '../../src/domain/change.js';

const estimate = fc.double({ min: -1e7, max: 1e7, noNaN: true });
const positive = fc.double({ min: 1, max: 1e7, noNaN: true });
// Published MOEs are 0 or at least a unit of a rounded figure: no subnormal doubles, whose squares underflow.
const moe = fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 1e6, noNaN: true }));
const est = fc.record({ estimate, moe });

describe('changeBetween: the formulas', () => {
  // "Understanding and Using ACS Data" (2020) ch. 8: MOE of a difference √(MOE₁² + MOE₂²);
  // ch. 7: Z = difference / √(SE₁² + SE₂²), SE = MOE / 1.645, significant at 90% when |Z| > 1.645.
  it('computes difference, its MOE, Z and the verdict step by step as the handbook lists them', () => {
    const base = { estimate: 50_000, moe: 1_200 };
    const later = { estimate: 52_500, moe: 1_600 };
    const c = changeBetween(base, later);
    expect(c.difference).toBe(2_500);
    expect(c.difference_moe).toBe(2_000); // √(1200² + 1600²)
    const se = (m: number) => m / 1.645;
    expect(c.z).toBeCloseTo(2_500 / Math.sqrt(se(1_200) ** 2 + se(1_600) ** 2), 12);
    expect(c.z).toBeCloseTo(2.0562, 4);
    expect(c.significant).toBe(true);
    expect(c.percent_change).toBe(5);
    // Ratio MOE of later/base: √(1600² + 1.05²·1200²) / 50000, ×100.
    expect(c.percent_change_moe).toBeCloseTo((100 * Math.sqrt(1_600 ** 2 + 1.05 ** 2 * 1_200 ** 2)) / 50_000, 12);
  });

  // A cross-check against an independent implementation of the same handbook formula (ch. 8, 2018):
  // datadesk/census-data-aggregator's approximate_percentchange, whose documented example starts
  // from the handbook's Table 8.1 figure for Fairfax County (135,173 ± 3,860) and returns
  // 3.0538643072211165 ± 4.198069852261231 (percent).
  it('agrees with census-data-aggregator’s documented percent-change example', () => {
    const c = changeBetween({ estimate: 135_173, moe: 3_860 }, { estimate: 139_301, moe: 4_047 });
    expect(c.percent_change).toBeCloseTo(3.0538643072211165, 12);
    expect(c.percent_change_moe).toBeCloseTo(4.198069852261231, 12);
    expect(c.significant).toBe(false); // 4,128 < √(3860² + 4047²) = 5,593
  });

  it('a difference equal to its MOE is not significant (the test is strict)', () => {
    expect(changeBetween({ estimate: 100, moe: 3 }, { estimate: 105, moe: 4 }).significant).toBe(false);
  });

  it('no percent change from a zero base', () => {
    const c = changeBetween({ estimate: 0, moe: 10 }, { estimate: 50, moe: 12 });
    expect(c.percent_change).toBeNull();
    expect(c.percent_change_moe).toBeNull();
    expect(c.significant).toBe(true);
  });
});

describe('changeBetween: properties', () => {
  it("a difference's MOE is never smaller than either input's MOE, nor larger than their sum", () => {
    fc.assert(
      fc.property(est, est, (a, b) => {
        const m = changeBetween(a, b).difference_moe;
        expect(m).toBeGreaterThanOrEqual(Math.max(a.moe, b.moe) * (1 - 1e-12));
        expect(m).toBeLessThanOrEqual((a.moe + b.moe) * (1 + 1e-12));
      }),
    );
  });

  it('significant ⇔ |Z| > 1.645 whenever there is sampling error', () => {
    fc.assert(
      fc.property(est, est, (a, b) => {
        const c = changeBetween(a, b);
        fc.pre(c.z !== null && Math.abs(c.z - Z90) > 1e-9);
        expect(c.significant).toBe(c.z! > Z90);
      }),
    );
  });

  it('is symmetric: swapping the years negates the difference and keeps its MOE and verdict', () => {
    fc.assert(
      fc.property(est, est, (a, b) => {
        const ab = changeBetween(a, b);
        const ba = changeBetween(b, a);
        // `+ 0` folds -0 into 0: equal estimates give a difference of 0 both ways.
        expect(ba.difference + 0).toBe(-ab.difference + 0);
        expect(ba.difference_moe).toBe(ab.difference_moe);
        expect(ba.significant).toBe(ab.significant);
      }),
    );
  });

  it('a percent change MOE is never negative', () => {
    fc.assert(
      fc.property(fc.record({ estimate: positive, moe }), est, (a, b) => {
        expect(changeBetween(a, b).percent_change_moe!).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  // Constant dollars multiply both estimates of one year by one factor; restating both years into
  // the same target year multiplies the pair by a common factor c: the verdict and the percent
  // change must not depend on the target year chosen.
  it('restating both years into any common target year changes neither the verdict nor the percent change', () => {
    fc.assert(
      fc.property(fc.record({ estimate: positive, moe }), est, fc.double({ min: 0.1, max: 10, noNaN: true }), (a, b, c) => {
        const plain = changeBetween(a, b);
        const scaled = changeBetween({ estimate: a.estimate * c, moe: a.moe * c }, { estimate: b.estimate * c, moe: b.moe * c });
        expect(scaled.significant).toBe(plain.significant);
        expect(scaled.percent_change!).toBeCloseTo(plain.percent_change!, 6);
        expect(scaled.difference_moe).toBeCloseTo(plain.difference_moe * c, 3);
      }),
    );
  });
});

describe('overlapReason', () => {
  it('flags acs5 periods that share years and names them', () => {
    const r = overlapReason('acs5', 2018, 2020)!;
    expect(r.code).toBe('overlapping_periods');
    expect(r.detail).toContain('2014–2018 and 2016–2020 share 3 years');
  });

  it('lets non-overlapping acs5 periods and every acs1 pair be tested', () => {
    expect(overlapReason('acs5', 2014, 2019)).toBeNull();
    expect(overlapReason('acs1', 2018, 2019)).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 2009, max: 2024 }), fc.integer({ min: 2009, max: 2024 }), (a, b) => {
        const r = overlapReason('acs5', a, b);
        expect(r !== null).toBe(a !== b && Math.abs(a - b) < 5);
      }),
    );
  });
});
