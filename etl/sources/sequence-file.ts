// The reader of the ACS sequence-based Summary File (the 5-year releases before the table-based
// one: 2010–2020 read here), following each release's _ACS Summary File Technical Documentation_
// (e.g. "2015 ACS 1-year and 2011-2015 ACS 5-year Data Releases: ACS Summary File Technical
// Documentation", U.S. Census Bureau, September 2016; "The 2007-2011 ACS 5-Year Summary File
// Technical Documentation") and "Understanding and Using the American Community Survey Summary
// File: What Data Users Need to Know" (U.S. Census Bureau, September 2019). docs/sources.md,
// "Sequence-based Summary File", says what is verified and what is not.
//
// - Estimates and margins of error come in one file pair per state and sequence,
//   `e{YYYY}5{st}{ssss}000.txt` / `m…`, comma-separated, no header: FILEID, FILETYPE, STUSAB,
//   CHARITER, SEQUENCE, LOGRECNO, then the sequence's cells. The Bureau zips each pair as
//   `{YYYY}5{st}{ssss}000.zip`, per state, in two folders: `Tracts_Block_Groups_Only` and
//   `All_Geographies_Not_Tracts_Block_Groups` (the same file names, different rows).
// - The geography file `g{YYYY}5{st}.csv` (no header, the fixed columns of the documentation's
//   geography record layout: FILEID, STUSAB, SUMLEVEL, COMPONENT, LOGRECNO, … GEOID (49th), NAME
//   (50th) …), Latin-1; LOGRECNO joins it to the data rows of the same state and folder.
// - The sequence/table lookup (`ACS_5yr_Seq_Table_Number_Lookup.txt`, CSV with a header: File ID,
//   Table ID, Sequence Number, Line Number, Start Position, Total Cells in Table, Total Cells in
//   Sequence, Table Title, Subject Area): per table and sequence its start position (1-based,
//   counting the six leading fields) and its lines; line L of a table is at start + L − (its first
//   line in that sequence). Lines that are not whole numbers (headings such as 0.5) hold no cell.
// - Special values: the technical documentation's "." (estimate unavailable) and a blank field
//   (filtered or geographically restricted) are a value not available, as an empty field of the
//   table-based file; the numeric codes (-666666666, -999999999, -888888888, -222222222,
//   -333333333, -555555555) are read by the Data API reader's own rules (cellValues), so /v1 gives
//   null with the same annotation code. A margin of error of -1 (the sample-count and quality
//   tables B00001, B00002, B98*, B99*, which have none) is read as no margin of error.
//
// Everything is read line by line from disk: each sequence zip is inflated to two temporary files
// (fflate's streaming Unzip), which are then read in step; memory is one row at a time plus the
// geographies of one state's folder.
import fs from 'node:fs';
import path from 'node:path';
import { Unzip, UnzipInflate } from 'fflate';
import { InputError } from '../step.js';
import { summaryCell, summaryKey, SUMLEVEL, type SummaryCell, type SummaryGeo, type SummaryLevel } from './summary-file.js';

/** The 50 states, DC and Puerto Rico: FIPS → USPS code and the Bureau's folder name. */
export const SEQUENCE_STATES: Record<string, [usps: string, folder: string]> = {
  '01': ['al', 'Alabama'], '02': ['ak', 'Alaska'], '04': ['az', 'Arizona'], '05': ['ar', 'Arkansas'], '06': ['ca', 'California'],
  '08': ['co', 'Colorado'], '09': ['ct', 'Connecticut'], '10': ['de', 'Delaware'], '11': ['dc', 'DistrictOfColumbia'],
  '12': ['fl', 'Florida'], '13': ['ga', 'Georgia'], '15': ['hi', 'Hawaii'], '16': ['id', 'Idaho'], '17': ['il', 'Illinois'],
  '18': ['in', 'Indiana'], '19': ['ia', 'Iowa'], '20': ['ks', 'Kansas'], '21': ['ky', 'Kentucky'], '22': ['la', 'Louisiana'],
  '23': ['me', 'Maine'], '24': ['md', 'Maryland'], '25': ['ma', 'Massachusetts'], '26': ['mi', 'Michigan'], '27': ['mn', 'Minnesota'],
  '28': ['ms', 'Mississippi'], '29': ['mo', 'Missouri'], '30': ['mt', 'Montana'], '31': ['ne', 'Nebraska'], '32': ['nv', 'Nevada'],
  '33': ['nh', 'NewHampshire'], '34': ['nj', 'NewJersey'], '35': ['nm', 'NewMexico'], '36': ['ny', 'NewYork'],
  '37': ['nc', 'NorthCarolina'], '38': ['nd', 'NorthDakota'], '39': ['oh', 'Ohio'], '40': ['ok', 'Oklahoma'], '41': ['or', 'Oregon'],
  '42': ['pa', 'Pennsylvania'], '44': ['ri', 'RhodeIsland'], '45': ['sc', 'SouthCarolina'], '46': ['sd', 'SouthDakota'],
  '47': ['tn', 'Tennessee'], '48': ['tx', 'Texas'], '49': ['ut', 'Utah'], '50': ['vt', 'Vermont'], '51': ['va', 'Virginia'],
  '53': ['wa', 'Washington'], '54': ['wv', 'WestVirginia'], '55': ['wi', 'Wisconsin'], '56': ['wy', 'Wyoming'], '72': ['pr', 'PuertoRico'],
}; // prettier-ignore

