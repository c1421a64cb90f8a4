import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interpolateMedian, MEDIAN_DISTRIBUTIONS, type Interval } from '../../../src/domain/regions/median.js';

const steps: Interval[] = [
  { lower: null, upper: 10 },
  { lower: 10, upper: 20 },
  { lower: 20, upper: 30 },
  { lower: 30, upper: null },
];

describe('interpolateMedian (ACS Accuracy of the Data: A1 + (50 − C1)/(C2 − C1) × (A2 − A1))', () => {
  it('interpolates within the interval that holds the 50th percentile', () => {
    // C1 = 40% below 20, C2 = 80% below 30: 20 + (50 − 40)/(80 − 40) × 10 = 22.5.
    expect(interpolateMedian(steps, [10, 30, 40, 20])).toEqual({ estimate: 22.5, interval: 2 });
    // Exactly half below an interval's upper bound: the bound itself.
    expect(interpolateMedian(steps, [10, 40, 30, 20])).toEqual({ estimate: 20, interval: 1 });
  });

  it('gives no estimate in an open-ended interval or for an empty distribution', () => {
    expect(interpolateMedian(steps, [60, 10, 10, 20])).toEqual({ estimate: null, why: 'open_ended' });
    expect(interpolateMedian(steps, [10, 10, 10, 70])).toEqual({ estimate: null, why: 'open_ended' });
    expect(interpolateMedian(steps, [0, 0, 0, 0])).toEqual({ estimate: null, why: 'empty' });
  });

  it('always lands inside the interval it names (property)', () => {
    const d = MEDIAN_DISTRIBUTIONS.get('B19013_001E')!;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 16, maxLength: 16 }), (counts) => {
        const r = interpolateMedian(d.intervals, counts);
        if (r.estimate === null) return;
        const { lower, upper } = d.intervals[r.interval]!;
        expect(r.estimate).toBeGreaterThanOrEqual(lower!);
        expect(r.estimate).toBeLessThanOrEqual(upper!);
      }),
      { numRuns: 500 },
    );
  });

  it('knows B19013 from the 16 household-income intervals of B19001', () => {
    const d = MEDIAN_DISTRIBUTIONS.get('B19013_001E')!;
    expect(d.codes).toEqual(Array.from({ length: 16 }, (_, i) => `B19001_${String(i + 2).padStart(3, '0')}E`));
    expect(d.intervals[0]).toEqual({ lower: null, upper: 10_000 });
    expect(d.intervals[11]).toEqual({ lower: 75_000, upper: 100_000 });
    expect(d.intervals[15]).toEqual({ lower: 200_000, upper: null });
  });
});
