// API bodies read straight from their bytes: the observations step's fast path. JSON.parse, the
// shape check and turning every cell into a string and back were most of the step's CPU (docs/
// performance.md, "ETL"); here the tokenizer notes where each cell's text lies, a plain number is
// checked and valued from its digits, and its text goes to the staging file as published.
//
// Only the ordinary body is read this way: anything else (an escape in a string, a control
// character, a row of the wrong length, a repeated geography, a bad code, a cell the rules refuse,
// text after the array…) makes `scanApiBytes` answer undefined, and the caller reads the body with
// `scanApiBody`, whose result or error is then the answer. So every error keeps its message and the
// fast path never decides anything the string reader would decide differently: where it does not
// take a number as is, it asks `cellValues`, the string reader's own rules.
import type { AnnotationCode } from '../../src/domain/annotations.js';
import { InputError } from '../step.js';
import { cellValues, FIPS_WIDTH, headerPlan, type Cell, type HeaderPlan, type VariableColumns } from './api-body.js';

/** Receives a body's rows: a geography, then its cells. */
export interface ByteRowSink {
  /** The header's plan, before any row, and a guess at the rows: the body's size over the header's. */
  begin(plan: HeaderPlan, rows: number): void;
  geography(key: string): void;
  /**
   * One cell of variable `v` (`plan.variables[v]`). When `estimateEnd > estimateStart` the
   * estimate's text is `bytes[estimateStart, estimateEnd)`, which is how JavaScript prints it;
   * else it is to be printed from the number. The same for the MOE.
   */
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
  ): void;
}

export interface ByteBodySummary {
  level: HeaderPlan['geoSet']['level'];
  places: Array<[key: string, name: string | null]>;
  tables: string[];
  geographies: number;
  variables: number;
  rowCount: number;
  plan: HeaderPlan;
}

/** Thrown inside to give up the fast path; never leaves this module. */
class NotPlain extends Error {}
const notPlain = new NotPlain();

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const BACKSLASH = 0x5c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The number a cell's text publishes when the text is that number's canonical JavaScript spelling:
 * an optional minus, "0" or digits without a leading zero, an optional fraction without a trailing
 * zero, at most 15 digits from the first non-zero one (so every such decimal is a distinct double
 * and prints back as itself), no exponent and fewer than 6 zeros after "0." (JavaScript prints
 * smaller numbers with an exponent), not "-0", and above -100,000,000 (no jam value). Then the
 * value is the digits as an integer (exact below 2^53) divided by a power of ten (exact up to
 * 10^22): one correctly rounded operation, so the very double `Number` reads. Undefined for any
 * other text; `plainNumber` in api-body.ts answers the same number for every text this accepts.
 */
export function plainNumberAt(b: Uint8Array, s: number, e: number): number | undefined {
  let i = s;
  const negative = b[i] === 0x2d;
  if (negative) i++;
  if (i >= e) return undefined;
  let digits = 0; // counted from the first non-zero digit
  let mantissa = 0;
  const intStart = i;
  if (b[i] === 0x30) i++;
  else {
    for (; i < e; i++) {
      const d = b[i]! - 0x30;
      if (d < 0 || d > 9) break;
      mantissa = mantissa * 10 + d;
      digits++;
    }
    if (i === intStart) return undefined;
  }
  if (negative && i - intStart > 8) return undefined;
  let fraction = 0;
  if (i < e && b[i] === 0x2e) {
    i++;
    const from = i;
    let zeros = 0;
    for (; i < e; i++) {
      const d = b[i]! - 0x30;
      if (d < 0 || d > 9) break;
      if (mantissa === 0 && d === 0) zeros++;
      else digits++;
      mantissa = mantissa * 10 + d;
    }
    fraction = i - from;
    if (fraction === 0 || b[i - 1] === 0x30) return undefined;
    if (zeros > 5) return undefined;
  }
  if (i !== e || digits > 15) return undefined;
  if (mantissa === 0 && negative) return undefined;
  const value = fraction === 0 ? mantissa : mantissa / 10 ** fraction;
  return negative ? -value : value;
}

/**
 * Reads `bytes` (a whole body) into `sink`; undefined when the body is not the ordinary shape or
 * any part of it needs the string reader (nothing it gave `sink` counts then).
 */
export function scanApiBytes(bytes: Buffer, file: string, sink: ByteRowSink): ByteBodySummary | undefined {
  try {
    return scan(bytes, file, sink);
  } catch (e) {
    if (e === notPlain || e instanceof InputError) return undefined;
    throw e;
  }
}

