// The one reader of Census Data API response bodies (the files under api/): a JSON array of arrays
// whose first row names the columns and whose geography columns come last; every value is a
// string or null. `readApiTable` checks that shape (the online mode validates downloads with it
// before caching them); `parseApiBody` turns a body into observation rows. Anything else is a
// malformed input, reported with the file and row.
import { cleanCell, type AnnotationCode } from '../../src/domain/annotations.js';
import { ESTIMATE_COLUMN } from '../../src/domain/census-codes.js';
import { InputError } from '../step.js';

export type Level = 'nation' | 'state' | 'county' | 'metro' | 'cd' | 'tract' | 'block_group';

/** Geography columns as the API names them, and how they form our key. */
export interface GeoColumnSet {
  level: Level;
  columns: string[];
  key: (v: string[]) => string;
}
const GEO_COLUMN_SETS: GeoColumnSet[] = [
  { level: 'nation', columns: ['us'], key: () => 'nation:1' },
  { level: 'block_group', columns: ['state', 'county', 'tract', 'block group'], key: (v) => `block_group:${v.join('')}` },
  { level: 'tract', columns: ['state', 'county', 'tract'], key: (v) => `tract:${v.join('')}` },
  { level: 'county', columns: ['state', 'county'], key: (v) => `county:${v.join('')}` },
  { level: 'cd', columns: ['state', 'congressional district'], key: (v) => `cd:${v.join('')}` },
  { level: 'state', columns: ['state'], key: (v) => `state:${v[0]}` },
  {
    level: 'metro',
    columns: ['metropolitan statistical area/micropolitan statistical area'],
    key: (v) => `metro:${v[0]}`,
  },
];

export const FIPS_WIDTH: Record<string, number> = {
  us: 1,
  state: 2,
  county: 3,
  tract: 6,
  'block group': 1,
  'congressional district': 2,
  'metropolitan statistical area/micropolitan statistical area': 5,
};

// Table ids carry up to four letters after the digits: race iterations (B19013A) and Puerto Rico
// tables with an iteration (B07004GPR, regression: their columns were silently skipped).

export interface ObservationRow {
  geo_key: string;
  table_id: string;
  variable: string;
  estimate: number | null;
  moe: number | null;
  estimate_annotation: AnnotationCode | null;
  moe_annotation: AnnotationCode | null;
}

export interface ParsedBody {
  level: Level;
  /**
   * Every geography of the body, in row order: its key and its `NAME` as published (null when the
   * file has no NAME column). The geography reference of the vintage is built from these.
   */
  places: Array<[key: string, name: string | null]>;
  /** Table ids (groups) whose variables appear in the body. */
  tables: string[];
  geographies: number;
  variables: number;
  rows: ObservationRow[];
}

export type Cell = string | null;
export interface ApiTable {
  header: string[];
  rows: Cell[][];
}

/** A body that is not the API's shape; `row` is the index in the outer array (0 = header). */
export class BodyError extends Error {
  override name = 'BodyError';
  constructor(
    message: string,
    readonly row?: number,
  ) {
    super(message);
  }
}

/** The API's table shape: a header of strings, then rows of exactly as many strings or nulls. */
export function readApiTable(text: string): ApiTable {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new BodyError(`not valid JSON (${(e as Error).message}; ${text.length} characters)`);
  }
  if (!Array.isArray(json) || json.length === 0 || !Array.isArray(json[0])) {
    throw new BodyError('not a non-empty JSON array of arrays whose first row holds the column names');
  }
  const all = json as unknown[][];
  const header = all[0]!;
  if (header.length === 0 || !header.every((h) => typeof h === 'string'))
    throw new BodyError('the first row is not a header row of column names (strings)', 0);
  const names = header as string[];
  // Plain loops: this check runs over every cell of every source file (an ETL hot path).
  for (let i = 1; i < all.length; i++) {
    const row = all[i];
    if (!Array.isArray(row) || row.length !== names.length) {
      throw new BodyError(
        `row ${i} has ${Array.isArray(row) ? row.length : 'no'} cells, the header ${names.length} (expected ${names.length} cells)`,
        i,
      );
    }
    for (let c = 0; c < row.length; c++) {
      const cell: unknown = row[c];
      if (cell !== null && typeof cell !== 'string')
        throw new BodyError(
          `row ${i}, column ${names[c]}: ${JSON.stringify(cell)} is not a string or null (cells must be strings or null)`,
          i,
        );
    }
  }
  const rows = all.slice(1);
  return { header: names, rows: rows as Cell[][] };
}

