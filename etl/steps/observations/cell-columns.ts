// One source file's cells as columns, gathered while the file is parsed (staging.ts), so that the
// partition's serving index is built from the parse itself (serving-index-builder.ts) instead of
// six more passes of DuckDB over the Parquet file it just wrote (docs/performance.md, "ETL").
import type { AnnotationCode } from '../../../src/domain/annotations.js';

/**
 * Transferable from a parse worker (every column a view of one buffer, see `finish`). Geography, variable and
 * annotation ids are local to the file: indexes into `geos`, `variables` and `annotations`
 * (annotation 0 = none, i + 1 = annotations[i]).
 */
export interface FileCells {
  count: number;
  geos: string[];
  variables: string[];
  annotations: string[];
  geo: Uint32Array;
  variable: Uint32Array;
  /** NaN = null. */
  estimate: Float64Array;
  moe: Float64Array;
  estimateAnnotation: Uint8Array;
  moeAnnotation: Uint8Array;
}

export class CellColumns {
  private count = 0;
  private capacity = 0;
  private readonly geos: string[] = [];
  private readonly variables = new Map<string, number>();
  private readonly annotations = new Map<string, number>();
  private lastGeo: string | undefined;
  private geo = new Uint32Array(0);
  private variable = new Uint32Array(0);
  private estimate = new Float64Array(0);
  private moe = new Float64Array(0);
  private estimateAnnotation = new Uint8Array(0);
  private moeAnnotation = new Uint8Array(0);

  /**
   * One cell, in the parse's order: a file has one row per geography, so a geography's cells are
   * consecutive and a change of key is a new geography.
   */
  add(
    geoKey: string,
    variable: string,
    estimate: number | null,
    moe: number | null,
    estimateAnnotation: AnnotationCode | null,
    moeAnnotation: AnnotationCode | null,
  ): void {
    if (this.count === this.capacity) this.grow();
    const i = this.count++;
    if (geoKey !== this.lastGeo) {
      this.lastGeo = geoKey;
      this.geos.push(geoKey);
    }
    this.geo[i] = this.geos.length - 1;
    let v = this.variables.get(variable);
    if (v === undefined) this.variables.set(variable, (v = this.variables.size));
    this.variable[i] = v;
    // The Parquet file holds what DuckDB reads back from the staging text, which is the same double
    // for every value but -0 (written "0"): the index must hold the same.
    this.estimate[i] = estimate === null ? NaN : estimate === 0 ? 0 : estimate;
    this.moe[i] = moe === null ? NaN : moe === 0 ? 0 : moe;
    this.estimateAnnotation[i] = estimateAnnotation === null ? 0 : this.annotationId(estimateAnnotation);
    this.moeAnnotation[i] = moeAnnotation === null ? 0 : this.annotationId(moeAnnotation);
  }

  private annotationId(code: string): number {
    let id = this.annotations.get(code);
    if (id === undefined) {
      if (this.annotations.size === 255) throw new Error('more than 255 distinct annotation codes in one file');
      this.annotations.set(code, (id = this.annotations.size + 1));
    }
    return id;
  }

  /** Room for `cells` cells without growing (a guess from the body's size saves the copies). */
  reserve(cells: number): void {
    if (cells > this.capacity) this.grow(cells);
  }

  private grow(atLeast = 0): void {
    const n = Math.max(256, this.capacity * 2, atLeast);
    const copy = <T extends Uint32Array | Float64Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
    this.geo = copy(this.geo, new Uint32Array(n));
    this.variable = copy(this.variable, new Uint32Array(n));
    this.estimate = copy(this.estimate, new Float64Array(n));
    this.moe = copy(this.moe, new Float64Array(n));
    this.estimateAnnotation = copy(this.estimateAnnotation, new Uint8Array(n));
    this.moeAnnotation = copy(this.moeAnnotation, new Uint8Array(n));
    this.capacity = n;
  }

  /**
   * The columns, trimmed, all views of one new buffer: a worker hands them over in one transfer
   * (a transfer per column cost ~6% of a parse worker's time). The staging bytes travel apart, so
   * that they are freed once written while the cells wait for the partition's index.
   */
  finish(): FileCells {
    const n = this.count;
    const buffer = new ArrayBuffer(n * 26);
    const put = <T extends Float64Array | Uint32Array | Uint8Array>(
      make: (b: ArrayBuffer, at: number, n: number) => T,
      from: T,
      at: number,
    ): T => {
      const view = make(buffer, at, n);
      view.set(from.subarray(0, n));
      return view;
    };
    const f64 = (b: ArrayBuffer, at: number, len: number) => new Float64Array(b, at, len);
    const u32 = (b: ArrayBuffer, at: number, len: number) => new Uint32Array(b, at, len);
    const u8 = (b: ArrayBuffer, at: number, len: number) => new Uint8Array(b, at, len);
    return {
      count: n,
      geos: this.geos,
      variables: [...this.variables.keys()],
      annotations: [...this.annotations.keys()],
      estimate: put(f64, this.estimate, 0),
      moe: put(f64, this.moe, n * 8),
      geo: put(u32, this.geo, n * 16),
      variable: put(u32, this.variable, n * 20),
      estimateAnnotation: put(u8, this.estimateAnnotation, n * 24),
      moeAnnotation: put(u8, this.moeAnnotation, n * 25),
    };
  }
}
