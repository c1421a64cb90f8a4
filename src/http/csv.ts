// CSV rendering for `format=csv`. Spreadsheet applications execute a cell that starts with
// = + - @ (or a tab / carriage return) as a formula, so such text cells get a leading apostrophe.
// Numbers are written as numbers, digit for digit as the JSON body writes them (JSON.stringify):
// a negative estimate is data, not a formula, and quoting it would turn it into text.
//
// Large tables are streamed (csvBody): csv-stringify renders ten thousand rows in 40–160 ms, which held
// the event loop for every other request; in slices of CSV_SLICE_ROWS it yields between slices.
import { Readable } from 'node:stream';
import { stringify, type Options } from 'csv-stringify/sync';
import { checkRowCap } from '../domain/row-cap.js';

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
 * Render a table. With a cap, more rows are refused (413 payload-too-large) rather than truncated:
 * a silently shortened file is easy to mistake for the whole result. The plan's cap is the verb's
 * (src/verbs/lifecycle/lifecycle.ts applies it before any value is read); this renderer has none of its own.
 */
export function renderCsv(table: CsvTable, cap?: number): string {
  if (cap !== undefined) checkRowCap(table.rows.length, cap);
  return renderRows([table.columns.map((c) => escapeCell(c)), ...table.rows.map((r) => r.map(escapeCell))]);
}

const STRINGIFY_OPTIONS: Options = {
  cast: { boolean: (b) => (b ? 'true' : 'false'), number: (n) => JSON.stringify(n) },
  record_delimiter: 'unix',
};

// Every record ends with its delimiter, so slices rendered apart concatenate to the same bytes.
const renderRows = (rows: unknown[][]): string => stringify(rows, STRINGIFY_OPTIONS);

/** Tables up to this many rows are rendered at once; longer ones are streamed a slice at a time. */
export const CSV_STREAM_MIN_ROWS = 1_000;
/** About 2–5 ms of csv-stringify work per slice. */
const CSV_SLICE_ROWS = 250;

/**
 * The CSV body for a reply: a string for small tables, else a stream of the same bytes, rendered a
 * slice at a time with a turn of the event loop between slices. The cap is checked up front either
 * way, so an oversized export is refused (413) before any byte is sent.
 */
export function csvBody(table: CsvTable, cap?: number): string | Readable {
  if (table.rows.length <= CSV_STREAM_MIN_ROWS) return renderCsv(table, cap);
  if (cap !== undefined) checkRowCap(table.rows.length, cap);
  const { rows } = table;
  async function* slices(): AsyncGenerator<string> {
    yield renderRows([table.columns.map((c) => escapeCell(c))]);
    for (let i = 0; i < rows.length; i += CSV_SLICE_ROWS) {
      await new Promise((r) => setImmediate(r));
      yield renderRows(rows.slice(i, i + CSV_SLICE_ROWS).map((r) => r.map(escapeCell)));
    }
  }
  return Readable.from(slices(), { objectMode: false });
}

export function contentDisposition(filename: string): string {
  return `attachment; filename="${safeFilename(filename)}"`;
}
