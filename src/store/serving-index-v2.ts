// Serving index, format version 2 (written by etl/steps/serving-index.ts): the compact layout that
// keeps a national build's indexes small (docs/performance.md, "The serving index").
//
// Sections (little-endian; offsets and lengths in the footer's `sections`):
//   values     one record per cell: estimate then MOE, each in the partition's narrowest exact
//              encoding — i16 or i32 when every value of that column is an integer in range (null
//              = the type's minimum), else f64 (null = NaN). Dense partitions (every geography ×
//              every variable present) address cell g·nv + v: no per-row variable id at all.
//              Sparse ones store rows in (geography, variable) order, addressed through `starts`.
//   vars       sparse only: variable id per row (u16, or u32 with ≥ 65,536 variables).
//   starts     sparse only: u32 first row of each geography (geos + 1 entries).
//   annStarts  only when the partition has annotations: u32 first annotation entry per geography.
//   ann        6 bytes per annotated cell, (geography, variable) order: u32 variable id, estimate
//              annotation u8, MOE annotation u8 (0 = none, i + 1 = annotations[i]).
//   JSON footer, u32 footer length, 8-byte magic "CDSIDX02".
import fs from 'node:fs';
import type { StoredCell } from './stored-cells.js';
import { IndexFile, indexOf, searchIds } from './serving-index-file.js';

export type ValueEncoding = 'i16' | 'i32' | 'f64';

/** Receives a looked-up cell: the indexes of its geography and code in the lists asked, its values. */
export type CellSink = (
  geo: number,
  code: number,
  estimate: number | null,
  moe: number | null,
  estimateAnnotation: string | null,
  moeAnnotation: string | null,
) => void;

export const ENCODING_BYTES: Record<ValueEncoding, number> = { i16: 2, i32: 4, f64: 8 };
/** Null sentinel of each integer encoding (never an allowed value). */
export const NULL_I16 = -32768;
export const NULL_I32 = -2147483648;

export interface ServingIndexV2Footer {
  version: 2;
  /** Stored rows (dense: geos × variables). */
  rows: number;
  dense: boolean;
  estimate: ValueEncoding;
  moe: ValueEncoding;
  /** Width of a sparse partition's variable ids. */
  varWidth: 2 | 4;
  /** Sorted (byte order). */
  geos: string[];
  /** Sorted (byte order). */
  variables: string[];
  annotations: string[];
  /** Annotated cells. */
  annotated: number;
  synthetic: boolean;
  sections: Partial<Record<'values' | 'vars' | 'starts' | 'annStarts' | 'ann', [offset: number, bytes: number]>>;
}

/** Reads one value of an encoding at byte `o` (null for the sentinel). */
export function readValue(buf: Buffer, o: number, enc: ValueEncoding): number | null {
  if (enc === 'i16') {
    const x = buf.readInt16LE(o);
    return x === NULL_I16 ? null : x;
  }
  if (enc === 'i32') {
    const x = buf.readInt32LE(o);
    return x === NULL_I32 ? null : x;
  }
  const x = buf.readDoubleLE(o);
  return Number.isNaN(x) ? null : x;
}

export class ServingIndexV2 extends IndexFile<ServingIndexV2Footer> {
  private readonly recordBytes: number;
  private readonly moeAt: number;

  private constructor(
    fd: number,
    footer: ServingIndexV2Footer,
    /** Sparse only. */
    private readonly starts: Uint32Array | undefined,
    private readonly annStarts: Uint32Array | undefined,
  ) {
    super(fd, footer, 16 * 1024);
    this.moeAt = ENCODING_BYTES[footer.estimate];
    this.recordBytes = this.moeAt + ENCODING_BYTES[footer.moe];
  }

  /** `end`: where the JSON footer starts; every section must lie before it. */
  static open(file: string, fd: number, end: number, footer: ServingIndexV2Footer): ServingIndexV2 {
    if (footer.version !== 2) throw new Error(`${file}: index version ${footer.version}, expected 2`);
    const ng = footer.geos.length;
    const nv = footer.variables.length;
    const record = ENCODING_BYTES[footer.estimate] + ENCODING_BYTES[footer.moe];
    if (!record || (footer.dense && footer.rows !== ng * nv)) throw new Error(`${file}: inconsistent footer`);
    const expect: Record<string, number | undefined> = {
      values: footer.rows * record,
      vars: footer.dense ? undefined : footer.rows * footer.varWidth,
      starts: footer.dense ? undefined : 4 * (ng + 1),
      annStarts: footer.annotated ? 4 * (ng + 1) : undefined,
      ann: footer.annotated ? 6 * footer.annotated : undefined,
    };
    let total = 0;
    for (const [name, bytes] of Object.entries(expect)) {
      const s = footer.sections[name as keyof ServingIndexV2Footer['sections']];
      if (bytes === undefined) {
        if (s) throw new Error(`${file}: unexpected section ${name}`);
        continue;
      }
      if (!s || s[1] !== bytes || s[0] < 0 || s[0] + s[1] > end) throw new Error(`${file}: section ${name} does not match its footer`);
      total += bytes;
    }
    if (total !== end) throw new Error(`${file}: size does not match its footer`);
    const u32 = (name: 'starts' | 'annStarts') => {
      const s = footer.sections[name];
      if (!s) return undefined;
      const a = new Uint32Array(s[1] / 4);
      fs.readSync(fd, Buffer.from(a.buffer), 0, s[1], s[0]);
      return a;
    };
    return new ServingIndexV2(fd, footer, u32('starts'), u32('annStarts'));
  }

