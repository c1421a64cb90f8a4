// Aggregating a count over a region's members, and the formulas applied to aggregated estimates:
// the handbook's arithmetic on worked numbers and fast-check properties of the MOE formulas.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateFormula, parseFormula, type Cell } from '../../../src/domain/formula.js';
import { moeProportion } from '../../../src/domain/moe.js';
import { aggregateCount, type MemberCell } from '../../../src/domain/regions/aggregate.js';

const member = (
  geo_key: string,
  estimate: number | null,
  moe: number | null,
  ea: string | null = null,
  ma: string | null = null,
): MemberCell => ({
  geo_key,
  estimate,
  moe,
  estimate_annotation: ea,
  moe_annotation: ma,
});

describe('aggregateCount', () => {
  it('sums the estimates and takes the root of the summed squared MOEs (handbook 2020, ch. 8: square, sum, root)', () => {
    const r = aggregateCount([member('a', 100, 30), member('b', 200, 40)]);
    expect(r).toEqual({ cell: { estimate: 300, moe: 50, estimate_annotation: null, moe_annotation: null }, missing: null });
  });

  it('counts only the largest MOE among members estimated at 0 (handbook 2018, ch. 8)', () => {
    const r = aggregateCount([member('a', 36, 56), member('b', 0, 25), member('c', 0, 31)]);
    expect(r.cell.moe).toBeCloseTo(Math.sqrt(56 ** 2 + 31 ** 2), 12);
  });

  it('is null when a member has no value, naming the members and their reasons', () => {
    const r = aggregateCount([
      member('a', 10, 1),
      member('b', null, null, 'not_computable', 'not_computable'),
      member('c', null, null, 'geography_not_defined'),
    ]);
    expect(r.cell).toEqual({
      estimate: null,
      moe: null,
      estimate_annotation: 'region_member_missing',
      moe_annotation: 'region_member_missing',
    });
    expect(r.missing).toEqual({
      members: [
        { geo_key: 'b', reason: 'not_computable' },
        { geo_key: 'c', reason: 'geography_not_defined' },
      ],
    });
  });

  it("passes on the members' shared reason when none has a value (a level not loaded)", () => {
    const r = aggregateCount([member('a', null, null, 'no_data_loaded'), member('b', null, null, 'no_data_loaded')]);
    expect(r.cell.estimate_annotation).toBe('no_data_loaded');
  });

  it('counts a controlled member as MOE 0 and leaves the MOE null for any other missing MOE', () => {
    expect(aggregateCount([member('a', 100, 30), member('b', 50, null, null, 'controlled')]).cell).toMatchObject({
      estimate: 150,
      moe: 30,
    });
    expect(aggregateCount([member('a', 100, null, null, 'controlled'), member('b', 50, null, null, 'controlled')]).cell).toMatchObject({
      estimate: 150,
      moe: null,
      moe_annotation: 'controlled',
    });
    expect(aggregateCount([member('a', 100, 30), member('b', 50, null, null, 'moe_not_computable')]).cell).toMatchObject({
      estimate: 150,
      moe: null,
      moe_annotation: 'derived_from_annotated',
    });
    expect(
      aggregateCount([member('a', 100, null, null, 'missing_in_source'), member('b', 5, null, null, 'missing_in_source')]).cell,
    ).toMatchObject({
      moe: null,
      moe_annotation: 'missing_in_source',
    });
  });
});

describe('proportions of aggregated estimates (handbook worked example)', () => {
  // ACS General Handbook 2018, ch. 8, "Calculating MOEs for Derived Proportions" (p. 64), repeated in
  // "Understanding and Using ACS Data: What All Data Users Need to Know" (2020), ch. 8: never-married
  // females X̂ = 203,119 ± 5,070 of all females Ŷ = 630,498 ± 831 → p̂ = 0.322 ± 0.0080.
  it('reproduces p̂ = 0.322 ± 0.0080 through the formula language on aggregated cells', () => {
    const cells: Record<string, Cell> = {
      B12002_096E: { estimate: 203_119, moe: 5_070, estimate_annotation: null, moe_annotation: null },
      B12002_095E: { estimate: 630_498, moe: 831, estimate_annotation: null, moe_annotation: null },
    };
    const r = evaluateFormula(parseFormula('prop(B12002_096E, B12002_095E)'), (c) => cells[c]!);
    expect(r.estimate!.toFixed(3)).toBe('0.322');
    expect(r.moe!.toFixed(4)).toBe('0.0080');
  });
});