/** Parse and clean one API body. `file` is only used in error messages. */
export function parseApiBody(text: string, file: string): ParsedBody {
  const rows: ObservationRow[] = [];
  const head = scanApiBody(text, file, (geo_key, table_id, variable, estimate, moe, estimate_annotation, moe_annotation) => {
    rows.push({ geo_key, table_id, variable, estimate, moe, estimate_annotation, moe_annotation });
  });
  return { ...head, rows };
}

/** Receives the rows of a body one by one, in row order then column order. */
export type RowSink = (
  geoKey: string,
  tableId: string,
  variable: string,
  estimate: number | null,
  moe: number | null,
  estimateAnnotation: AnnotationCode | null,
  moeAnnotation: AnnotationCode | null,
) => void;

/**
 * `parseApiBody` without the row objects: each row goes to `sink` (the ETL writes it straight to
 * its staging file), the rest is returned.
 */
export function scanApiBody(text: string, file: string, sink: RowSink): Omit<ParsedBody, 'rows'> & { rowCount: number } {
  let table: ApiTable;
  try {
    table = readApiTable(text);
  } catch (e) {
    if (e instanceof BodyError) throw new InputError(file, e.message, e.row);
    throw e;
  }
  const names = table.header;
  const json = [names, ...table.rows];
  const { geoSet, geoStart, repeats, geoIdIdx, nameIdx, variables } = headerPlan(names, file);

  let rowCount = 0;
  const places: ParsedBody['places'] = [];
  const seenPlaces = new Map<string, number>();
  for (let r = 1; r < json.length; r++) {
    const cells = json[r] as Cell[];
    for (const [a, b] of repeats) {
      if (cells[a] !== cells[b]) {
        throw new InputError(
          file,
          `column "${names[a]}" is repeated with different values (${JSON.stringify(cells[a])} and ${JSON.stringify(cells[b])})`,
          r,
        );
      }
    }
    const fips = cells.slice(geoStart).map((v, k) => {
      const col = geoSet.columns[k]!;
      if (v === null || !/^\d+$/.test(v) || v.length !== FIPS_WIDTH[col]) {
        throw new InputError(file, `bad ${col} code ${JSON.stringify(v)}`, r);
      }
      return v;
    });
    const geoKey = geoSet.key(fips);
    // One row per geography: an exact repeat of a row adds nothing and is skipped; a second,
    // different row for the same geography would make its values ambiguous.
    const again = seenPlaces.get(geoKey);
    if (again !== undefined) {
      if (JSON.stringify(json[again]) === JSON.stringify(cells)) continue;
      throw new InputError(file, `geography ${geoKey} appears in more than one row with different values`, r);
    }
    seenPlaces.set(geoKey, r);
    const placeName = nameIdx === undefined ? null : cells[nameIdx]?.trim() || null;
    places.push([geoKey, placeName]);
    if (geoIdIdx !== undefined) {
      // GEO_ID ends with the concatenated FIPS code; a mismatch means columns were misaligned.
      const geoId = cells[geoIdIdx];
      if (geoId && geoSet.level !== 'nation' && !geoId.endsWith(fips.join(''))) {
        throw new InputError(file, `GEO_ID ${geoId} does not match the geography columns ${fips.join('')}`, r);
      }
    }
    for (const v of variables) {
      // The API answers null for every cell of a table that is not tabulated for a geography
      // (e.g. Puerto Rico-only tables for the states). Such cells are not stored: the partition's
      // table list (observations/index.json) tells "not published here" from "not loaded".
      if (
        v.ea !== undefined &&
        cells[v.e] === null &&
        (v.m === undefined || cells[v.m] === null) &&
        !cells[v.ea] &&
        (v.ma === undefined || !cells[v.ma])
      ) {
        continue;
      }
      const { estimate, moe, estimateAnnotation, moeAnnotation } = cellValues(v, cells, file, r);
      sink(geoKey, v.table, v.variable, estimate, moe, estimateAnnotation, moeAnnotation);
      rowCount++;
    }
  }
  return {
    level: geoSet.level,
    places,
    tables: [...new Set(variables.map((v) => v.table))],
    geographies: json.length - 1,
    variables: variables.length,
    rowCount,
  };
}