/** The nation's folder (`us`): the nation and the metros, which no state's files hold. */
export const US_FOLDER: [usps: string, folder: string] = ['us', 'UnitedStates'];
export const TRACT_GROUP = 'Tracts_Block_Groups_Only';
export const OTHER_GROUP = 'All_Geographies_Not_Tracts_Block_Groups';
export type SequenceGroup = typeof TRACT_GROUP | typeof OTHER_GROUP;

/** First and last 5-year releases read here (2009's folders are laid out otherwise; 2021 on: table-based). */
export const FIRST_SEQUENCE_VINTAGE = 2010;
export const LAST_SEQUENCE_VINTAGE = 2020;

/**
 * Where a release's files are below --files-base. 2015–2020: `programs-surveys/acs/summary_file/{Y}/
 * data/5_year_seq_by_state/{State}/{group}/` and the lookup in `documentation/user_tools/`; 2014:
 * the same folders, the lookup beside the states; 2010–2013: the old `acs{Y}_5yr/summaryfile/`
 * tree (`{Y-4}-{Y}_ACSSF_By_State_By_Sequence_Table_Subset/{State}/{group}/`,
 * `Sequence_Number_and_Table_Number_Lookup.txt`).
 */
export function sequenceLayout(vintage: number): {
  lookup: string;
  lookupName: string;
  folder: (state: string, group: SequenceGroup) => string;
} {
  if (vintage <= 2013) {
    const root = `/acs${vintage}_5yr/summaryfile`;
    const base = `${root}/${vintage - 4}-${vintage}_ACSSF_By_State_By_Sequence_Table_Subset`;
    const lookupName = 'Sequence_Number_and_Table_Number_Lookup.txt';
    return { lookup: `${root}/${lookupName}`, lookupName, folder: (s, g) => `${base}/${s}/${g}` };
  }
  const base = `/programs-surveys/acs/summary_file/${vintage}/data/5_year_seq_by_state`;
  const lookupName = 'ACS_5yr_Seq_Table_Number_Lookup.txt';
  const lookup =
    vintage === 2014 ? `${base}/${lookupName}` : `/programs-surveys/acs/summary_file/${vintage}/documentation/user_tools/${lookupName}`;
  return { lookup, lookupName, folder: (s, g) => `${base}/${s}/${g}` };
}

export const geographyFileName = (vintage: number, usps: string) => `g${vintage}5${usps}.csv`;
export const sequenceZipName = (vintage: number, usps: string, seq: number) => `${vintage}5${usps}${String(seq).padStart(4, '0')}000.zip`;

/** The folders (state, group) holding a selection's levels, and the levels each is read for. */
export function sequenceFolders(
  levels: readonly string[],
  states: readonly string[],
): Array<{ usps: string; folder: string; group: SequenceGroup; levels: SummaryLevel[] }> {
  const pick = (ls: SummaryLevel[]) => ls.filter((l) => levels.includes(l));
  const out: Array<{ usps: string; folder: string; group: SequenceGroup; levels: SummaryLevel[] }> = [];
  const national = pick(['nation', 'metro']);
  if (national.length) out.push({ usps: US_FOLDER[0], folder: US_FOLDER[1], group: OTHER_GROUP, levels: national });
  for (const st of [...states].sort()) {
    const s = SEQUENCE_STATES[st];
    if (!s) continue;
    const other = pick(['state', 'county', 'cd']);
    if (other.length) out.push({ usps: s[0], folder: s[1], group: OTHER_GROUP, levels: other });
    const small = pick(['tract', 'block_group']);
    if (small.length) out.push({ usps: s[0], folder: s[1], group: TRACT_GROUP, levels: small });
  }
  return out;
}

