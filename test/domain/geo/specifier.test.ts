// The specifier grammar and name folding, without data.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { tractNumber } from '../../../src/domain/geo/keys.js';
import { compactName, foldName, stripCountyType } from '../../../src/domain/geo/names.js';
import { parseDistrictName } from '../../../src/store/geographies/resolve-name.js';
import { parseSpecifier, splitGeoParam } from '../../../src/domain/geo/specifier.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as AppError).code;
  }
  return 'ok';
}

describe('parseSpecifier', () => {
  it('keys keep their leading zeros', () => {
    expect(parseSpecifier('state:06')).toEqual({ kind: 'key', raw: 'state:06', type: 'state', fips: '06' });
    expect(parseSpecifier(' county:06037 ')).toMatchObject({ kind: 'key', fips: '06037' });
  });

  it('bare nation and us name the nation (regression: they were 400 while nation:1 worked)', () => {
    for (const raw of ['nation', 'us', 'US', ' Nation '])
      expect(parseSpecifier(raw)).toMatchObject({ kind: 'key', type: 'nation', fips: '1' });
    expect(code(() => parseSpecifier('usa'))).toBe('invalid-geo-format');
    expect(code(() => parseSpecifier('tx'))).toBe('invalid-geo-format');
  });

  it('wildcards are digits with one trailing star', () => {
    expect(parseSpecifier('county:48*')).toMatchObject({ kind: 'wildcard', type: 'county', prefix: '48' });
    expect(parseSpecifier('state:*')).toMatchObject({ kind: 'wildcard', prefix: '' });
    expect(code(() => parseSpecifier('county:4*8'))).toBe('invalid-geo-format');
    expect(code(() => parseSpecifier('county:48**'))).toBe('invalid-geo-format');
  });

  it('names only for county, tract and block_group', () => {
    expect(parseSpecifier('tract:Travis County, TX')).toMatchObject({ kind: 'name', name: 'Travis County, TX' });
    expect(code(() => parseSpecifier('state:Texas'))).toBe('invalid-geo-format');
    expect(code(() => parseSpecifier('metro:Austin'))).toBe('invalid-geo-format');
  });

  it('rejects bare abbreviations, unknown types and empty parts', () => {
    for (const s of ['tx', 'TX', 'texas', 'zip:78701', 'county:', ':48']) expect(code(() => parseSpecifier(s))).toBe('invalid-geo-format');
  });

  it("any digit string after a known type parses as a key (existence is the store's question)", () => {
    fc.assert(
      fc.property(fc.constantFrom('state', 'county', 'tract', 'cd'), fc.stringMatching(/^\d{1,12}$/), (t, d) => {
        expect(parseSpecifier(`${t}:${d}`)).toEqual({ kind: 'key', raw: `${t}:${d}`, type: t, fips: d });
      }),
    );
  });

  it('splitGeoParam splits on ; only, across repeated values', () => {
    expect(splitGeoParam(['county:Austin-Round Rock-San Marcos, TX;state:48', ' state:06 ;'])).toEqual([
      'county:Austin-Round Rock-San Marcos, TX',
      'state:48',
      'state:06',
    ]);
    expect(splitGeoParam(undefined)).toEqual([]);
  });
});

describe('names', () => {
  it('tract numbers follow the Census rule', () => {
    expect(tractNumber('020101')).toBe('201.01');
    expect(tractNumber('020100')).toBe('201');
    expect(tractNumber('000100')).toBe('1');
    expect(tractNumber('980000')).toBe('9800');
  });

  it('folding forgives case, accents, punctuation and Saint', () => {
    expect(foldName('Doña Ana County')).toBe('dona ana county');
    expect(foldName('St. Louis city')).toBe('saint louis city');
    expect(foldName('Ste. Genevieve')).toBe('sainte genevieve');
    expect(compactName('De Kalb')).toBe(compactName('DeKalb'));
    expect(stripCountyType('juneau city and borough')).toBe('juneau');
    expect(stripCountyType('capitol planning region')).toBe('capitol');
  });

  it('district name forms', () => {
    expect(parseDistrictName('TX-35')).toEqual({ state: 'TX', district: 35 });
    expect(parseDistrictName('New York-10')).toEqual({ state: 'New York', district: 10 });
    expect(parseDistrictName('Texas 35th congressional district')).toEqual({ state: 'texas', district: 35 });
    expect(parseDistrictName('Congressional District 7 (118th Congress), Arizona')).toEqual({ state: 'arizona', district: 7 });
    expect(parseDistrictName('WY-AL')).toEqual({ state: 'WY', district: 0 });
    expect(parseDistrictName('Travis County, TX')).toBeNull();
    expect(parseDistrictName('Austin-Round Rock-San Marcos, TX')).toBeNull();
  });
});
