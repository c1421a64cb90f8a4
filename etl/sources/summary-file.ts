// The reader of the ACS table-based Summary File (2021 1-year and 2017–2021 5-year releases on),
// following "Using the American Community Survey Table-Based Summary File: What Data Users Need to
// Know" (U.S. Census Bureau, October 2023) and the release's table-based Summary File
// documentation (docs/sources.md, "ACS Summary File"):
//
// - one pipe-delimited data file per table, `acsdt5y{YYYY}-{table}.dat` (`acsdt1y…` for 1-year),
//   header `GEO_ID|{TABLE}_E001|{TABLE}_M001|…`, one row per geography of every summary level;
//   estimates and margins of error only: there are no EA/MA columns, so what the Data API says with
//   an annotation the Summary File says with the same special values (-666666666, -999999999,
//   -888888888, -222222222, -333333333, -555555555) in the value fields, and an empty field is a
//   value not available (both empty: not tabulated for that geography);
// - the geography file `Geos{YYYY}5YR.txt`, pipe-delimited with a header row
//   (`FILEID|STUSAB|SUMLEVEL|COMPONENT|…|GEO_ID|NAME|…`): each GEO_ID's summary level,
//   geographic component and NAME.
//
// Both are read line by line from disk (never a whole file in memory); cells are cleaned with the
// Data API reader's own rules (cellValues), so a jam value means the same thing from either source.
import fs from 'node:fs';
import { cellValues, plainNumber, type VariableColumns } from './api-body.js';
import type { AnnotationCode } from '../../src/domain/annotations.js';
import { SUMMARY_LEVELS } from '../../src/domain/census-api/levels.js';
import { FIPS_LENGTH, type GeoType } from '../../src/domain/geo/keys.js';
import { InputError } from '../step.js';

export type SummaryLevel = GeoType;

/** Summary level codes (the Geos file's SUMLEVEL, the GEO_ID's first three digits) of our seven levels. */
export const SUMLEVEL: Readonly<Record<string, SummaryLevel>> = SUMMARY_LEVELS;

/**
 * Our key and state of a Summary File GEO_ID of `level` (both formats: the table-based Geos file's
 * GEO_ID, the sequence-based geography file's GEOID); undefined for an area without a code of its
 * own (a state's `ZZ` district: "not defined"). `bad` makes the error for a GEO_ID of the wrong shape.
 */
export function summaryKey(
  level: SummaryLevel,
  geoId: string,
  bad: (why: string) => Error,
): { key: string; state: string; code: string } | undefined {
  const at = geoId.indexOf('US');
  const code = at < 0 ? '' : geoId.slice(at + 2);
  // Digits after `US`: state, county, CBSA, state + district, tract, block group; none for the nation.
  const width = level === 'nation' ? 0 : FIPS_LENGTH[level];
  if (at < 0 || code.length !== width) throw bad(`is not of a ${level} (${width} characters after US)`);
  if (!/^\d*$/.test(code)) return undefined;
  const state = level === 'nation' || level === 'metro' ? '' : code.slice(0, 2);
  return { key: level === 'nation' ? 'nation:1' : `${level}:${code}`, state, code };
}

/** A geography of the Geos file that the selection keeps. */
export interface SummaryGeo {
  level: SummaryLevel;
  /** Our key (`tract:48453001100`). */
  key: string;
  /** 2-digit state FIPS, or '' for the nation and metros. */
  state: string;
  name: string;
}

/** Which geographies to keep: levels, and states (undefined = all) for the levels inside a state. */
export interface GeoFilter {
  levels: ReadonlySet<SummaryLevel>;
  states?: ReadonlySet<string>;
}

/**
 * Lines of a file, read in chunks from disk: `fn(line, lineNumber)` for each (1-based, without the
 * line ending). Decoded as UTF-8 (the 2021-on files are; the Geos names carry accents).
 */
export function forEachLine(file: string, fn: (line: string, n: number) => void): void {
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(4 << 20);
  let carry: Buffer = Buffer.alloc(0);
  let n = 0;
  try {
    for (;;) {
      const got = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, got)]) : chunk.subarray(0, got);
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
        const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
        fn(buf.toString('utf8', start, end), ++n);
        start = nl + 1;
      }
      // What is left is the start of the next line: copied, since `chunk` is read into again.
      carry = Buffer.from(buf.subarray(start));
    }
    if (carry.length) fn(carry.toString('utf8').replace(/\r$/, ''), ++n);
  } finally {
    fs.closeSync(fd);
  }
}