/** Fields of one CSV line (quotes as RFC 4180: the lookup's titles and the geography names hold commas). */
export function csvFields(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error('an unterminated quote');
        s += line.slice(i, q);
        if (line[q + 1] === '"') {
          s += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(s);
    } else {
      const c = line.indexOf(',', i);
      out.push(line.slice(i, c < 0 ? line.length : c));
      i = c < 0 ? line.length : c;
    }
    if (i >= line.length) return out;
    i++; // the comma
    if (i === line.length) {
      out.push('');
      return out;
    }
  }
}

/** Lines of a file pulled one at a time (two files are read in step: estimates and MOEs). */
export class LineReader {
  private readonly fd: number;
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private eof = false;
  n = 0;

  constructor(
    readonly file: string,
    private readonly encoding: BufferEncoding = 'latin1',
  ) {
    this.fd = fs.openSync(file, 'r');
  }

  next(): string | undefined {
    for (;;) {
      const nl = this.buf.indexOf(10, this.pos);
      if (nl >= 0) {
        const end = nl > this.pos && this.buf[nl - 1] === 13 ? nl - 1 : nl;
        const s = this.buf.toString(this.encoding, this.pos, end);
        this.pos = nl + 1;
        this.n++;
        return s;
      }
      if (this.eof) {
        if (this.pos >= this.buf.length) return undefined;
        const s = this.buf.toString(this.encoding, this.pos).replace(/\r$/, '');
        this.pos = this.buf.length;
        this.n++;
        return s;
      }
      const chunk = Buffer.allocUnsafe(1 << 20);
      const got = fs.readSync(this.fd, chunk, 0, chunk.length, null);
      if (got === 0) this.eof = true;
      else {
        this.buf = Buffer.concat([this.buf.subarray(this.pos), chunk.subarray(0, got)]);
        this.pos = 0;
      }
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** A table's cells in one sequence: variable (`B01001_001E`) → 0-based field index in a data row. */
export interface SequenceTable {
  table: string;
  sequence: number;
  cells: Array<{ variable: string; index: number }>;
}

export interface SequenceLookup {
  /** Table → its parts, one per sequence it spans. */
  tables: Map<string, SequenceTable[]>;
  /** Sequence → its number of cells (the data rows' width is 6 + that). */
  widths: Map<number, number>;
}

/** The sequence/table lookup (its header names the columns; older releases pad them with spaces). */
export function readLookup(file: string): SequenceLookup {
  const r = new LineReader(file, 'latin1');
  const tables = new Map<string, SequenceTable[]>();
  const widths = new Map<number, number>();
  const starts = new Map<string, number>();
  const lines = new Map<string, number[]>();
  const declared = new Map<string, number>();
  try {
    const header = csvFields((r.next() ?? '').replace(/^\uFEFF/, '')).map((c) => c.trim().toLowerCase());
    const col = (name: string) => {
      const i = header.indexOf(name);
      if (i < 0) throw new InputError(file, `no "${name}" column in the header (a sequence/table lookup starts File ID,Table ID,…)`, 1);
      return i;
    };
    const [T, S, L, P, C, W] = [
      col('table id'),
      col('sequence number'),
      col('line number'),
      col('start position'),
      col('total cells in table'),
      col('total cells in sequence'),
    ];
    for (let line = r.next(); line !== undefined; line = r.next()) {
      if (line.trim() === '') continue;
      const f = csvFields(line).map((x) => x.trim());
      const table = f[T]!;
      const seq = Number(f[S]);
      if (!table || !Number.isInteger(seq)) continue;
      const k = `${table}|${seq}`;
      if (f[W] && Number.isInteger(Number(f[W]))) widths.set(seq, Number(f[W]));
      if (f[P]) starts.set(k, Number(f[P]));
      const cells = /^(\d+)\s*CELLS?$/i.exec(f[C] ?? '');
      if (cells) declared.set(table, Number(cells[1]));
      const ln = f[L] === '' || f[L] === undefined ? NaN : Number(f[L]);
      if (Number.isInteger(ln) && ln >= 1) (lines.get(k) ?? lines.set(k, []).get(k)!).push(ln);
    }
  } finally {
    r.close();
  }
  for (const [k, ls] of lines) {
    const [table, seqText] = k.split('|') as [string, string];
    const start = starts.get(k);
    if (start === undefined) throw new InputError(file, `table ${table} in sequence ${seqText} has lines but no start position`);
    const first = Math.min(...ls);
    const part: SequenceTable = {
      table,
      sequence: Number(seqText),
      cells: ls.map((l) => ({ variable: `${table}_${String(l).padStart(3, '0')}E`, index: start - 1 + l - first })),
    };
    (tables.get(table) ?? tables.set(table, []).get(table)!).push(part);
  }
  for (const [table, parts] of tables) {
    const n = parts.reduce((s, p) => s + p.cells.length, 0);
    const want = declared.get(table);
    if (want !== undefined && want !== n) throw new InputError(file, `table ${table} declares ${want} cells but lists ${n} lines`);
  }
  return { tables, widths };
}

/** A geography of a geography file, with the Data API's GEO_ID when it can be told (null: metros, districts). */
export interface SequenceGeo extends SummaryGeo {
  geoId: string | null;
}

/** The geography file's whole geographies (COMPONENT 00) of `levels`, by LOGRECNO. */
export function readGeographyCsv(file: string, levels: ReadonlySet<SummaryLevel>): Map<string, SequenceGeo> {
  const out = new Map<string, SequenceGeo>();
  const r = new LineReader(file, 'latin1');
  try {
    for (let line = r.next(); line !== undefined; line = r.next()) {
      if (line === '') continue;
      let f: string[];
      try {
        f = csvFields(line);
      } catch (e) {
        throw new InputError(file, (e as Error).message, r.n);
      }
      if (f.length < 50 || f[0] !== 'ACSSF')
        throw new InputError(
          file,
          `not a geography record (${f.length} fields; the record layout has FILEID ACSSF and GEOID, NAME as fields 49 and 50)`,
          r.n,
        );
      const level = SUMLEVEL[f[2]!];
      if (!level || !levels.has(level) || f[3] !== '00') continue;
      const geoid = f[48]!;
      const got = summaryKey(level, geoid, (why) => new InputError(file, `GEOID ${JSON.stringify(geoid)} ${why}`, r.n));
      if (!got) continue; // a `ZZ` district: no code of its own
      const { key, state, code } = got;
      // The Data API's GEO_ID has seven characters before US: summary level, component, and two
      // more that are 00 except where they name a delineation or a Congress (metros, districts),
      // which the geography file does not say.
      const geoId = level === 'metro' || level === 'cd' ? null : `${f[2]}${f[3]}00US${code}`;
      // NAME is quoted where it holds commas; should a file leave it unquoted, the three fields after
      // it (BTTR, BTBG, a blank) still end the record, so NAME is what lies between.
      const name = f.length > 53 ? f.slice(49, f.length - 3).join(',') : f[49]!;
      out.set(f[4]!, { level, key, state, name: name.trim(), geoId });
    }
  } finally {
    r.close();
  }
  return out;
}

/**
 * Inflate a sequence zip's estimate and MOE files into `dir` (streamed: never a whole member in
 * memory). Returns their paths; a zip without both is an input error.
 */
export function extractSequence(zipFile: string, dir: string, vintage: number, usps: string, seq: number): { e: string; m: string } {
  const stem = `${vintage}5${usps}${String(seq).padStart(4, '0')}000.txt`;
  const want = new Map([
    [`e${stem}`, path.join(dir, `e${stem}`)],
    [`m${stem}`, path.join(dir, `m${stem}`)],
  ]);
  const found = new Set<string>();
  let failure: Error | undefined;
  const open: number[] = [];
  const unzip = new Unzip((f) => {
    const base = f.name.slice(f.name.lastIndexOf('/') + 1);
    const target = want.get(base);
    if (!target) return;
    const fd = fs.openSync(target, 'w');
    open.push(fd);
    found.add(base);
    f.ondata = (err, data, final) => {
      if (err) failure ??= err;
      else for (let at = 0; at < data.length;) at += fs.writeSync(fd, data, at);
      if (final || err) {
        fs.closeSync(fd);
        open.splice(open.indexOf(fd), 1);
      }
    };
    f.start();
  });
  unzip.register(UnzipInflate);
  const fd = fs.openSync(zipFile, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const got = fs.readSync(fd, chunk, 0, chunk.length, null);
      unzip.push(got === 0 ? new Uint8Array(0) : new Uint8Array(chunk.subarray(0, got)), got === 0);
      if (got === 0 || failure) break;
    }
  } catch (e) {
    failure ??= e as Error;
  } finally {
    fs.closeSync(fd);
    for (const o of open) fs.closeSync(o);
  }
  if (failure) throw new InputError(zipFile, `not a whole zip (${failure.message})`);
  for (const name of want.keys()) if (!found.has(name)) throw new InputError(zipFile, `the zip holds no ${name}`);
  return { e: want.get(`e${stem}`)!, m: want.get(`m${stem}`)! };
}

const UNAVAILABLE: Omit<SummaryCell, 'variable'> = {
  estimate: null,
  moe: null,
  estimateAnnotation: 'missing_in_source',
  moeAnnotation: 'missing_in_source',
  e: '',
  m: '',
  plain: false,
};

/** The published text of a field as the reader takes it: "." (unavailable) and blanks are empty. */
const fieldText = (s: string | undefined): string => {
  const t = (s ?? '').trim();
  return t === '.' ? '' : t;
};

/**
 * Every row of a sequence whose LOGRECNO is in `geos`: `onRow(geo, table, cells)` once per table of
 * `parts` (the selected tables' cells in this sequence). The estimate and MOE files are read in
 * step; a row whose LOGRECNO, sequence or width disagrees is an input error.
 */
export function scanSequence(
  files: { e: string; m: string },
  label: string,
  sequence: number,
  width: number | undefined,
  geos: ReadonlyMap<string, SequenceGeo>,
  parts: ReadonlyArray<SequenceTable & { keep?: ReadonlySet<string> }>,
  onRow: (geo: SequenceGeo, table: string, cells: SummaryCell[]) => void,
): number {
  const e = new LineReader(files.e);
  const m = new LineReader(files.m);
  let rows = 0;
  try {
    for (;;) {
      const el = e.next();
      const ml = m.next();
      if (el === undefined && ml === undefined) break;
      if (el === '' && ml === '') continue;
      if (el === undefined || ml === undefined)
        throw new InputError(label, 'the estimate and MOE files have different numbers of rows', e.n);
      const ef = el.split(',');
      const mf = ml.split(',');
      if (ef[5] !== mf[5]) throw new InputError(label, `estimate row LOGRECNO ${ef[5]} beside MOE row LOGRECNO ${mf[5]}`, e.n);
      if (Number(ef[4]) !== sequence) throw new InputError(label, `a row of sequence ${ef[4]} in the file of sequence ${sequence}`, e.n);
      if (width !== undefined && (ef.length !== 6 + width || mf.length !== 6 + width))
        throw new InputError(
          label,
          `${ef.length} fields; the lookup gives sequence ${sequence} ${width} cells after the 6 leading fields`,
          e.n,
        );
      rows++;
      const geo = geos.get(ef[5]!);
      if (!geo) continue;
      for (const p of parts) {
        const cells: SummaryCell[] = [];
        for (const c of p.cells) {
          if (p.keep && !p.keep.has(c.variable)) continue;
          if (c.index >= ef.length)
            throw new InputError(label, `${c.variable} is at field ${c.index + 1}, past the row's ${ef.length}`, e.n);
          const et = fieldText(ef[c.index]);
          let mt = fieldText(mf[c.index]);
          if (mt === '-1') mt = ''; // tables without a margin of error (see the head of this file)
          const cell = summaryCell(p.table, c.variable, et, mt, true, label, e.n);
          if (cell) cells.push(cell);
          // "." in both: published as unavailable (not a table left untabulated): stored as null.
          else if (ef[c.index] === '.' || mf[c.index] === '.') cells.push({ ...UNAVAILABLE, variable: c.variable });
        }
        onRow(geo, p.table, cells);
      }
    }
  } finally {
    e.close();
    m.close();
  }
  return rows;
}