function scan(b: Buffer, file: string, sink: ByteRowSink): ByteBodySummary {
  const n = b.length;
  let i = 0;
  const skip = () => {
    while (i < n && isSpace(b[i]!)) i++;
  };
  const expect = (c: number) => {
    skip();
    if (b[i] !== c) throw notPlain;
    i++;
  };
  /** A string's span (after its opening quote), or throws on anything but plain text. */
  let start = 0;
  const stringEnd = (): number => {
    start = i;
    for (; i < n; i++) {
      const c = b[i]!;
      if (c === QUOTE) return i++;
      if (c === BACKSLASH || c < 0x20) throw notPlain;
    }
    throw notPlain;
  };
  const text = (s: number, e: number): string => {
    const t = b.toString('utf8', s, e);
    if (t.includes('\uFFFD')) throw notPlain; // not valid UTF-8: the string reader decides
    return t;
  };

  expect(OPEN);
  expect(OPEN);
  const names: string[] = [];
  for (;;) {
    expect(QUOTE);
    const e = stringEnd();
    names.push(text(start, e));
    skip();
    if (b[i] === COMMA) i++;
    else if (b[i] === CLOSE) {
      i++;
      break;
    } else throw notPlain;
  }
  const plan = headerPlan(names, file);
  // A row of values is shorter than the header of names: about 1.5 rows per header's length.
  sink.begin(plan, Math.ceil((1.5 * (n - i)) / i));
  const { geoSet, geoStart, repeats, geoIdIdx, nameIdx, variables } = plan;
  const width = names.length;
  const starts = new Int32Array(width);
  const ends = new Int32Array(width);
  const fipsWidth = geoSet.columns.map((c) => FIPS_WIDTH[c]!);
  const seen = new Set<string>();
  const places: Array<[string, string | null]> = [];
  const fallback: Cell[] = new Array<Cell>(width).fill(null);
  const cellAt = (k: number): Cell => (starts[k]! < 0 ? null : text(starts[k]!, ends[k]!));
  let rowCount = 0;
  let r = 0;

  for (;;) {
    skip();
    if (b[i] === CLOSE) {
      i++;
      break;
    }
    if (b[i] !== COMMA) throw notPlain;
    i++;
    expect(OPEN);
    r++;
    for (let k = 0; k < width; k++) {
      skip();
      const c = b[i];
      if (c === QUOTE) {
        i++;
        ends[k] = stringEnd();
        starts[k] = start;
      } else if (c === 0x6e && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c) {
        i += 4;
        starts[k] = -1;
        ends[k] = -1;
      } else throw notPlain;
      skip();
      if (b[i] !== (k === width - 1 ? CLOSE : COMMA)) throw notPlain;
      i++;
    }

    for (const [x, y] of repeats) {
      const len = ends[x]! - starts[x]!;
      if (starts[x]! < 0 !== starts[y]! < 0 || len !== ends[y]! - starts[y]!) throw notPlain;
      if (starts[x]! >= 0 && b.compare(b, starts[y]!, ends[y]!, starts[x]!, ends[x]!) !== 0) throw notPlain;
    }
    const fips: string[] = [];
    for (let k = geoStart; k < width; k++) {
      const s = starts[k]!;
      if (s < 0 || ends[k]! - s !== fipsWidth[k - geoStart]) throw notPlain;
      for (let j = s; j < ends[k]!; j++) if (b[j]! < 0x30 || b[j]! > 0x39) throw notPlain;
      fips.push(b.toString('latin1', s, ends[k]!));
    }
    const geoKey = geoSet.key(fips);
    if (seen.has(geoKey)) throw notPlain; // the string reader skips an exact repeat or refuses it
    seen.add(geoKey);
    places.push([geoKey, nameIdx === undefined ? null : cellAt(nameIdx)?.trim() || null]);
    if (geoIdIdx !== undefined) {
      const geoId = cellAt(geoIdIdx);
      if (geoId && geoSet.level !== 'nation' && !geoId.endsWith(fips.join(''))) throw notPlain;
    }
    sink.geography(geoKey);

    for (let vi = 0; vi < variables.length; vi++) {
      const v = variables[vi]!;
      const es = starts[v.e]!;
      const ms = v.m === undefined ? -1 : starts[v.m]!;
      // Not tabulated for this geography (api-body.ts): null values, no annotation, not stored.
      if (v.ea !== undefined && es < 0 && ms < 0 && blank(starts, ends, v.ea) && (v.ma === undefined || blank(starts, ends, v.ma)))
        continue;
      const estimate = v.ea === undefined || blank(starts, ends, v.ea) ? plainAt(b, starts, ends, v.e) : undefined;
      let moe: number | null | undefined = null;
      let moeAnnotation: AnnotationCode | null = 'missing_in_source';
      if (v.m !== undefined) {
        moe = v.ma === undefined || blank(starts, ends, v.ma) ? plainAt(b, starts, ends, v.m) : undefined;
        moeAnnotation = null;
      }
      if (estimate !== undefined && moe !== undefined) {
        sink.cell(vi, estimate, moe, null, moeAnnotation, es, ends[v.e]!, ms, v.m === undefined ? -1 : ends[v.m]!);
      } else {
        const c = cleaned(v, fallback, cellAt, r, file);
        sink.cell(vi, c.estimate, c.moe, c.estimateAnnotation, c.moeAnnotation, 0, 0, 0, 0);
      }
      rowCount++;
    }
  }
  skip();
  if (i !== n) throw notPlain;
  return {
    level: geoSet.level,
    places,
    tables: [...new Set(variables.map((v) => v.table))],
    geographies: r,
    variables: variables.length,
    rowCount,
    plan,
  };
}

/** `!cells[k]` of the string reader: null or empty. */
const blank = (starts: Int32Array, ends: Int32Array, k: number) => starts[k]! < 0 || ends[k] === starts[k];

function plainAt(b: Uint8Array, starts: Int32Array, ends: Int32Array, k: number): number | undefined {
  const s = starts[k]!;
  return s < 0 ? undefined : plainNumberAt(b, s, ends[k]!);
}

/** The string reader's rules for one variable, on its four cells' text. */
function cleaned(v: VariableColumns, cells: Cell[], cellAt: (k: number) => Cell, r: number, file: string) {
  for (const k of [v.e, v.m, v.ea, v.ma]) if (k !== undefined) cells[k] = cellAt(k);
  return cellValues(v, cells, file, r);
}
