import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costOf } from '../../src/domain/cost.js';

describe('costOf', () => {
  it('a single variable for a single geography costs 1', () => {
    expect(costOf('free', { kind: 'data', variables: 1, geos: [{ kind: 'single' }] })).toBe(1);
    expect(costOf('free', { kind: 'lookup' })).toBe(1);
  });

  it('several geographies or variables cost more than 1', () => {
    expect(costOf('free', { kind: 'data', variables: 3, geos: [{ kind: 'single' }] })).toBe(3);
    expect(costOf('free', { kind: 'compare', variables: 1, geos: [{ kind: 'single' }, { kind: 'single' }] })).toBe(2);
    expect(costOf('free', { kind: 'data', variables: 2, geos: [{ kind: 'single' }, { kind: 'single' }] })).toBe(3);
  });

  it('wildcard cost scales with expansion (10 geographies per unit)', () => {
    expect(costOf('pro', { kind: 'data', variables: 1, geos: [{ kind: 'expansion', count: 58 }] })).toBe(6);
    expect(costOf('pro', { kind: 'data', variables: 1, geos: [{ kind: 'expansion', count: 5000 }] })).toBe(500);
    expect(costOf('pro', { kind: 'data', variables: 1, geos: [{ kind: 'expansion', count: 3 }] })).toBe(1);
  });

  it('timeseries: ×1 per 4 vintages', () => {
    expect(costOf('pioneer', { kind: 'timeseries', variables: 1, geos: [{ kind: 'single' }], vintages: 16 })).toBe(4);
    expect(costOf('pioneer', { kind: 'timeseries', variables: 1, geos: [{ kind: 'single' }], vintages: 4 })).toBe(1);
  });

  it('boundaries and centroids cost 0 for tiers with access', () => {
    expect(costOf('free', { kind: 'boundaries', level: 'state' })).toBe(0);
    expect(costOf('pro', { kind: 'boundaries', level: 'tract' })).toBe(0);
    expect(costOf('pro', { kind: 'centroids', level: 'tract' })).toBe(0);
    expect(costOf('free', { kind: 'boundaries', level: 'tract' })).toBe(1);
    expect(costOf('business', { kind: 'boundaries', level: 'state', resolution: '500k' })).toBe(1);
    expect(costOf('enterprise', { kind: 'boundaries', level: 'block_group', resolution: '500k' })).toBe(0);
  });

  it('is monotone: more variables or geographies never cost less', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 60000 }), (v, g, x) => {
        const geos = [
          ...Array.from({ length: g }, () => ({ kind: 'single' as const })),
          ...(x > 0 ? [{ kind: 'expansion' as const, count: x }] : []),
        ];
        const c = costOf('enterprise', { kind: 'data', variables: v, geos });
        expect(c).toBeGreaterThanOrEqual(1);
        expect(costOf('enterprise', { kind: 'data', variables: v + 1, geos })).toBeGreaterThan(c);
        expect(costOf('enterprise', { kind: 'data', variables: v, geos: [...geos, { kind: 'single' }] })).toBeGreaterThan(c);
      }),
    );
  });
});
