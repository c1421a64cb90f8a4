// The explorer's human labels for raw census codes (the Bureau's "Estimate!!Total:!!…" paths),
// with labels as the API returns them for the test build.
import { describe, expect, it } from 'vitest';
import { cleanLabel, humanLabel, isRawLabel } from '../../web/explore/api.js';

describe('human labels for raw census codes', () => {
  it('joins the table title and the cleaned path', () => {
    expect(
      humanLabel({
        label: 'Total:!!Income in the past 12 months below poverty level:!!Male:!!18 to 24 years',
        table_title: 'Poverty Status in the Past 12 Months by Sex by Age',
      }),
    ).toBe('Poverty Status in the Past 12 Months by Sex by Age: Income in the past 12 months below poverty level › Male › 18 to 24 years');
    expect(cleanLabel('Estimate!!Total!!Male')).toBe('Male');
  });

  it('names a table’s total by the table', () => {
    expect(humanLabel({ label: 'Estimate!!Total', table_title: 'Total Population' })).toBe('Total Population');
    expect(humanLabel({ label: 'Total:', table_title: 'Sex by Age' })).toBe('Sex by Age');
  });

  it('does not repeat a one-line table’s title, even with another year’s dollars in it', () => {
    expect(
      humanLabel({
        label: 'Estimate!!Median household income in the past 12 months (in 2018 inflation-adjusted dollars)',
        table_title: 'Median Household Income in the Past 12 Months (In 2024 Inflation-adjusted Dollars)',
      }),
    ).toBe('Median household income in the past 12 months (in 2018 inflation-adjusted dollars)');
  });

  it('leaves catalog labels alone', () => {
    const label = 'Poverty rate: share of people for whom poverty status is determined with income below the poverty level';
    expect(isRawLabel(label)).toBe(false);
    expect(humanLabel({ label, table_title: null })).toBe(label);
  });
});
