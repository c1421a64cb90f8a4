import { describe, expect, it } from 'vitest';
import { additivityOf } from '../../../src/domain/regions/additive.js';

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
