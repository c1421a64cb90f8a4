import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { componentCodes, evaluateFormula, formatFormula, FormulaError, parseFormula, type Cell } from '../../src/domain/formula.js';
import { moeProportion, moeSum } from '../../src/domain/moe.js';

const cell = (estimate: number | null, moe: number | null, ea: string | null = null, ma: string | null = null): Cell => ({
  estimate,
  moe,
  estimate_annotation: ea,
  moe_annotation: ma,
});

function getter(cells: Record<string, Cell>) {
  return (code: string): Cell => {
    const c = cells[code];
    if (!c) throw new Error(`test asked for unexpected code ${code}`);
    return c;
  };
}

describe('parseFormula', () => {
  it('parses nested calls and lists component codes once, in order', () => {
    const f = parseFormula('pct(sum(B15003_022E, b15003_023E, B15003_022E), B15003_001E)');
    expect(componentCodes(f)).toEqual(['B15003_022E', 'B15003_023E', 'B15003_001E']);
    expect(formatFormula(f)).toBe('pct(sum(B15003_022E, B15003_023E, B15003_022E), B15003_001E)');
    expect(formatFormula(parseFormula(formatFormula(f)))).toBe(formatFormula(f));
  });

  it('accepts race-iteration and C tables and number literals', () => {
    expect(componentCodes(parseFormula('ratio(B19013A_001E, C24010_001E)'))).toEqual(['B19013A_001E', 'C24010_001E']);
    expect(componentCodes(parseFormula('product(B25010_001E, 100)'))).toEqual(['B25010_001E']);
  });

  it.each([
    ['pct(B17001_002E)', /takes 2 arguments/],
    ['pct(B17001_002E, B17001_001E', /expected "\)"/],
    ['mean(B17001_002E, B17001_001E)', /unknown function "mean"/],
    ['pct(B17001_002M, B17001_001E)', /not a detailed-table estimate code/],
    ['pct(S1701_C01_001E, B17001_001E)', /not a detailed-table estimate code/],
    ['B17001_002E', /must be a function call/],
    ['sum(B17001_002E, B17001_001E) x', /unexpected "x"/],
    ['pct(B17001_002E; B17001_001E)', /unexpected character ";"/],
    ['', /end of formula/],
  ])('rejects %s', (src, message) => {
    expect(() => parseFormula(src)).toThrow(FormulaError);
    expect(() => parseFormula(src)).toThrow(message);
  });
});

describe('evaluateFormula', () => {
  it('percent = proportion × 100 with the proportion MOE × 100 (handbook 2018 ch. 8 p. 64 inputs)', () => {
    const f = parseFormula('pct(B12001_010E, B12001_001E)');
    const r = evaluateFormula(f, getter({ B12001_010E: cell(203_119, 5_070), B12001_001E: cell(630_498, 831) }));
    expect(r.estimate!.toFixed(1)).toBe('32.2');
    expect(r.moe!.toFixed(1)).toBe('0.8');
    expect(r.estimate_annotation).toBeNull();
  });

  it('nests: pct(sum(a, b), c) uses the sum and its MOE as the numerator', () => {
    const cells = { A_: cell(100, 30), B_: cell(50, 40), C_: cell(1000, 20) };
    const g = getter({ B01001_003E: cells.A_, B01001_027E: cells.B_, B01001_001E: cells.C_ });
    const r = evaluateFormula(parseFormula('pct(sum(B01001_003E, B01001_027E), B01001_001E)'), g);
    const sumMoe = moeSum([
      { estimate: 100, moe: 30 },
      { estimate: 50, moe: 40 },
    ]);
    expect(sumMoe).toBe(50);
    expect(r.estimate).toBeCloseTo(15, 12);
    expect(r.moe).toBeCloseTo(moeProportion({ estimate: 150, moe: 50 }, { estimate: 1000, moe: 20 }).moe * 100, 12);
  });

  it('a null component estimate nulls the result with derived_from_annotated', () => {
    const r = evaluateFormula(
      parseFormula('pct(B17001_002E, B17001_001E)'),
      getter({ B17001_002E: cell(null, null, 'not_computable', null), B17001_001E: cell(10, 1) }),
    );
    expect(r).toEqual(cell(null, null, 'derived_from_annotated', 'derived_from_annotated'));
  });

  it('a top-coded median cannot enter arithmetic', () => {
    const r = evaluateFormula(
      parseFormula('ratio(B19013_001E, B19301_001E)'),
      getter({ B19013_001E: cell(250_001, null, 'top_coded', 'moe_open_ended'), B19301_001E: cell(60_000, 500) }),
    );
    expect(r.estimate).toBeNull();
    expect(r.estimate_annotation).toBe('derived_from_annotated');
  });

  it('a controlled component (MOE *****) counts as MOE 0', () => {
    const f = parseFormula('pct(B17001_002E, B01003_001E)');
    const r = evaluateFormula(f, getter({ B17001_002E: cell(200, 30), B01003_001E: cell(1000, null, null, 'controlled') }));
    expect(r.moe).toBeCloseTo(3, 12); // √(30² − 0.2²·0²)/1000 × 100
    expect(r.moe_annotation).toBeNull();
  });

  it('a non-controlled null MOE keeps the estimate but nulls the MOE', () => {
    const r = evaluateFormula(
      parseFormula('sum(B08301_010E, B08301_019E)'),
      getter({ B08301_010E: cell(5, null, null, 'moe_not_computable'), B08301_019E: cell(7, 2) }),
    );
    expect(r).toEqual(cell(12, null, null, 'derived_from_annotated'));
  });

  it('division by zero is not_computable', () => {
    const r = evaluateFormula(parseFormula('pct(B17001_002E, B17001_001E)'), getter({ B17001_002E: cell(0, 5), B17001_001E: cell(0, 5) }));
    expect(r).toEqual(cell(null, null, 'not_computable', 'not_computable'));
  });

  it('diff and product', () => {
    const g = getter({ B25001_001E: cell(100, 6), B25002_002E: cell(90, 8), B25010_001E: cell(2.5, 0.1) });
    expect(evaluateFormula(parseFormula('diff(B25001_001E, B25002_002E)'), g)).toEqual(cell(10, 10, null, null));
    const p = evaluateFormula(parseFormula('product(B25010_001E, 100)'), g);
    expect(p.estimate).toBeCloseTo(250, 12);
    expect(p.moe).toBeCloseTo(10, 12); // number literals carry no error
  });

  it('property: a sum evaluates to the sum of its parts with √ΣMOE² (nonzero parts)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ e: fc.integer({ min: 1, max: 1e6 }), m: fc.integer({ min: 0, max: 1e5 }) }), { minLength: 2, maxLength: 8 }),
        (parts) => {
          const codes = parts.map((_, i) => `B01001_${String(i + 3).padStart(3, '0')}E`);
          const cells = Object.fromEntries(codes.map((c, i) => [c, cell(parts[i]!.e, parts[i]!.m)]));
          const r = evaluateFormula(parseFormula(`sum(${codes.join(', ')})`), getter(cells));
          const expectedMoe = Math.sqrt(parts.reduce((s, p) => s + p.m * p.m, 0));
          return r.estimate === parts.reduce((s, p) => s + p.e, 0) && Math.abs(r.moe! - expectedMoe) < 1e-9 * Math.max(1, expectedMoe);
        },
      ),
    );
  });
});
