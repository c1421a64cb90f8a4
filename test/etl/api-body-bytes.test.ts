// The byte reader of API bodies (the observations step's fast path) against the string reader it
// stands in for: for every body, the same staging bytes, summary and cells, or the string reader's
// own error. Real files from ../shared, generated bodies (valid and broken), and the number check.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainNumber } from '../../etl/sources/api-body.js';
import { plainNumberAt, scanApiBytes } from '../../etl/sources/api-body-bytes.js';
import { readBytes, stageBody } from '../../etl/steps/observations/staging.js';
import { SHARED_CENSUS } from '../support/paths.js';

const bytesOf = (s: string) => Buffer.from(s, 'utf8');
const ignore = { begin() {}, geography() {}, cell() {} };
/** Whether the byte reader reads `body` itself (rather than handing it to the string reader). */
const readsItself = (body: Buffer) => scanApiBytes(body, 'x.json', ignore) !== undefined;

/** Both readers' results, comparable (typed arrays as plain arrays; NaN kept as NaN by toEqual). */
function both(body: Buffer) {
  const run = (strings: boolean) => {
    try {
      const r = stageBody(body, 'x.json', { strings });
      const c = r.cells;
      return {
        tsv: Buffer.from(r.tsv).toString('utf8'),
        table: r.table,
        body: r.body,
        cells: {
          ...c,
          geo: [...c.geo],
          variable: [...c.variable],
          estimate: [...c.estimate],
          moe: [...c.moe],
          estimateAnnotation: [...c.estimateAnnotation],
          moeAnnotation: [...c.moeAnnotation],
        },
      };
    } catch (e) {
      return { error: String(e) };
    }
  };
  return { fast: run(false), strings: run(true) };
}

