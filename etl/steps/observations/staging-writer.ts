// The staging file's bytes of one source file, written as its cells are read (by either reader of
// api-body*.ts), with the same cells as columns for the serving index and what the COPY needs to
// know of their order.
import type { AnnotationCode } from '../../../src/domain/annotations.js';
import type { HeaderPlan, ParsedBody } from '../../sources/api-body.js';
import type { ByteRowSink } from '../../sources/api-body-bytes.js';
import { CellColumns, type FileCells } from './cell-columns.js';

/** What the step keeps of a parsed file besides its rows. */
export type FileSummary = Omit<ParsedBody, 'rows'> & { rowCount: number };

/** One parsed file: its staging bytes, what the step keeps of it, its cells, its table when ordered (`Staging.ordered`). */
export type Staged = { tsv: Uint8Array; body: FileSummary; cells: FileCells; table: string | null };

const TAB = 0x09;
const NEWLINE = 0x0a;

/** Growable bytes of the staging file. */
class StagingBytes {
  buf: Uint8Array;
  at = 0;

  constructor(capacity: number) {
    this.buf = new Uint8Array(capacity);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }

  /** Bytes `[s, e)` of `src`: short runs (a key, a number), copied by hand (cheaper than `set`). */
  span(src: Uint8Array, s: number, e: number): void {
    this.room(e - s);
    const buf = this.buf;
    let at = this.at;
    for (let j = s; j < e; j++) buf[at++] = src[j]!;
    this.at = at;
  }

  all(src: Uint8Array): void {
    this.span(src, 0, src.length);
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  /** A string as UTF-8 (keys, codes, numbers and annotation codes are ASCII). */
  text(s: string): void {
    this.all(utf8(s));
  }

  get bytes(): Uint8Array {
    return this.buf.subarray(0, this.at);
  }
}

const encoder = new TextEncoder();

/** UTF-8 of a short string: ASCII by hand (TextEncoder's call costs more than the copy). */
function utf8(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return encoder.encode(s);
    out[i] = c;
  }
  return out;
}

/**
 * A staging row: `geo \t table \t variable \t estimate \t moe \t estimate annotation \t moe
 * annotation \n`. Null numbers and annotations are empty fields; numbers are written as JavaScript
 * prints the double, which DuckDB reads back to the same double.
 */
export class Staging implements ByteRowSink {
  readonly out: StagingBytes;
  readonly cells = new CellColumns();
  /** Each geography's first byte in `out`, in row order. */
  private readonly segments: Array<[key: string, start: number]> = [];
  /** The one table of the file's cells; null when they are of more than one (undefined: no cell yet). */
  private table: string | null | undefined;
  /** Whether each geography's cells came in variable order. */
  private variablesOrdered = true;
  private lastVariable = '';
  private geo = '';
  private geoPrefix: Uint8Array = new Uint8Array(0);
  private prefixes: Uint8Array[] = [];
  private names: string[] = [];
  private tables: string[] = [];
  /** Each header variable's rank by name, and the last rank written for this geography. */
  private ranks = new Int32Array(0);
  private lastRank = -1;

  constructor(
    private readonly body: Uint8Array | undefined,
    capacity: number,
  ) {
    // A staging row is about three times its cell's published text.
    this.out = new StagingBytes(capacity * 3 + 256);
  }

  begin(plan: HeaderPlan, rows: number): void {
    this.cells.reserve(rows * plan.variables.length);
    this.prefixes = plan.variables.map((v) => utf8(`${v.table}\t${v.variable}\t`));
    this.names = plan.variables.map((v) => v.variable);
    this.tables = plan.variables.map((v) => v.table);
    const byName = plan.variables.map((v, i) => [v.variable, i] as const).sort(([a], [b]) => (a < b ? -1 : 1));
    this.ranks = new Int32Array(byName.length);
    byName.forEach(([, i], rank) => (this.ranks[i] = rank));
  }

  geography(key: string): void {
    this.geo = key;
    this.geoPrefix = utf8(`${key}\t`);
    this.segments.push([key, this.out.at]);
    this.lastRank = -1;
  }

