// One source file → staging TSV bytes and the cells for the serving index: the per-file work of the
// observations step, run on worker threads (parse-worker.ts) so that both cores parse while DuckDB
// sorts the previous partition.
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { AnnotationCode } from '../../../src/domain/annotations.js';
import { scanApiBody, type HeaderPlan, type ParsedBody } from '../../sources/api-body.js';
import { scanApiBytes, type ByteRowSink } from '../../sources/api-body-bytes.js';
import { CellColumns, type FileCells } from './cell-columns.js';

/**
 * One source file's bytes, read synchronously: on a worker thread nothing else waits, and the
 * promise-based read and gunzip cost about as much CPU again as the parse (measured: 2.0 s more
 * for 2 M rows).
 */
export function readBytes(file: string): Buffer {
  const raw = fs.readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(raw) : raw;
}

/** What the step keeps of a parsed file besides its rows. */
export type FileSummary = Omit<ParsedBody, 'rows'> & { rowCount: number };

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
class Staging implements ByteRowSink {
  readonly out: StagingBytes;
  readonly cells = new CellColumns();
  private geo = '';
  private geoPrefix: Uint8Array = new Uint8Array(0);
  private prefixes: Uint8Array[] = [];
  private names: string[] = [];

  constructor(
    private readonly body: Uint8Array | undefined,
    capacity: number,
  ) {
    // A staging row is about three times its cell's published text.
    this.out = new StagingBytes(capacity * 3 + 256);
  }

  begin(plan: HeaderPlan): void {
    this.prefixes = plan.variables.map((v) => utf8(`${v.table}\t${v.variable}\t`));
    this.names = plan.variables.map((v) => v.variable);
  }

  geography(key: string): void {
    this.geo = key;
    this.geoPrefix = utf8(`${key}\t`);
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
    this.out.text(`${geo}\t${table}\t${variable}\t${e ?? ''}\t${m ?? ''}\t${ea ?? ''}\t${ma ?? ''}\n`);
    this.cells.add(geo, variable, e, m, ea, ma);
  }

  private value(x: number | null, s: number, e: number): void {
    if (e > s) this.out.span(this.body!, s, e);
    else if (x !== null) this.out.text(String(x));
  }
}

/**
 * One source file as staging TSV bytes (DuckDB reads them with `copyTsvToParquetSql`) and the
 * same cells as columns for the partition's serving index. The ordinary body is read from its
 * bytes (api-body-bytes.ts); any other takes the string reader, whose result or error is the
 * answer. Both write the same bytes (test/etl/api-body-bytes.test.ts). The outputs share one
 * buffer of their own, which a worker transfers instead of copying.
 */
export function stageFile(path: string, file: string): { tsv: Uint8Array; body: FileSummary; cells: FileCells } {
  return stageBody(readBytes(path), file);
}

export function stageBody(
  bytes: Buffer,
  file: string,
  opts: { strings?: boolean } = {},
): { tsv: Uint8Array; body: FileSummary; cells: FileCells } {
  if (!opts.strings) {
    const fast = new Staging(bytes, bytes.length);
    const read = scanApiBytes(bytes, file, fast);
    if (read) {
      const { plan: _, ...body } = read;
      return { ...fast.cells.finish(fast.out.bytes), body };
    }
  }
  const slow = new Staging(undefined, bytes.length);
  const body = scanApiBody(bytes.toString('utf8'), file, (geo, table, variable, e, m, ea, ma) =>
    slow.row(geo, table, variable, e, m, ea, ma),
  );
  return { ...slow.cells.finish(slow.out.bytes), body };
}