/** One estimate column of a body and its companions' positions (MOE, annotations). */
export interface VariableColumns {
  table: string;
  variable: string;
  e: number;
  m?: number;
  ea?: number;
  ma?: number;
}

/** What the header says of a body: its geography columns, repeated columns, and variables. */
export interface HeaderPlan {
  geoSet: GeoColumnSet;
  geoStart: number;
  /** A repeated column name (the API repeats NAME and GEO_ID for `get=NAME,group(X)`): first and later position. */
  repeats: Array<[first: number, again: number]>;
  geoIdIdx: number | undefined;
  nameIdx: number | undefined;
  variables: VariableColumns[];
}

/** Reads a header row; shared by the string reader (scanApiBody) and the byte reader (api-body-bytes.ts). */
export function headerPlan(names: string[], file: string): HeaderPlan {
  const geoSet = GEO_COLUMN_SETS.find((s) => {
    const tail = names.slice(names.length - s.columns.length);
    return tail.length === s.columns.length && tail.every((c, i) => c === s.columns[i]);
  });
  if (!geoSet) {
    throw new InputError(file, `no recognised geography columns at the end of the header (got ${names.slice(-2).join(', ')})`, 0);
  }
  const geoStart = names.length - geoSet.columns.length;
  // A repeated column name is one column published twice: the first occurrence is read, and every
  // row must agree across the copies.
  const index = new Map<string, number>();
  const repeats: Array<[first: number, again: number]> = [];
  for (const [i, n] of names.entries()) {
    const first = index.get(n);
    if (first === undefined) index.set(n, i);
    else if (i < geoStart) repeats.push([first, i]);
  }
  const variables: VariableColumns[] = [];
  for (const [i, name] of names.entries()) {
    // Most columns are not estimates (MOE, annotations): the last letter rules them out first.
    if (name.charCodeAt(name.length - 1) !== 0x45 || i >= geoStart) continue;
    const match = ESTIMATE_COLUMN.exec(name);
    if (!match || index.get(name) !== i) continue;
    const base = name.slice(0, -1);
    variables.push({
      table: match[1]!,
      variable: name,
      e: i,
      m: index.get(`${base}M`),
      ea: index.get(`${base}EA`),
      ma: index.get(`${base}MA`),
    });
  }
  return { geoSet, geoStart, repeats, geoIdIdx: index.get('GEO_ID'), nameIdx: index.get('NAME'), variables };
}

/**
 * The estimate and MOE of one variable in one row, cleaned (jam values → null + annotation),
 * `cells[i]` being column i's published text. Row `r` is only for error messages.
 */
export function cellValues(
  v: VariableColumns,
  cells: ArrayLike<Cell>,
  file: string,
  r: number,
): { estimate: number | null; moe: number | null; estimateAnnotation: AnnotationCode | null; moeAnnotation: AnnotationCode | null } {
  // Most cells are a plain number with no annotation: taken as is (exact by construction, see
  // plainNumber). Everything else goes through the full rules below.
  let estimate: number | null | undefined = v.ea === undefined || blank(cells[v.ea]) ? plainNumber(cells[v.e]!) : undefined;
  let estimateAnnotation: AnnotationCode | null = null;
  if (estimate === undefined) {
    const est = symbolCell(cells[v.e] ?? null, 'E') ?? cleanCell(cells[v.e] ?? null, v.ea === undefined ? undefined : cells[v.ea], 'E');
    if (!est) throw new InputError(file, `${v.variable} is not a number: ${JSON.stringify(cells[v.e])}`, r);
    if (est.value !== null) checkExact(cells[v.e] ?? null, est.value, v.variable, file, r);
    estimate = est.value;
    estimateAnnotation = est.annotation;
  }
  let moe: number | null | undefined = null;
  let moeAnnotation: AnnotationCode | null = 'missing_in_source';
  if (v.m !== undefined) {
    moe = v.ma === undefined || blank(cells[v.ma]) ? plainNumber(cells[v.m]!) : undefined;
    moeAnnotation = null;
    if (moe === undefined) {
      const m = symbolCell(cells[v.m] ?? null, 'M') ?? cleanCell(cells[v.m] ?? null, v.ma === undefined ? undefined : cells[v.ma], 'M');
      if (!m) throw new InputError(file, `${v.variable.slice(0, -1)}M is not a number: ${JSON.stringify(cells[v.m])}`, r);
      if (m.value !== null) checkExact(cells[v.m] ?? null, m.value, `${v.variable.slice(0, -1)}M`, file, r);
      moe = m.value;
      moeAnnotation = m.annotation;
    }
  }
  return { estimate, moe, estimateAnnotation, moeAnnotation };
}

