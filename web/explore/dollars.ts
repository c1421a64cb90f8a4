// Dollar figures in the ACS are in the dollars of each survey year: the 2005 median is in 2005
// dollars, the 2018 one in 2018 dollars. The Bureau's labels name one year ("in 2018
// inflation-adjusted dollars"), which is wrong over a series, so the page takes the year out of
// the variable's name and labels each value with the year its dollars are of.
import type { Cell } from './api.js';

const DOLLAR_YEAR = /\s*\(in \d{4} inflation-adjusted dollars\)/gi;

/** A label without its "(in YYYY inflation-adjusted dollars)" (the year belongs to each value). */
export function withoutDollarYear(label: string): string {
  return label.replace(DOLLAR_YEAR, '').trim();
}

export const isDollars = (c: Pick<Cell, 'unit'> | undefined) => c?.unit === 'dollar';

/**
 * The year whose dollars a value is in. Today: its own survey year (what /v1 serves).
 * The hook for constant dollars: once /v1 takes `dollars=YYYY` (all years in one year's dollars,
 * adjusted with the Bureau's CPI-U-RS factors), the series request adds the parameter and this
 * returns the year the answer says its values are in, so every label below follows.
 */
export function dollarYearOf(c: Pick<Cell, 'vintage'>): number {
  return c.vintage;
}

/** "in 2005 dollars", for a dollar value; empty for anything else. */
export function dollarsNote(c: Pick<Cell, 'unit' | 'vintage'>): string {
  return isDollars(c) ? `in ${dollarYearOf(c)} dollars` : '';
}