  cell(
    v: number,
    estimate: number | null,
    moe: number | null,
    estimateAnnotation: AnnotationCode | null,
    moeAnnotation: AnnotationCode | null,
    estimateStart: number,
    estimateEnd: number,
    moeStart: number,
    moeEnd: number,
  ): void {
    const out = this.out;
    out.all(this.geoPrefix);
    out.all(this.prefixes[v]!);
    this.value(estimate, estimateStart, estimateEnd);
    out.byte(TAB);
    this.value(moe, moeStart, moeEnd);
    out.byte(TAB);
    if (estimateAnnotation !== null) out.text(estimateAnnotation);
    out.byte(TAB);
    if (moeAnnotation !== null) out.text(moeAnnotation);
    out.byte(NEWLINE);
    this.cells.add(this.geo, this.names[v]!, estimate, moe, estimateAnnotation, moeAnnotation);
    this.noteOrder(this.tables[v]!, this.ranks[v]! <= this.lastRank);
    this.lastRank = this.ranks[v]!;
  }

  /** Tracks `table` and `variablesOrdered` over the cells written, on either path. */
  private noteOrder(table: string, variableBack: boolean): void {
    if (this.table === undefined) this.table = table;
    else if (table !== this.table) this.table = null;
    if (variableBack) this.variablesOrdered = false;
  }

  /** A row from the string reader (no published text to copy). */
  row(
    geo: string,
    table: string,
    variable: string,
    e: number | null,
    m: number | null,
    ea: AnnotationCode | null,
    ma: AnnotationCode | null,
  ) {
    if (geo !== this.geo) {
      this.geo = geo;
      this.segments.push([geo, this.out.at]);
      this.lastVariable = '';
    }
    this.noteOrder(table, variable <= this.lastVariable);
    this.lastVariable = variable;
    this.out.text(`${geo}\t${table}\t${variable}\t${e ?? ''}\t${m ?? ''}\t${ea ?? ''}\t${ma ?? ''}\n`);
    this.cells.add(geo, variable, e, m, ea, ma);
  }

  /**
   * The staging bytes with the geographies in key order, and the file's table when its rows are
   * then in (table, geography, variable) order, the Parquet file's (OBSERVATION_ORDER): a
   * partition whose files all are, in table order, is written without DuckDB sorting it again.
   */
  ordered(): { bytes: Uint8Array; table: string | null } {
    const bytes = this.out.bytes;
    const segs = this.segments;
    const table = this.table ?? null;
    if (table === null) return { bytes, table };
    // Some headers list their variables out of order (B02017 starts at _003M): sort the lines.
    if (!this.variablesOrdered) return { bytes: sortedLines(bytes), table };
    if (segs.every(([k], i) => i === 0 || segs[i - 1]![0] < k)) return { bytes, table };
    const ends = new Map(segs.map(([k, start], i) => [k, [start, segs[i + 1]?.[1] ?? bytes.length] as const]));
    const sorted = new Uint8Array(bytes.length);
    let at = 0;
    for (const [k] of [...segs].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const [from, to] = ends.get(k)!;
      sorted.set(bytes.subarray(from, to), at);
      at += to - from;
    }
    return { bytes: sorted, table };
  }

  /** The file's result: staging bytes and cells, each in a buffer of its own (a worker transfers them). */
  result(body: FileSummary): Staged {
    const { bytes, table } = this.ordered();
    // A copy unless the bytes own their whole buffer. `new Uint8Array(view)` copies even when the
    // view is a Buffer, whose slice() shares memory: a small Buffer lives in Node's shared pool,
    // which Node 22 refuses to transfer (DataCloneError) and which Node 20 detached.
    const tsv = bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    return { tsv, cells: this.cells.finish(), body, table };
  }

  private value(x: number | null, s: number, e: number): void {
    if (e > s) this.out.span(this.body!, s, e);
    else if (x !== null) this.out.text(String(x));
  }
}

/** Staging lines sorted by (geography, variable): their first and third fields, ASCII. */
function sortedLines(bytes: Uint8Array): Uint8Array {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  const lines = text.split('\n');
  lines.pop(); // after the last newline
  const keyed = lines.map((line) => {
    const [geo, , variable] = line.split('\t', 3);
    return { geo: geo!, variable: variable!, line };
  });
  keyed.sort((a, b) => (a.geo < b.geo ? -1 : a.geo > b.geo ? 1 : a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0));
  return Buffer.from(keyed.map((k) => `${k.line}\n`).join(''), 'latin1');
}
