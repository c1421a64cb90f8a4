import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { extractRegions } from '../../../src/domain/regions/specifier.js';
import { additivityOf } from '../../../src/domain/regions/additive.js';
import { splitGeoParam } from '../../../src/domain/geo/specifier.js';

describe('extractRegions', () => {
  it('takes inline and saved regions out of a geo value and leaves the ordinary specifiers', () => {
    const r = extractRegions('state:06,region(county:06001,county:Contra Costa County, CA);region:bay-area;county:48453');
    expect(r.regions).toEqual([
      {
        kind: 'inline',
        raw: 'region(county:06001,county:Contra Costa County, CA)',
        members: 'county:06001,county:Contra Costa County, CA',
      },
      { kind: 'saved', raw: 'region:bay-area', name: 'bay-area' },
    ]);
    expect(splitGeoParam(r.rest)).toEqual(['state:06', 'county:48453']);
  });

  it('reads repeated values and leaves a value without regions as it is', () => {
    const r = extractRegions(['county:06001', ' Region (tract:06001*) ']);
    expect(r.rest).toEqual(['county:06001']);
    expect(r.regions).toEqual([{ kind: 'inline', raw: 'Region (tract:06001*)', members: 'tract:06001*' }]);
  });

  it.each(['region(county:06001', 'region()', 'region(region(county:06001))', 'region:Bad Name', 'region(county:06001)x', 'region:'])(
    'refuses %s with invalid-geo-format',
    (geo) => {
      expect(() => extractRegions(geo)).toThrow(AppError);
      try {
        extractRegions(geo);
      } catch (e) {
        expect((e as AppError).code).toBe('invalid-geo-format');
      }
    },
  );
});

describe('additivityOf', () => {
  it.each([
    ['Sex by Age', true],
    ['Household Income in the Past 12 Months (in 2022 Inflation-Adjusted Dollars)', true],
    ['Aggregate Household Income in the Past 12 Months (in 2022 Inflation-Adjusted Dollars)', true],
    ['Median Household Income in the Past 12 Months (in 2022 Inflation-Adjusted Dollars)', false],
    ['Per Capita Income in the Past 12 Months (in 2022 Inflation-Adjusted Dollars)', false],
    ['Median Age by Sex', false],
    ['Gini Index of Income Inequality', false],
    ['Ratio of Income to Poverty Level in the Past 12 Months', false],
    [null, false],
  ])('%s → %s', (title, additive) => {
    expect(additivityOf(title).additive).toBe(additive);
  });
});