  lookup(geoKey: string, codes: readonly string[], emit: (code: string, cell: StoredCell) => void): void {
    this.lookupMany([geoKey], codes, (_g, c, estimate, moe, estimate_annotation, moe_annotation) =>
      emit(codes[c]!, { estimate, moe, estimate_annotation, moe_annotation }),
    );
  }

  /**
   * Every stored cell of `geoKeys` × `codes` to `sink`, geography by geography in the order asked
   * (absent ones skipped). The codes are looked up once for all geographies, and nothing is
   * allocated per cell: an all-states × 10 answer is 520 of them.
   */
  lookupMany(geoKeys: readonly string[], codes: readonly string[], sink: CellSink): void {
    const f = this.footer;
    const nv = f.variables.length;
    const ids = new Int32Array(codes.length);
    for (let c = 0; c < codes.length; c++) ids[c] = indexOf(f.variables, codes[c]!);
    // Row of each asked code in the current geography; -1: not stored there.
    const rows = new Float64Array(codes.length);
    const R = this.recordBytes;
    const base = f.sections.values![0];
    for (let k = 0; k < geoKeys.length; k++) {
      const g = indexOf(f.geos, geoKeys[k]!);
      if (g < 0) continue;
      let min = Infinity;
      let max = -Infinity;
      if (f.dense) {
        for (let c = 0; c < codes.length; c++) rows[c] = ids[c]! < 0 ? -1 : g * nv + ids[c]!;
      } else {
        const first = this.starts![g]!;
        const count = this.starts![g + 1]! - first;
        const w = f.varWidth;
        const vars = count > 0 ? this.view(count * w, f.sections.vars![0] + first * w) : undefined;
        for (let c = 0; c < codes.length; c++) {
          const at = vars && ids[c]! >= 0 ? searchIds(vars, w, count, ids[c]!) : -1;
          rows[c] = at < 0 ? -1 : first + at;
        }
      }
      for (let c = 0; c < codes.length; c++) {
        const r = rows[c]!;
        if (r < 0) continue;
        if (r < min) min = r;
        if (r > max) max = r;
      }
      if (min === Infinity) continue;
      const ann = this.annotationsOf(g);
      const annotated = ann ? ann.length / 6 : 0;
      // One read spanning the found rows when they are close (typical: codes of one table), else one each.
      const span = (max - min + 1) * R;
      const whole = span <= 64 * 1024 ? this.view(span, base + min * R) : undefined;
      for (let c = 0; c < codes.length; c++) {
        const r = rows[c]!;
        if (r < 0) continue;
        const rec = whole ?? this.view(R, base + r * R);
        const o = whole ? (r - min) * R : 0;
        // Entries are (u32 variable id, u8, u8), ascending ids.
        const a = annotated ? 6 * searchIds(ann!, 4, annotated, ids[c]!, 6) : -1;
        sink(
          k,
          c,
          readValue(rec, o, f.estimate),
          readValue(rec, o + this.moeAt, f.moe),
          a >= 0 && ann![a + 4] ? f.annotations[ann![a + 4]! - 1]! : null,
          a >= 0 && ann![a + 5] ? f.annotations[ann![a + 5]! - 1]! : null,
        );
      }
    }
  }

  /**
   * The annotation entries of geography `g` (6 bytes each, by variable id), or undefined when it
   * has none (one check in memory). They are searched, not loaded into a Map: a state of acs1 has
   * thousands of annotated cells, and building a Map of them for every geography of every request
   * was 22% of the CPU of an all-states × 10 answer with the cache off.
   */
  private annotationsOf(g: number): Buffer | undefined {
    if (!this.annStarts) return undefined;
    const a0 = this.annStarts[g]!;
    const n = this.annStarts[g + 1]! - a0;
    if (n === 0) return undefined;
    // Its own buffer when the file is not held: the values are read after it.
    return this.ownView(n * 6, this.footer.sections.ann![0] + a0 * 6);
  }
}
