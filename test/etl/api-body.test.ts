import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseApiBody } from '../../etl/sources/api-body.js';
import { InputError } from '../../etl/step.js';

const header = ['GEO_ID', 'B19013_001E', 'B19013_001M', 'NAME', 'B19013_001EA', 'B19013_001MA', 'state'];
const body = (...rows: unknown[][]) => JSON.stringify([header, ...rows]);

describe('parseApiBody', () => {
  it('keys rows by the geography columns and pairs E with M and annotations', () => {
    const parsed = parseApiBody(body(['0400000US06', '75277', '317', 'California', null, null, '06']), 'x.json');
    expect(parsed.level).toBe('state');
    expect(parsed.rows).toEqual([
      {
        geo_key: 'state:06',
        table_id: 'B19013',
        variable: 'B19013_001E',
        estimate: 75277,
        moe: 317,
        estimate_annotation: null,
        moe_annotation: null,
      },
    ]);
  });

  it('reads tables with three letters after the digits (regression: B07004GPR columns were skipped)', () => {
    const text = JSON.stringify([
      ['B07004GPR_001E', 'B07004GPR_001EA', 'B07004GPR_001M', 'B07004GPR_001MA', 'GEO_ID', 'NAME', 'state'],
      ['1234', null, '56', null, '0400000US72', 'Puerto Rico', '72'],
    ]);
    const parsed = parseApiBody(text, 'x.json');
    expect(parsed.tables).toEqual(['B07004GPR']);
    expect(parsed.rows).toEqual([expect.objectContaining({ table_id: 'B07004GPR', variable: 'B07004GPR_001E', estimate: 1234, moe: 56 })]);
  });

  it('turns jam values into null plus the matching annotation', () => {
    const parsed = parseApiBody(
      body(
        ['0400000US01', '-666666666', '-222222222', 'Alabama', '-', '**', '01'],
        ['0400000US02', '250001', '-333333333', 'Alaska', '250,000+', '***', '02'],
        ['0400000US04', '12', '-555555555', 'Arizona', null, '*****', '04'],
      ),
      'x.json',
    );
    expect(parsed.rows.map((r) => [r.estimate, r.estimate_annotation, r.moe, r.moe_annotation])).toEqual([
      [null, 'not_computable', null, 'moe_not_computable'],
      [250001, 'top_coded', null, 'moe_open_ended'],
      [12, null, null, 'controlled'],
    ]);
  });

  it('drops all-null cells (the API\'s "not tabulated for this geography") but reports their table', () => {
    const parsed = parseApiBody(body(['0400000US06', null, null, 'California', null, null, '06']), 'x');
    expect(parsed.rows).toEqual([]);
    expect(parsed.tables).toEqual(['B19013']);
  });

  it('builds keys for every level the API returns', () => {
    const cases: Array<[string[], string[], string]> = [
      [['us'], ['1'], 'nation:1'],
      [['state', 'county'], ['48', '453'], 'county:48453'],
      [['metropolitan statistical area/micropolitan statistical area'], ['12420'], 'metro:12420'],
      [['state', 'congressional district'], ['48', '35'], 'cd:4835'],
      [['state', 'county', 'tract'], ['48', '453', '001100'], 'tract:48453001100'],
      [['state', 'county', 'tract', 'block group'], ['48', '453', '001100', '1'], 'block_group:484530011001'],
    ];
    for (const [cols, vals, key] of cases) {
      const text = JSON.stringify([
        ['B01003_001E', ...cols],
        ['5', ...vals],
      ]);
      expect(parseApiBody(text, 'x').rows[0]!.geo_key).toBe(key);
    }
  });

  it.each([
    ['not JSON', '[["a"', /not valid JSON/],
    ['an object', '{"a":1}', /array of arrays/],
    ['a numeric header', '[[1,2]]', /header row/],
    ['unknown geography columns', '[["B01003_001E","zip"],["1","2"]]', /geography columns/],
    ['a short row', body(['0400000US06', '1', '2', 'California', null, null]), /expected 7 cells/],
    ['a JSON number cell', body(['0400000US06', 75277, '317', 'California', null, null, '06']), /strings or null/],
    ['a non-numeric estimate', body(['0400000US06', 'abc', '317', 'California', null, null, '06']), /not a number/],
    ['a bad FIPS code', body(['0400000US06', '1', '317', 'California', null, null, '6']), /bad state code/],
    ['a GEO_ID that disagrees with the FIPS columns', body(['0400000US07', '1', '2', 'X', null, null, '06']), /does not match/],
  ])('rejects %s, naming the file and row', (_name, text, message) => {
    let err: unknown;
    try {
      parseApiBody(text, 'api/2018/acs/acs1/state/B19013.json.gz');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(message);
    expect((err as InputError).message).toContain('api/2018/acs/acs1/state/B19013.json.gz');
  });

  it('never emits a jam value as a number, whatever the cell holds', () => {
    const jams = ['-666666666', '-999999999', '-888888888', '-222222222', '-333333333', '-555555555'];
    const cell = fc.oneof(fc.constantFrom(...jams), fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map(String), fc.constant(null));
    fc.assert(
      fc.property(cell, cell, (e, m) => {
        const parsed = parseApiBody(body(['0400000US06', e, m, 'California', null, null, '06']), 'x');
        const r = parsed.rows[0];
        // A cell that is null in every column is an API "not tabulated here" and is not stored.
        if (e === null && m === null) {
          expect(r).toBeUndefined();
          return;
        }
        if (!r) throw new Error('row missing');
        for (const v of [r.estimate, r.moe]) if (v !== null) expect(v).toBeGreaterThan(-100_000_000);
        if (e !== null && jams.includes(e)) expect(r.estimate_annotation).not.toBeNull();
      }),
    );
  });

  it('reads a plain number (the fast path) exactly as the full rules do', () => {
    // A blank annotation (' ') sends every cell through the full rules (symbols, jam values,
    // exactness check); null annotations let canonical numbers take the fast path. Both must agree
    // on every value, annotation and refusal.
    const number = fc.oneof(
      fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map(String),
      fc.double({ noNaN: true }).map(String),
      fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }).map(String),
      fc.tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.nat(9_999)).map(([i, f]) => `${i}.${f}`),
      fc.constantFrom('-666666666', '-999999999.0', '-100000000', '-99999999', '-0', '0', '00', '007', '2.70', '1e21', '1e+21', ' 5', '5 '),
      fc.constantFrom('Infinity', '-Infinity', 'NaN', '', '-', 'N', '(X)', '*****', '0x1A', '1_000', '.5', '5.'),
    );
    const outcome = (e: string, m: string, annotation: string | null) => {
      try {
        return parseApiBody(body(['0400000US06', e, m, 'California', annotation, annotation, '06']), 'x').rows;
      } catch (err) {
        return (err as Error).message;
      }
    };
    fc.assert(
      fc.property(number, number, (e, m) => {
        expect(outcome(e, m, null)).toEqual(outcome(e, m, ' '));
      }),
      { numRuns: 2000 },
    );
  });

  it('lists every geography with its NAME as published, or null without a NAME column', () => {
    expect(parseApiBody(body(['0400000US06', '75277', '317', 'California', null, null, '06']), 'x').places).toEqual([
      ['state:06', 'California'],
    ]);
    expect(
      parseApiBody(
        JSON.stringify([
          ['B01003_001E', 'state', 'county'],
          ['5', '46', '102'],
        ]),
        'x',
      ).places,
    ).toEqual([['county:46102', null]]);
  });

  it('reads a repeated column once when its copies agree', () => {
    const text = JSON.stringify([
      ['NAME', 'B01003_001E', 'B01003_001E', 'NAME', 'state'],
      ['Alabama', '5', '5', 'Alabama', '01'],
    ]);
    const parsed = parseApiBody(text, 'x');
    expect(parsed.rows).toHaveLength(1);
    expect(parsed.rows[0]!.estimate).toBe(5);
    expect(() =>
      parseApiBody(
        JSON.stringify([
          ['B01003_001E', 'B01003_001E', 'state'],
          ['5', '6', '01'],
        ]),
        'f.json',
      ),
    ).toThrow('f.json, row 1: column "B01003_001E" is repeated with different values ("5" and "6")');
  });

  it('keeps published decimals and integers as written, and refuses what a double would round', () => {
    const one = (v: string) =>
      parseApiBody(
        JSON.stringify([
          ['B01003_001E', 'state'],
          [v, '01'],
        ]),
        'x',
      ).rows[0]!.estimate;
    expect(one('2.70')).toBe(2.7);
    expect(one('2147483648')).toBe(2147483648);
    expect(one('9007199254740992')).toBe(2 ** 53);
    expect(() => one('9007199254740993')).toThrow(/cannot be stored exactly/);
    expect(() => one('0.1000000000000000000001')).toThrow(/cannot be stored exactly/);
    expect(() => one('0x1A')).toThrow(/not a decimal number/);
  });

  it('reads the symbols data.census.gov exports write instead of a number as the jam values they stand for', () => {
    const text = JSON.stringify([
      ['B01003_001E', 'B01003_001M', 'state'],
      ['-', '**', '01'],
      ['12', '*****', '02'],
      ['(X)', 'N', '04'],
    ]);
    expect(parseApiBody(text, 'x').rows.map((r) => [r.estimate, r.estimate_annotation, r.moe, r.moe_annotation])).toEqual([
      [null, 'not_computable', null, 'moe_not_computable'],
      [12, null, null, 'controlled'],
      [null, 'not_applicable', null, 'insufficient_sample'],
    ]);
    expect(() =>
      parseApiBody(
        JSON.stringify([
          ['B19013_001E', 'state'],
          ['250,000+', '01'],
        ]),
        'x',
      ),
    ).toThrow(/not a number/);
  });
});
