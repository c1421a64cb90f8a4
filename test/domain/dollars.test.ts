// The R-CPI-U-RS file shipped in catalog/ (read here from the file itself, never from a copy in
// this test), checked against what its publishers printed, and the dollars arithmetic.
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTargetYear, dollarFactor, parsePriceIndex, type PriceIndex } from '../../src/domain/dollars.js';
import { AppError } from '../../src/domain/errors.js';
import { PRICE_INDEX_FILE, loadPriceIndex } from '../../src/store/price-index.js';

const loaded = loadPriceIndex();
const index = loaded.index as PriceIndex;

describe('catalog/cpi-u-rs.csv', () => {
  it('loads, and names the BLS series, base, release and source', () => {
    expect(loaded.error).toBeNull();
    expect(index.series).toBe('R-CPI-U-RS, All items');
    expect(index.publisher).toBe('U.S. Bureau of Labor Statistics');
    expect(index.base).toBe('December 1977 = 100');
    expect(index.source_url).toBe('https://www.bls.gov/cpi/research-series/r-cpi-u-rs-allitems.xlsx');
    expect(index.release).toMatch(/2024/);
  });

  it('covers every ACS vintage (2005–2024) with an annual average, and its base month is 100', () => {
    expect(index.first).toBeLessThanOrEqual(2005);
    expect(index.last).toBeGreaterThanOrEqual(2024);
    expect(index.monthly.get(1977)?.[11]).toBe(100);
  });

  // BLS prints each year's annual average beside its twelve monthly values, each rounded to one
  // decimal: the average of the printed months can differ from the printed average by rounding
  // only (≤ 0.05). A mistyped month or average in the file breaks this for its year.
  it('every annual average is the mean of its twelve published months, to the published rounding', () => {
    let years = 0;
    for (const [year, avg] of index.annual) {
      const months = index.monthly.get(year)!;
      expect(
        months.every((m) => m !== null),
        `${year}: twelve months`,
      ).toBe(true);
      const mean = months.reduce((s, m) => s! + m!, 0)! / 12;
      expect(Math.abs(mean - avg), `${year}: mean ${mean} vs average ${avg}`).toBeLessThanOrEqual(0.05 + 1e-9);
      years++;
    }
    expect(years).toBe(index.last - index.first + 1);
  });

  // An independent publication of the same series: the Federal Reserve Board's Survey of Consumer
  // Finances bulletin SAS macro (bulletin.macro.txt) deflates with the CPI-U-RS for September of
  // each survey year, printed ×10 without the decimal point (1989: 1898 = 189.8, …).
  it("matches the September values the Federal Reserve's SCF bulletin macro prints", () => {
    const fed: Record<number, number> = {
      1989: 1898,
      1992: 2112,
      1995: 2261,
      1998: 2400,
      2001: 2614,
      2004: 2785,
      2007: 3058,
      2010: 3204,
      2013: 3438,
      2016: 3548,
      2019: 3775,
      2022: 4376,
    };
    for (const [year, printed] of Object.entries(fed)) {
      expect(Math.round(index.monthly.get(Number(year))![8]! * 10), `September ${year}`).toBe(printed);
    }
  });
});

describe('parsePriceIndex', () => {
  const good = fs.readFileSync(PRICE_INDEX_FILE, 'utf8');

  it('refuses a damaged file, naming the line', () => {
    expect(() => parsePriceIndex(good.replace('YEAR,JAN', 'YR,JAN'))).toThrow(/header/);
    expect(() => parsePriceIndex(good.replace(/^2010,317\.8/m, '2010,abc'))).toThrow(/line \d+: bad value "abc"/);
    expect(() => parsePriceIndex(good.replace(/^# source_url:.*$/m, ''))).toThrow(/source_url/);
    expect(() => parsePriceIndex(good.replace(/^2011,.*$/m, ''))).toThrow(/no annual average for 2011/);
  });

  it('an unreadable file leaves the index absent with the reason', () => {
    const r = loadPriceIndex('/nonexistent/cpi-u-rs.csv');
    expect(r.index).toBeNull();
    expect(r.error).toMatch(/ENOENT/);
  });
});

describe('dollar factors', () => {
  it('is the ratio of the two annual averages of the file', () => {
    const f = dollarFactor(index, 2012, 2018)!;
    expect(f.factor).toBe(index.annual.get(2018)! / index.annual.get(2012)!);
    expect(f).toMatchObject({ source_year: 2012, target_year: 2018 });
    expect(dollarFactor(index, 1900, 2018)).toBeNull();
  });

  it('a target year outside the file is a 422 naming the years it holds', () => {
    const err = (() => {
      try {
        checkTargetYear(index, 1950);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect(err!.status).toBe(422);
    expect(err!.message).toContain(`${index.first}–${index.last}`);
    expect(err!.extensions.available_years).toEqual({ first: index.first, last: index.last });
  });

  it('restating there and back is the identity; factors chain (a→b→c = a→c)', () => {
    const years = fc.integer({ min: index.first, max: index.last });
    fc.assert(
      fc.property(years, years, years, (a, b, c) => {
        const ab = dollarFactor(index, a, b)!.factor;
        expect(ab * dollarFactor(index, b, a)!.factor).toBeCloseTo(1, 12);
        expect(ab * dollarFactor(index, b, c)!.factor).toBeCloseTo(dollarFactor(index, a, c)!.factor, 12);
      }),
    );
  });
});
