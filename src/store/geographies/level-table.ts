// One geography level in memory: rows sorted by FIPS (then first valid vintage) in typed columns.
// Sorted FIPS make a wildcard prefix one contiguous range found by two binary searches, and keep
// 600k+ tract/block-group rows at a few tens of MB instead of one JS object per row.
import type { GeoType } from '../../domain/geo/keys.js';
import type { LevelColumns } from './format.js';

/** Plain loop: TypedArray.from with a mapping callback is several times slower on 465k rows. */
function numbers(a: (number | null)[]): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    out[i] = v === null || v === undefined ? NaN : v;
  }
  return out;
}

export class LevelTable {
  readonly size: number;
  readonly fips: string[];
  readonly from: Uint16Array;
  readonly to: Uint16Array;
  /** NaN where the source has no value. */
  readonly population: Float64Array;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  readonly prov: Uint8Array;
  readonly name: string[] | undefined;
  readonly states: string[][] | undefined;
  readonly kind: string[] | undefined;
  readonly shortName: string[] | undefined;
  /** `{type}:{fips}` per row, built on first use: one string instance (hash computed once) per row. */
  private keys: (string | undefined)[] | undefined;

  constructor(
    readonly type: GeoType,
    c: LevelColumns,
  ) {
    this.size = c.fips.length;
    this.fips = c.fips;
    this.from = Uint16Array.from(c.valid_from);
    this.to = Uint16Array.from(c.valid_to);
    this.population = numbers(c.population);
    this.lat = numbers(c.lat);
    this.lon = numbers(c.lon);
    this.prov = Uint8Array.from(c.prov);
    this.name = c.name;
    this.states = c.states?.map((s) => s.split(';').filter(Boolean));
    this.kind = c.kind;
    this.shortName = c.short_name;
  }

  /** The canonical key of row `i`. */
  keyAt(i: number): string {
    const keys = (this.keys ??= new Array<string | undefined>(this.size));
    let k = keys[i];
    if (k === undefined) {
      k = `${this.type}:${this.fips[i]!}`;
      keys[i] = k;
    }
    return k;
  }

  /** Keys of rows, in order. */
  keysOf(rows: readonly number[]): string[] {
    const out = new Array<string>(rows.length);
    for (let j = 0; j < rows.length; j++) out[j] = this.keyAt(rows[j]!);
    return out;
  }

  /** First row whose FIPS is ≥ `s`. */
  lowerBound(s: string): number {
    let lo = 0,
      hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.fips[mid]! < s) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Half-open row range of every FIPS starting with `prefix` (':' sorts right after '9'). */
  prefixRange(prefix: string): [number, number] {
    return [this.lowerBound(prefix), this.lowerBound(`${prefix}:`)];
  }

  validAt(i: number, vintage: number): boolean {
    return this.from[i]! <= vintage && vintage <= this.to[i]!;
  }

  /** The row of `fips` valid in `vintage`; without a vintage the latest definition. -1 if none. */
  find(fips: string, vintage?: number): number {
    let i = this.lowerBound(fips);
    let best = -1;
    for (; i < this.size && this.fips[i] === fips; i++) {
      if (vintage === undefined)
        best = i; // rows are ordered by valid_from: the last is the latest
      else if (this.validAt(i, vintage)) return i;
    }
    return best;
  }

  /** Every row (definition) of `fips`. */
  rowsOf(fips: string): number[] {
    const out: number[] = [];
    for (let i = this.lowerBound(fips); i < this.size && this.fips[i] === fips; i++) out.push(i);
    return out;
  }

  /** Rows with the prefix that are valid in `vintage`. */
  rowsWithPrefix(prefix: string, vintage: number): number[] {
    const [lo, hi] = this.prefixRange(prefix);
    const out: number[] = [];
    for (let i = lo; i < hi; i++) if (this.validAt(i, vintage)) out.push(i);
    return out;
  }

  countWithPrefix(prefix: string, vintage: number): number {
    const [lo, hi] = this.prefixRange(prefix);
    let n = 0;
    for (let i = lo; i < hi; i++) if (this.validAt(i, vintage)) n++;
    return n;
  }
}
