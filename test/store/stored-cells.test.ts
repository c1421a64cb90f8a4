// StoredCells (src/store/stored-cells.ts): the store's cells by block and column. Checked against
// a plain Map of the same puts, with random vintages, geographies, codes, nulls and annotations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoredCells, type StoredCell } from '../../src/store/stored-cells.js';

const CODES = ['B01001_001E', 'B19013_001E', 'B25077_001E', 'B17001_002E'];

const cellArb: fc.Arbitrary<StoredCell> = fc.record({
  estimate: fc.option(fc.oneof(fc.integer(), fc.double({ noNaN: true })), { nil: null }),
  moe: fc.option(fc.oneof(fc.integer(), fc.double({ noNaN: true })), { nil: null }),
  estimate_annotation: fc.option(fc.constantFrom('not_computable', 'controlled'), { nil: null }),
  moe_annotation: fc.option(fc.constantFrom('moe_open_ended', 'controlled'), { nil: null }),
});
const putArb = fc.record({
  vintage: fc.constantFrom(2018, 2019),
  geo: fc.constantFrom('state:06', 'state:48', 'county:06001', 'tract:06001400100'),
  // One code the query did not ask for: never kept.
  code: fc.constantFrom(...CODES, 'B99999_001E'),
  cell: cellArb,
});

describe('StoredCells', () => {
  it('holds what a Map of the same puts holds: last put wins, codes not asked for are dropped', () => {
    fc.assert(
      fc.property(fc.array(putArb, { maxLength: 60 }), (puts) => {
        const cells = new StoredCells(CODES);
        const map = new Map<string, StoredCell>();
        for (const p of puts) {
          cells.put(p.vintage, p.geo, p.code, p.cell);
          if (CODES.includes(p.code)) map.set(`${p.vintage}|${p.geo}|${p.code}`, p.cell);
        }
        expect(cells.size).toBe(map.size);
        expect(new Map(cells)).toEqual(map);
        for (const p of puts) {
          const key = `${p.vintage}|${p.geo}|${p.code}`;
          expect(cells.get(key)).toEqual(map.get(key));
          const block = cells.block(p.vintage, p.geo);
          expect(cells.found(block, cells.column(p.code))).toBe(map.has(key));
        }
        expect(cells.block(2020, 'state:06')).toBe(-1);
      }),
    );
  });

  it('copies a cell into column arrays, and writes nothing for an absent one', () => {
    const cells = new StoredCells(CODES);
    cells.put(2018, 'state:06', 'B19013_001E', { estimate: 75277, moe: 317, estimate_annotation: null, moe_annotation: null });
    cells.put(2018, 'state:06', 'B25077_001E', {
      estimate: null,
      moe: null,
      estimate_annotation: 'not_computable',
      moe_annotation: 'controlled',
    });
    const to = { estimate: [0, 0, 0], moe: [0, 0, 0], estimate_annotation: ['x', 'x', 'x'], moe_annotation: ['x', 'x', 'x'] } as {
      estimate: (number | null)[];
      moe: (number | null)[];
      estimate_annotation: (string | null)[];
      moe_annotation: (string | null)[];
    };
    const b = cells.block(2018, 'state:06');
    expect(cells.copyTo(b, cells.column('B19013_001E'), to, 0)).toBe(true);
    expect(cells.copyTo(b, cells.column('B25077_001E'), to, 1)).toBe(true);
    expect(cells.copyTo(b, cells.column('B01001_001E'), to, 2)).toBe(false);
    expect(to).toEqual({
      estimate: [75277, null, 0],
      moe: [317, null, 0],
      estimate_annotation: [null, 'not_computable', 'x'],
      moe_annotation: [null, 'controlled', 'x'],
    });
  });

  it('grows past its first capacity without losing cells', () => {
    const cells = new StoredCells(CODES, 2);
    for (let i = 0; i < 5000; i++)
      cells.put(2018, `tract:${String(i).padStart(11, '0')}`, CODES[i % 4]!, {
        estimate: i,
        moe: -i,
        estimate_annotation: null,
        moe_annotation: null,
      });
    expect(cells.size).toBe(5000);
    expect(cells.get('2018|tract:00000004999|B17001_002E')).toEqual({
      estimate: 4999,
      moe: -4999,
      estimate_annotation: null,
      moe_annotation: null,
    });
    expect(cells.get('2018|tract:00000000000|B01001_001E')?.estimate).toBe(0);
  });
});