// Published counts and MOEs are whole numbers.
const count = fc.integer({ min: 0, max: 5_000_000 });
const moe = fc.integer({ min: 0, max: 500_000 });
const members = fc.array(fc.tuple(count, moe), { minLength: 1, maxLength: 40 });

describe('properties', () => {
  it("an aggregate's MOE is never smaller than its largest member's", () => {
    fc.assert(
      fc.property(members, (ms) => {
        const r = aggregateCount(ms.map(([e, m], i) => member(`g${i}`, e, m)));
        const largest = Math.max(...ms.map(([, m]) => m));
        expect(r.cell.moe).not.toBeNull();
        expect(r.cell.moe!).toBeGreaterThanOrEqual(largest * (1 - 1e-12));
        expect(r.cell.estimate).toBe(ms.reduce((s, [e]) => s + e, 0));
      }),
      { numRuns: 500 },
    );
  });

  it("a percent's MOE of aggregated numerator and denominator is never negative", () => {
    fc.assert(
      fc.property(members, members, (num, den) => {
        const x = aggregateCount(num.map(([e, m], i) => member(`g${i}`, e, m))).cell;
        const yRaw = aggregateCount(den.map(([e, m], i) => member(`g${i}`, e, m))).cell;
        // A numerator is a subset of its denominator: the denominator holds it.
        const y: Cell = { ...yRaw, estimate: yRaw.estimate! + x.estimate! };
        const r = evaluateFormula(parseFormula('pct(B01001_002E, B01001_001E)'), (c) => (c === 'B01001_002E' ? x : y));
        if (y.estimate === 0) expect(r.estimate).toBeNull();
        else {
          expect(r.moe).not.toBeNull();
          expect(r.moe!).toBeGreaterThanOrEqual(0);
          expect(Number.isFinite(r.moe!)).toBe(true);
          expect(r.moe!).toBeCloseTo(
            moeProportion({ estimate: x.estimate!, moe: x.moe! }, { estimate: y.estimate!, moe: y.moe! }).moe * 100,
            9,
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  const annotatedEstimate = fc.constantFrom('not_computable', 'insufficient_sample', 'region_member_missing', 'top_coded', 'bottom_coded');
  const formulas = [
    'pct(B01001_002E, B01001_001E)',
    'ratio(B01001_002E, B01001_001E)',
    'sum(B01001_002E, B01001_001E)',
    'diff(B01001_001E, B01001_002E)',
  ];

  it('a formula with an annotated input never yields a number', () => {
    fc.assert(
      fc.property(fc.constantFrom(...formulas), annotatedEstimate, fc.boolean(), count, moe, (src, code, first, e, m) => {
        const topOrBottom = code === 'top_coded' || code === 'bottom_coded';
        // A jam value is a null estimate; a top/bottom-coded median keeps its bound as the number.
        const bad: Cell = { estimate: topOrBottom ? e : null, moe: null, estimate_annotation: code, moe_annotation: null };
        const good: Cell = { estimate: e + 1, moe: m, estimate_annotation: null, moe_annotation: null };
        const r = evaluateFormula(parseFormula(src), (c) => ((c === 'B01001_002E') === first ? bad : good));
        expect(r.estimate).toBeNull();
        expect(r.moe).toBeNull();
        expect(r.estimate_annotation).toBe('derived_from_annotated');
      }),
      { numRuns: 300 },
    );
  });

  it('a formula with an annotated MOE yields no MOE', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...formulas),
        fc.constantFrom('moe_not_computable', 'moe_open_ended', 'source_annotated', 'missing_in_source'),
        count,
        moe,
        (src, code, e, m) => {
          const bad: Cell = { estimate: e, moe: code === 'source_annotated' ? m : null, estimate_annotation: null, moe_annotation: code };
          const good: Cell = { estimate: e + 1, moe: m, estimate_annotation: null, moe_annotation: null };
          const r = evaluateFormula(parseFormula(src), (c) => (c === 'B01001_002E' ? bad : good));
          expect(r.moe).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });
});