const blank = (annotation: Cell | undefined) => annotation === undefined || annotation === null || annotation === '';

/**
 * The number a cell publishes when its string is exactly that number's canonical spelling (no
 * blanks, no leading or trailing zeros, no exponent JavaScript would not write): then the stored
 * double prints as published, which is what checkExact proves the long way, and it is no jam
 * value (all ≤ -100,000,000) nor a symbol. Undefined for anything else, which takes the full rules.
 */
export function plainNumber(raw: Cell): number | undefined {
  if (raw === null) return undefined;
  const n = Number(raw);
  return n > -100_000_000 && n < Infinity && String(n) === raw ? n : undefined;
}

/**
 * A published number as a sign, its significant digits and a power of ten, so that `"2.70"`,
 * `"2.7"` and `"27e-1"` compare equal. Null for anything that is not a plain decimal number (the
 * API writes none; `Number()` would also read `"0x1A"` or `" 5"`, which must not pass as values).
 */
function decimalOf(s: string): string | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const digits = `${m[2]}${m[3] ?? ''}`;
  const lead = digits.search(/[1-9]/);
  if (lead < 0) return '0';
  const trimmed = digits.slice(lead).replace(/0+$/, '');
  // Power of ten of the first significant digit.
  const exp = m[2]!.length - lead - 1 + Number(m[4] ?? 0);
  return `${m[1] === '-' ? '-' : ''}${trimmed}e${exp}`;
}

/**
 * Values are stored and served as IEEE doubles: every integer up to 2^53 and every decimal the
 * Bureau publishes survive unchanged, so a value that would not (an integer beyond 2^53 that a
 * double cannot hold, or more than ~16 significant digits) stops the build rather than being served
 * rounded. No ACS value comes near: the largest national aggregates are about 10^14.
 */
function checkExact(raw: string | null, value: number | null, column: string, file: string, row: number): void {
  if (raw === null || value === null) return;
  const published = decimalOf(raw);
  if (published === null) throw new InputError(file, `${column} is not a decimal number: ${JSON.stringify(raw)}`, row);
  if (published !== decimalOf(String(value))) {
    throw new InputError(
      file,
      `${column} value ${raw} cannot be stored exactly (a double holds it as ${String(value)}); refusing to serve a rounded number`,
      row,
    );
  }
}

/**
 * The symbols data.census.gov exports write in place of a number (README §1c: `*****` for a
 * controlled MOE). They mean exactly what the jam value would: null with that symbol's annotation
 * (the mapping is cleanCell's, asked with a placeholder number). Interval texts such as `250,000+`
 * are not accepted as values: the number the API publishes for them (250001) is not in the text.
 */
const NUMBER_SYMBOLS = new Set(['*****', '***', '**', '-', 'N', '(X)']);
function symbolCell(raw: string | null, kind: 'E' | 'M'): ReturnType<typeof cleanCell> {
  const t = raw?.trim();
  if (!t || !NUMBER_SYMBOLS.has(t)) return undefined;
  const c = cleanCell('0', t, kind);
  return c ? { value: null, annotation: c.annotation } : undefined;
}
