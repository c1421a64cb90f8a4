// CSV rendering for `format=csv`. Spreadsheet applications execute a cell that starts with
// = + - @ (or a tab / carriage return) as a formula, so such text cells get a leading apostrophe.
// Numbers are written as numbers, digit for digit as the JSON body writes them (JSON.stringify):
// a negative estimate is data, not a formula, and quoting it would turn it into text.
import { stringify } from 'csv-stringify/sync';
import { checkRowCap } from '../domain/row-cap.js';

export const CSV_ROW_CAP = 10_000;
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvCell = string | number | boolean | null | undefined;

export function escapeCell(v: CsvCell): string | number | boolean | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v;
  return FORMULA_START.test(v) ? `'${v}` : v;
}

export interface CsvTable {
  columns: string[];
  rows: CsvCell[][];
  /** Download name; sanitised to a safe token and given a .csv extension. */
  filename: string;
}

export function safeFilename(name: string): string {
  const base = name
    .replace(/\.csv$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 100);
  return `${base || 'export'}.csv`;
}

/**
 * Render a table, refusing (413 payload-too-large) rather than truncating past the cap: a silently
 * shortened file is easy to mistake for the whole result. The detail tells the caller how to
 * narrow the request.
 */
export function renderCsv(table: CsvTable, cap: number = CSV_ROW_CAP): string {
  checkRowCap(table.rows.length, cap);
  const header = table.columns.map((c) => escapeCell(c));
  return stringify([header, ...table.rows.map((r) => r.map(escapeCell))], {
    cast: { boolean: (b) => (b ? 'true' : 'false'), number: (n) => JSON.stringify(n) },
    record_delimiter: 'unix',
  });
}

export function contentDisposition(filename: string): string {
  return `attachment; filename="${safeFilename(filename)}"`;
}