describe('plainNumberAt', () => {
  const check = (s: string) => {
    const b = bytesOf(s);
    const fast = plainNumberAt(b, 0, b.length);
    // Whatever the byte check accepts, the string rule accepts as the same double.
    if (fast !== undefined) expect(Object.is(fast, plainNumber(s))).toBe(true);
    return fast;
  };

  it('takes canonical numbers as the string rule does, and nothing it would not', () => {
    for (const s of ['0', '1', '-1', '75277', '38.9', '-0.5', '0.000001', '99999999', '-99999999', '123456789012345', '0.1', '1.05'])
      expect(check(s)).toBe(Number(s));
    // Not canonical, exponent form when printed, jam values, too many digits: the full rules decide.
    for (const s of [
      '',
      '-',
      '-0',
      '00',
      '01',
      '1.',
      '.5',
      '1.50',
      '+5',
      ' 5',
      '5 ',
      '1e3',
      '0.0000001',
      '-100000000',
      '-666666666',
      '1234567890123456',
      '0x1A',
      'NaN',
      '1,000',
    ])
      expect(check(s)).toBeUndefined();
  });

  it('agrees with the string rule on random number-like text', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^-?[0-9]{0,18}(\.[0-9]{0,18})?$/), (s) => {
        check(s);
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes every double JavaScript prints plainly with at most 15 digits', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -99_999_999, max: 1e15 }),
        fc.integer({ min: 1, max: 15 }),
        (x, digits) => {
          const s = String(Number(x.toPrecision(digits)));
          // Rounding can carry to a 16th digit (9.5e14 to one digit is 1e15): those take the full rules.
          if (/e/.test(s) || s === '-0' || Number(s) <= -100_000_000 || s.replace(/^-?[0.]*/, '').replace('.', '').length > 15) return;
          expect(Object.is(check(s), Number(s))).toBe(true);
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

describe('scanApiBytes through stageBody', () => {
  it('stages real files exactly as the string reader does, reading every one itself', () => {
    // One directory of each kind: acs1 states (jam values, Puerto Rico-only tables), a 2009 file set
    // (symbols beside numbers), acs5 metros and counties (names with accents), nations.
    const dirs = [
      'api/2018/acs/acs1/state',
      'api/2009/acs/acs1/state',
      'api/2017/acs/acs5/metro',
      'api/2022/acs/acs5/county',
      'api/2015/acs/acs1/nation',
    ];
    let files = 0;
    for (const dir of dirs) {
      const names = fs.readdirSync(path.join(SHARED_CENSUS, dir)).sort();
      for (const name of names.filter((_, i) => i % Math.ceil(names.length / 40) === 0)) {
        const body = readBytes(path.join(SHARED_CENSUS, dir, name));
        const { fast, strings } = both(body);
        expect(fast, `${dir}/${name}`).toEqual(strings);
        expect(readsItself(body), `${dir}/${name}`).toBe(true);
        files++;
      }
    }
    expect(files).toBeGreaterThan(100);
  });

  const cell = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -2_000, max: 2_000_000 }).map(String) },
    { weight: 2, arbitrary: fc.double({ noNaN: true, min: -1e6, max: 1e6 }).map((x) => String(Number(x.toFixed(3)))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('-666666666', '-999999999', '-888888888', '-222222222', '-333333333', '-555555555', '-123456789'),
    },
    { weight: 2, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '-0',
        '007',
        '1.50',
        '1e3',
        ' 5',
        '*****',
        '(X)',
        'N',
        '250,000+',
        '12x',
        '0.0000001',
        '1234567890123456789',
      ),
    },
  );
  const annotation = fc.oneof(
    { weight: 8, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('', '*****', '***', '**', '-', 'N', '(X)', '+', '250,000+', '2,500-', 'odd') },
  );
  const name = fc.oneof(
    fc.constantFrom(
      'Alabama',
      ' Doña Ana County, New Mexico ',
      '',
      'Añasco Municipio, Puerto Rico',
      'Quote "inside"',
      'Back\\slash',
      'Tab\there',
    ),
    fc.string(),
  );
  const fips = fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: 8 }).map((n) => `0${n}`) },
    { weight: 1, arbitrary: fc.constantFrom('6', '06x', null, '') },
  );

  /** A body: a header of some variables (with or without MOE and annotation columns, maybe a repeated NAME), rows of cells. */
  const body = fc
    .record({
      variables: fc.integer({ min: 1, max: 4 }),
      // Some published headers list their variables out of order (B02017 starts at _003M).
      reversed: fc.boolean(),
      withMoe: fc.boolean(),
      withAnnotations: fc.boolean(),
      repeatName: fc.boolean(),
      rows: fc.array(
        fc.record({ fips, name, cells: fc.array(fc.tuple(cell, cell, annotation, annotation), { minLength: 4, maxLength: 4 }) }),
        { maxLength: 6 },
      ),
      spacing: fc.constantFrom('', '\n', ' ', '\r\n\t'),
      damage: fc.constantFrom('none', 'none', 'none', 'short row', 'trailing text', 'number cell', 'same row twice', 'empty header'),
    })
    .map((b) => {
      const header: string[] = ['NAME'];
      const order = Array.from({ length: b.variables }, (_, i) => i);
      if (b.reversed) order.reverse();
      for (const v0 of order) {
        const v = v0 + 1;
        const base = `B19013_00${v}`;
        header.push(`${base}E`);
        if (b.withMoe) header.push(`${base}M`);
        if (b.withAnnotations) header.push(`${base}EA`, `${base}MA`);
      }
      if (b.repeatName) header.push('NAME');
      header.push('state');
      let rows: unknown[][] = b.rows.map((r) => {
        const row: unknown[] = [r.name];
        for (const v of order) {
          const [e, m, ea, ma] = r.cells[v]!;
          row.push(e);
          if (b.withMoe) row.push(m);
          if (b.withAnnotations) row.push(ea, ma);
        }
        if (b.repeatName) row.push(r.name);
        row.push(r.fips);
        return row;
      });
      if (b.damage === 'short row' && rows.length) rows[0] = rows[0]!.slice(1);
      if (b.damage === 'number cell' && rows.length) rows[0]![1] = 5;
      if (b.damage === 'same row twice' && rows.length) rows = [...rows, rows[0]!];
      const all = b.damage === 'empty header' ? [[], ...rows] : [header, ...rows];
      const text = `[${all.map((r) => JSON.stringify(r)).join(`,${b.spacing}`)}]${b.damage === 'trailing text' ? ' x' : b.spacing}`;
      return bytesOf(text);
    });

  it('gives the string reader’s result or error for generated bodies, valid and broken', () => {
    let fastRead = 0;
    fc.assert(
      fc.property(body, (b) => {
        const { fast, strings } = both(b);
        expect(fast).toEqual(strings);
        if (readsItself(b)) fastRead++;
      }),
      { numRuns: 3_000 },
    );
    // The generator must reach the fast path often, or the comparison says little.
    expect(fastRead).toBeGreaterThan(300);
  });

  it('hands escapes, invalid UTF-8 and anything after the array to the string reader', () => {
    const ok = '[["B19013_001E","state"],["5","06"]]';
    expect(readsItself(bytesOf(ok))).toBe(true);
    for (const text of [
      '[["B19013_001E","state"],["5","\\u0030\\u0036"]]',
      '[["B19013_001E","state"],["5","06"]] []',
      '\uFEFF[["B19013_001E","state"],["5","06"]]',
      '[["B19013_001E","state"],["5","06"],]',
    ]) {
      expect(readsItself(bytesOf(text)), text).toBe(false);
      const { fast, strings } = both(bytesOf(text));
      expect(fast).toEqual(strings);
    }
    const invalid = Buffer.concat([bytesOf('[["NAME","B19013_001E","state"],["'), Buffer.from([0xc3, 0x28]), bytesOf('","5","06"]]')]);
    expect(readsItself(invalid)).toBe(false);
    expect(both(invalid).fast).toEqual(both(invalid).strings);
  });
});