/** The Geos file's geographies of the filter's levels and states (whole geographies: COMPONENT 00), by GEO_ID. */
export function readGeos(file: string, filter: GeoFilter): Map<string, SummaryGeo> {
  const out = new Map<string, SummaryGeo>();
  let col: Record<string, number> = {};
  forEachLine(file, (line, n) => {
    const f = line.split('|');
    if (n === 1) {
      col = Object.fromEntries(f.map((c, i) => [c.trim(), i]));
      for (const need of ['SUMLEVEL', 'COMPONENT', 'GEO_ID', 'NAME'])
        if (col[need] === undefined)
          throw new InputError(file, `no ${need} column in the header (a Geos file starts with FILEID|STUSAB|SUMLEVEL|…)`, 0);
      return;
    }
    if (line === '') return;
    const level = SUMLEVEL[f[col.SUMLEVEL!]!];
    if (!level || !filter.levels.has(level) || f[col.COMPONENT!] !== '00') return;
    const geoId = f[col.GEO_ID!]!;
    const got = summaryKey(level, geoId, (why) => new InputError(file, `GEO_ID ${JSON.stringify(geoId)} ${why}`, n));
    if (!got) return;
    if (filter.states && got.state !== '' && !filter.states.has(got.state)) return;
    out.set(geoId, { level, key: got.key, state: got.state, name: f[col.NAME!]!.trim() });
  });
  return out;
}

/** One estimate column of a data file: its variable (`B01001_001E`) and the positions of E and M. */
export interface DatColumn {
  variable: string;
  e: number;
  m: number | undefined;
}

/** The estimate columns of a data file's header, kept when `keep` says so (undefined: all). */
export function datColumns(header: string, table: string, file: string, keep?: ReadonlySet<string>): DatColumn[] {
  const names = header.split('|');
  if (names[0] !== 'GEO_ID') throw new InputError(file, `the header does not start with GEO_ID (got ${JSON.stringify(names[0])})`, 1);
  const index = new Map(names.map((c, i) => [c, i]));
  const out: DatColumn[] = [];
  for (const [i, name] of names.entries()) {
    const m = /^([A-Z]+[0-9]+[A-Z0-9]*)_E(\d{3})$/.exec(name);
    if (!m) continue;
    if (m[1] !== table) throw new InputError(file, `column ${name} is not of table ${table}`, 1);
    const variable = `${table}_${m[2]}E`;
    if (keep && !keep.has(variable)) continue;
    out.push({ variable, e: i, m: index.get(`${table}_M${m[2]}`) });
  }
  return out;
}

/** A cleaned cell and the published text of its estimate and MOE. */
export interface SummaryCell {
  variable: string;
  estimate: number | null;
  moe: number | null;
  estimateAnnotation: AnnotationCode | null;
  moeAnnotation: AnnotationCode | null;
  /** Published text of E and M ('' when empty). */
  e: string;
  m: string;
  /** Both plain numbers without annotation: their text is how JavaScript prints them (plainNumber). */
  plain: boolean;
}

/**
 * Every row of a data file whose GEO_ID is in `geos`: `onRow(geo, geoId, cells)` with the row's
 * cleaned cells (a variable whose E and M are both empty is not tabulated there: left out).
 * Returns the number of data rows read.
 */
export function scanDatFile(
  file: string,
  table: string,
  geos: ReadonlyMap<string, SummaryGeo>,
  keep: ReadonlySet<string> | undefined,
  onRow: (geo: SummaryGeo, geoId: string, cells: SummaryCell[]) => void,
): { rows: number; columns: DatColumn[] } {
  let columns: DatColumn[] = [];
  let width = 0;
  let rows = 0;
  forEachLine(file, (line, n) => {
    if (n === 1) {
      columns = datColumns(line, table, file, keep);
      width = line.split('|').length;
      return;
    }
    if (line === '') return;
    rows++;
    const bar = line.indexOf('|');
    const geoId = bar < 0 ? line : line.slice(0, bar);
    const geo = geos.get(geoId);
    if (!geo) return;
    const f = line.split('|');
    if (f.length !== width) throw new InputError(file, `${f.length} fields, the header has ${width}`, n);
    const cells: SummaryCell[] = [];
    for (const c of columns) {
      const cell = summaryCell(table, c.variable, f[c.e]!, c.m === undefined ? '' : f[c.m]!, c.m !== undefined, file, n);
      if (cell) cells.push(cell);
    }
    onRow(geo, geoId, cells);
  });
  return { rows, columns };
}

const pair: Array<string | null> = [null, null];

/**
 * One cell from the published text of its estimate and MOE ('' = empty field), by the Data API
 * reader's rules; undefined when both are empty (not tabulated for that geography: not stored).
 * Shared by the table-based and the sequence-based readers.
 */
export function summaryCell(
  table: string,
  variable: string,
  e: string,
  m: string,
  hasM: boolean,
  file: string,
  n: number,
): SummaryCell | undefined {
  if (e === '' && m === '') return undefined;
  const ev = e === '' ? undefined : plainNumber(e);
  const mv = !hasM || m === '' ? undefined : plainNumber(m);
  if (ev !== undefined && mv !== undefined)
    return { variable, estimate: ev, moe: mv, estimateAnnotation: null, moeAnnotation: null, e, m, plain: true };
  // Anything but two plain numbers takes the Data API reader's full rules (jam values, blanks).
  pair[0] = e === '' ? null : e;
  pair[1] = m === '' ? null : m;
  const v: VariableColumns = { table, variable, e: 0, ...(hasM ? { m: 1 } : {}) };
  return { variable, ...cellValues(v, pair, file, n), e, m, plain: false };
}
