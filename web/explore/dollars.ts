// Dollar figures in the ACS are in the dollars of each survey year: the 2005 median is in 2005
// dollars, the 2018 one in 2018 dollars. The Bureau's labels name one year ("in 2018
// inflation-adjusted dollars"), which is wrong over a series, so the page takes the year out of
// the variable's name and labels each value with the year its dollars are of. A reader may ask for
// constant dollars instead (`dollars=YYYY`: every year restated in one year's dollars with the
// CPI-U-RS, the index the Bureau uses for ACS income comparisons); the labels then say that year.
import type { Cell } from './api.js';

// Both the Bureau's "(in 2018 inflation-adjusted dollars)" and the catalog's "(in inflation-adjusted
// dollars of the survey year)": with constant dollars neither is true, and each value says its year.
const DOLLAR_YEAR = /\s*\(in (?:\d{4} )?inflation-adjusted dollars(?: of the survey year)?\)/gi;

/** A label without its "(in YYYY inflation-adjusted dollars)" (the year belongs to each value). */
export function withoutDollarYear(label: string): string {
  return label.replace(DOLLAR_YEAR, '').trim();
}

export const isDollars = (c: Pick<Cell, 'unit'> | undefined) => c?.unit === 'dollar';

/**
 * The year whose dollars a value is in: its own survey year as published, or, when the request
 * asked for `dollars=YYYY`, the year the API says it restated the value in (CPI-U-RS).
 */
export function dollarYearOf(c: Pick<Cell, 'vintage' | 'dollars'>): number {
  return c.dollars?.adjusted ? c.dollars.target_year : c.vintage;
}

/** The one year every dollar value of a series was restated in, or null when they are as published. */
export function constantDollarYear(cells: Pick<Cell, 'unit' | 'vintage' | 'dollars' | 'estimate'>[]): number | null {
  const dollars = cells.filter((c) => isDollars(c) && c.estimate !== null);
  const years = new Set(dollars.map((c) => (c.dollars?.adjusted ? c.dollars.target_year : null)));
  const [only] = [...years];
  return years.size === 1 && typeof only === 'number' ? only : null;
}

/** "in 2005 dollars", for a dollar value; empty for anything else. */
export function dollarsNote(c: Pick<Cell, 'unit' | 'vintage' | 'dollars'>): string {
  return isDollars(c) ? `in ${dollarYearOf(c)} dollars` : '';
}
