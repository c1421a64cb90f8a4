import { describe, expect, it } from 'vitest';
import { AppError, MAX_QUOTED_INPUT } from '../../../src/domain/errors.js';
import { extractRegions } from '../../../src/domain/geo/region-specifier.js';
import { parseGeoList, splitGeoParam } from '../../../src/domain/geo/specifier.js';

describe('extractRegions', () => {
  it('takes inline and saved regions out of a geo value and leaves the ordinary specifiers', () => {
    const r = extractRegions('state:06,region(county:06001,county:Contra Costa County, CA);region:bay-area;county:48453');
    expect(r.regions).toEqual([
      {
        kind: 'inline',
        raw: 'region(county:06001,county:Contra Costa County, CA)',
        members: parseGeoList('county:06001,county:Contra Costa County, CA'),
      },
      { kind: 'saved', raw: 'region:bay-area', name: 'bay-area' },
    ]);
    expect(splitGeoParam(r.rest)).toEqual(['state:06', 'county:48453']);
  });

  it('reads repeated values and leaves a value without regions as it is', () => {
    const r = extractRegions(['county:06001', ' Region (tract:06001*) ']);
    expect(r.rest).toEqual(['county:06001']);
    expect(r.regions).toEqual([
      {
        kind: 'inline',
        raw: 'Region (tract:06001*)',
        members: [{ kind: 'wildcard', raw: 'tract:06001*', type: 'tract', prefix: '06001' }],
      },
    ]);
  });

  it('parses the members once, with the specifier grammar, and reads a region among them as nested', () => {
    const [r] = extractRegions('region(county:06001; county:Alameda County, CA, tract:06001*)').regions;
    expect(r).toMatchObject({
      kind: 'inline',
      members: [
        { kind: 'key', type: 'county', fips: '06001' },
        { kind: 'name', type: 'county', name: 'Alameda County, CA' },
        { kind: 'wildcard', type: 'tract', prefix: '06001' },
      ],
    });
    for (const nested of ['region(county:06001,region:bay)', 'region(county:06001; Region (county:06013))']) {
      expect(() => extractRegions(nested), nested).toThrow(/cannot contain another region/);
    }
    expect(() => extractRegions('region(county:06001;foo:1)')).toThrow(/not a valid geography specifier/);
  });

  it.each([
    'region(county:06001',
    'region()',
    'region( ; )',
    'region(region(county:06001))',
    'region:Bad Name',
    'region(county:06001)x',
    'region:',
  ])('refuses %s with invalid-geo-format', (geo) => {
    expect(() => extractRegions(geo)).toThrow(AppError);
    try {
      extractRegions(geo);
    } catch (e) {
      expect((e as AppError).code).toBe('invalid-geo-format');
    }
  });

  it.each([
    ['an unclosed region', `region(${'county:06001,'.repeat(40)}`],
    ['a saved name too long', `region:${'a'.repeat(300)}`],
    ['text after it', `region(county:06001) ${'x'.repeat(300)}`],
    ['a nested region', `region(${'county:06001,'.repeat(40)}region:bay)`],
  ])('bounds the client text it repeats (%s) as specifier.ts does, in detail and extensions.geo', (_what, geo) => {
    let error: AppError | undefined;
    try {
      extractRegions(geo);
    } catch (e) {
      error = e as AppError;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(String(error!.extensions.geo).length).toBeLessThanOrEqual(MAX_QUOTED_INPUT);
    expect(error!.detail).not.toContain('x'.repeat(MAX_QUOTED_INPUT + 1));
    expect(error!.detail.length).toBeLessThan(2 * MAX_QUOTED_INPUT + 300);
  });
});
