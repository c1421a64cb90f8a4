// The cells a query found, held by block (one vintage × geography) and code column in typed
// arrays, rather than one entry per cell under a `vintage|geo|code` string. On a 45,000-cell answer
// (all California tracts × 5) building those keys, looking each up again and collecting the strings
// and objects was most of the service's time after DuckDB's own (docs/performance.md):
// here a caller looks a block up once per geography and reads the codes by column number.

export interface StoredCell {
  estimate: number | null;
  moe: number | null;
  estimate_annotation: string | null;
  moe_annotation: string | null;
}

const PRESENT = 1;
const ESTIMATE_NULL = 2;
const MOE_NULL = 4;

export class StoredCells implements ReadonlyMap<string, StoredCell> {
  private readonly codeIndex = new Map<string, number>();
  private readonly blocks = new Map<number, Map<string, number>>();
  private readonly blockKeys: Array<{ vintage: number; geo: string }> = [];
  private estimates: Float64Array;
  private moes: Float64Array;
  private flags: Uint8Array;
  /** Annotations are rare (jam values): kept by slot, only where present. */
  private readonly estimateAnnotations = new Map<number, string>();
  private readonly moeAnnotations = new Map<number, string>();
  private count = 0;

  /** `codes`: the census codes a query asked for; cells of any other code are not kept. */
  constructor(
    readonly codes: readonly string[],
    expectedCells = 0,
  ) {
    codes.forEach((c, i) => {
      if (!this.codeIndex.has(c)) this.codeIndex.set(c, i);
    });
    const slots = Math.max(codes.length, expectedCells + codes.length);
    this.estimates = new Float64Array(slots);
    this.moes = new Float64Array(slots);
    this.flags = new Uint8Array(slots);
  }

  /** Column of a code, -1 for a code not asked for. */
  column(code: string): number {
    return this.codeIndex.get(code) ?? -1;
  }

  /** Block of a vintage and geography, -1 when the query found no cell of it. */
  block(vintage: number, geo: string): number {
    return this.blocks.get(vintage)?.get(geo) ?? -1;
  }

  /** Whether the cell of a block (≥ 0) and column (≥ 0) was found. */
  found(block: number, column: number): boolean {
    return block >= 0 && column >= 0 && (this.flags[block * this.codes.length + column]! & PRESENT) !== 0;
  }

  /** The cell of a block and column, undefined when absent. */
  at(block: number, column: number): StoredCell | undefined {
    if (!this.found(block, column)) return undefined;
    const slot = block * this.codes.length + column;
    const f = this.flags[slot]!;
    return {
      estimate: f & ESTIMATE_NULL ? null : this.estimates[slot]!,
      moe: f & MOE_NULL ? null : this.moes[slot]!,
      estimate_annotation: this.estimateAnnotations.get(slot) ?? null,
      moe_annotation: this.moeAnnotations.get(slot) ?? null,
    };
  }

  /**
   * Copy the cell of a block and column into position i of column arrays (the engine's grid),
   * without an object per cell; false, and nothing written, when absent.
   */
  copyTo(
    block: number,
    column: number,
    to: { estimate: (number | null)[]; moe: (number | null)[]; estimate_annotation: (string | null)[]; moe_annotation: (string | null)[] },
    i: number,
  ): boolean {
    if (!this.found(block, column)) return false;
    const slot = block * this.codes.length + column;
    const f = this.flags[slot]!;
    to.estimate[i] = f & ESTIMATE_NULL ? null : this.estimates[slot]!;
    to.moe[i] = f & MOE_NULL ? null : this.moes[slot]!;
    to.estimate_annotation[i] = this.estimateAnnotations.size ? (this.estimateAnnotations.get(slot) ?? null) : null;
    to.moe_annotation[i] = this.moeAnnotations.size ? (this.moeAnnotations.get(slot) ?? null) : null;
    return true;
  }

  /** Add a found cell (a second one for the same vintage, geography and code replaces the first). */
  put(vintage: number, geo: string, code: string, cell: StoredCell): void {
    const column = this.codeIndex.get(code);
    if (column === undefined) return;
    this.putAt(this.blockFor(vintage, geo), column, cell.estimate, cell.moe, cell.estimate_annotation, cell.moe_annotation);
  }

  /** The same, by column, for a reader that numbered the codes itself. */
  putAt(block: number, column: number, estimate: number | null, moe: number | null, ea: string | null, ma: string | null): void {
    const slot = block * this.codes.length + column;
    const had = this.flags[slot]! & PRESENT;
    let f = PRESENT;
    if (estimate === null) f |= ESTIMATE_NULL;
    else this.estimates[slot] = estimate;
    if (moe === null) f |= MOE_NULL;
    else this.moes[slot] = moe;
    this.flags[slot] = f;
    if (ea !== null) this.estimateAnnotations.set(slot, ea);
    else if (had) this.estimateAnnotations.delete(slot);
    if (ma !== null) this.moeAnnotations.set(slot, ma);
    else if (had) this.moeAnnotations.delete(slot);
    if (!had) this.count++;
  }

  /** The block of a vintage and geography, added when new. */
  blockFor(vintage: number, geo: string): number {
    let byGeo = this.blocks.get(vintage);
    if (!byGeo) this.blocks.set(vintage, (byGeo = new Map()));
    let b = byGeo.get(geo);
    if (b === undefined) {
      byGeo.set(geo, (b = this.blockKeys.length));
      this.blockKeys.push({ vintage, geo });
      this.grow((b + 1) * this.codes.length);
    }
    return b;
  }

  private grow(slots: number): void {
    if (slots <= this.flags.length) return;
    const size = Math.max(slots, this.flags.length * 2);
    const grown = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.estimates = grown(this.estimates, (n) => new Float64Array(n));
    this.moes = grown(this.moes, (n) => new Float64Array(n));
    this.flags = grown(this.flags, (n) => new Uint8Array(n));
  }

  // ReadonlyMap over `vintage|geo|code` keys: for tests, benchmarks
  // and callers that want every cell; the engine reads by block and column.

  get size(): number {
    return this.count;
  }

  get(key: string): StoredCell | undefined {
    const [vintage, geo, code] = key.split('|');
    return this.at(this.block(Number(vintage), geo ?? ''), this.column(code ?? ''));
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *entries(): MapIterator<[string, StoredCell]> {
    for (let b = 0; b < this.blockKeys.length; b++) {
      const { vintage, geo } = this.blockKeys[b]!;
      for (let c = 0; c < this.codes.length; c++) {
        const cell = this.codeIndex.get(this.codes[c]!) === c ? this.at(b, c) : undefined;
        if (cell) yield [`${vintage}|${geo}|${this.codes[c]}`, cell];
      }
    }
  }

  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<StoredCell> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[string, StoredCell]> {
    return this.entries();
  }

  forEach(fn: (value: StoredCell, key: string, map: ReadonlyMap<string, StoredCell>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}
