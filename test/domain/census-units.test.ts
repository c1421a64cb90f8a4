import { describe, expect, it } from 'vitest';
import { inferCensusUnit } from '../../src/domain/census-units.js';

describe('inferCensusUnit', () => {
  it.each([
    ['Median Household Income in the Past 12 Months (in 2018 Inflation-Adjusted Dollars)', 'dollar'],
    ['Median Gross Rent (Dollars)', 'dollar'],
    ['Aggregate Household Income in the Past 12 Months (in 2018 Inflation-Adjusted Dollars)', 'dollar'],
    ['Per Capita Income in the Past 12 Months (in 2018 Inflation-Adjusted Dollars)', 'dollar'],
    ['Median Age by Sex', 'year'],
    ['Median Year Structure Built', 'year'],
    ['Sex by Age', 'count'],
    // Counts of households by income bracket: dollars in the title, but the values are counts.
    ['Household Income in the Past 12 Months (in 2018 Inflation-Adjusted Dollars)', 'count'],
    ['Geographical Mobility in the Past Year by Educational Attainment for Current Residence in the United States', 'count'],
    ['Average Household Size of Occupied Housing Units by Tenure', null],
    ['Gini Index of Income Inequality', null],
    ['Gross Rent as a Percentage of Household Income in the Past 12 Months', null],
    ['Aggregate Travel Time to Work (in Minutes) of Workers by Sex', null],
    [null, null],
  ] as const)('%s → %s', (title, unit) => {
    expect(inferCensusUnit(title)).toBe(unit);
  });
});
