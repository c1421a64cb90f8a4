// Read side of the serving index (written by etl/steps/serving-index.ts, layout described there):
// point lookups of a few geographies × a few codes with positional reads of a file the page cache
// holds, instead of a DuckDB query over Parquet (~3–7 ms floor per query). Only the footer
// (geography and variable dictionaries, row offsets) is kept in memory; values are read on demand.
import fs from 'node:fs';
import type { StoredCell } from './stored-cells.js';
import { IndexFile, indexOf, searchIds } from './serving-index-file.js';
import { ServingIndexV2, type CellSink, type ServingIndexV2Footer } from './serving-index-v2.js';

export { indexOf };

export const SERVING_INDEX_FILE = 'cells.idx';
export const SERVING_INDEX_MAGIC = 'CDSIDX01';
export const SERVING_INDEX_VERSION = 1;
/** Version 2: compact columns (serving-index-v2.ts); what the ETL writes now. */
export const SERVING_INDEX_V2_MAGIC = 'CDSIDX02';
/** estimate f64, moe f64, estimate annotation u8, moe annotation u8. */
export const RECORD_BYTES = 18;

export interface ServingIndexFooter {
  version: number;
  rows: number;
  varWidth: 2 | 4;
  /** Sorted (byte order). */
  geos: string[];
  /** Sorted (byte order). */
  variables: string[];
  annotations: string[];
  synthetic: boolean;
}

/** Version 1 (18-byte float64 records): kept so builds written before version 2 are still served. */
class ServingIndexV1 extends IndexFile<ServingIndexFooter> {
  constructor(
    fd: number,
    footer: ServingIndexFooter,
    private readonly starts: Uint32Array,
  ) {
    super(fd, footer, 64 * 1024);
  }

  static open(file: string, fd: number, size: number, jsonLen: number, footer: ServingIndexFooter): ServingIndexV1 {
    if (footer.version !== SERVING_INDEX_VERSION)
      throw new Error(`${file}: index version ${footer.version}, expected ${SERVING_INDEX_VERSION}`);
    const startsBytes = 4 * (footer.geos.length + 1);
    const startsAt = (RECORD_BYTES + footer.varWidth) * footer.rows;
    if (startsAt + startsBytes + jsonLen + 12 !== size) throw new Error(`${file}: size ${size} does not match its footer`);
    const starts = new Uint32Array(footer.geos.length + 1);
    fs.readSync(fd, Buffer.from(starts.buffer), 0, startsBytes, startsAt);
    return new ServingIndexV1(fd, footer, starts);
  }

  /**
   * Calls `emit` for every stored cell of `geoKey` among `codes` (absent ones are skipped, as a
   * query would return no row for them). Synchronous: a few pread(2) calls on a cached file.
   */
  lookup(geoKey: string, codes: readonly string[], emit: (code: string, cell: StoredCell) => void): void {
    const g = indexOf(this.footer.geos, geoKey);
    if (g < 0) return;
    const first = this.starts[g]!;
    const count = this.starts[g + 1]! - first;
    const { varWidth, rows, variables, annotations } = this.footer;
    // The geography's variable ids (ascending), read in one go.
    const ids = this.buffer(count * varWidth);
    this.readInto(ids, count * varWidth, RECORD_BYTES * rows + first * varWidth);
    const found: Array<{ code: string; row: number }> = [];
    for (const code of codes) {
      const id = indexOf(variables, code);
      if (id < 0) continue;
      const at = searchIds(ids, varWidth, count, id);
      if (at >= 0) found.push({ code, row: first + at });
    }
    if (found.length === 0) return;
    const ann = (b: number) => (b === 0 ? null : annotations[b - 1]!);
    const num = (x: number) => (Number.isNaN(x) ? null : x);
    // One read spanning the found rows when they are close (typical: codes of one table), else one each.
    let min = Infinity;
    let max = -Infinity;
    for (const f of found) {
      min = Math.min(min, f.row);
      max = Math.max(max, f.row);
    }
    const span = (max - min + 1) * RECORD_BYTES;
    if (span <= 64 * 1024) {
      const rec = this.buffer(span);
      this.readInto(rec, span, min * RECORD_BYTES);
      for (const f of found) {
        const o = (f.row - min) * RECORD_BYTES;
        emit(f.code, {
          estimate: num(rec.readDoubleLE(o)),
          moe: num(rec.readDoubleLE(o + 8)),
          estimate_annotation: ann(rec[o + 16]!),
          moe_annotation: ann(rec[o + 17]!),
        });
      }
      return;
    }
    const rec = Buffer.alloc(RECORD_BYTES);
    for (const f of found) {
      this.readInto(rec, RECORD_BYTES, f.row * RECORD_BYTES);
      emit(f.code, {
        estimate: num(rec.readDoubleLE(0)),
        moe: num(rec.readDoubleLE(8)),
        estimate_annotation: ann(rec[16]!),
        moe_annotation: ann(rec[17]!),
      });
    }
  }
}

/**
 * One partition file's serving index, whichever version wrote it. `lookup` is the whole API the
 * observation store uses.
 */
export class ServingIndex {
  private constructor(private readonly impl: ServingIndexV1 | ServingIndexV2) {}

  /** Opens `file`; undefined when it does not exist (a build without an index: DuckDB answers). */
  /** `hold: false` keeps the file out of memory whatever its size (tests: the pread path). */
  static open(file: string, opts: { hold?: boolean } = {}): ServingIndex | undefined {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    try {
      const size = fs.fstatSync(fd).size;
      if (size < 12) throw new Error(`${file}: not a serving index`);
      const tail = Buffer.alloc(12);
      fs.readSync(fd, tail, 0, 12, size - 12);
      const magic = tail.toString('latin1', 4, 12);
      if (magic !== SERVING_INDEX_MAGIC && magic !== SERVING_INDEX_V2_MAGIC) throw new Error(`${file}: not a serving index`);
      const jsonLen = tail.readUInt32LE(0);
      if (jsonLen + 12 > size) throw new Error(`${file}: size ${size} does not match its footer`);
      const json = Buffer.alloc(jsonLen);
      fs.readSync(fd, json, 0, jsonLen, size - 12 - jsonLen);
      const footer = JSON.parse(json.toString('utf8')) as ServingIndexFooter | ServingIndexV2Footer;
      const impl =
        magic === SERVING_INDEX_MAGIC
          ? ServingIndexV1.open(file, fd, size, jsonLen, footer as ServingIndexFooter)
          : ServingIndexV2.open(file, fd, size - 12 - jsonLen, footer as ServingIndexV2Footer);
      if (opts.hold !== false) impl.holdIfSmall(size);
      return new ServingIndex(impl);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  get synthetic(): boolean {
    return this.impl.synthetic;
  }

  /** Geography keys the partition holds (sorted). */
  get geos(): readonly string[] {
    return this.impl.geos;
  }

  /** Whether every geography of the partition is in `keys` (a request covering a whole file). */
  coveredBy(keys: ReadonlySet<string>): boolean {
    const geos = this.impl.geos;
    if (keys.size < geos.length) return false;
    for (const g of geos) if (!keys.has(g)) return false;
    return true;
  }

  /** Format version of the file (1: float64 records; 2: compact columns). */
  get version(): number {
    return this.impl instanceof ServingIndexV1 ? 1 : 2;
  }

  /**
   * Calls `emit` for every stored cell of `geoKey` among `codes` (absent ones are skipped, as a
   * query would return no row for them). Synchronous: a few pread(2) calls on a cached file.
   */
  lookup(geoKey: string, codes: readonly string[], emit: (code: string, cell: StoredCell) => void): void {
    this.impl.lookup(geoKey, codes, emit);
  }

  /** `lookup` of several geographies at once, each cell to `sink` by its geography's and code's index. */
  lookupMany(geoKeys: readonly string[], codes: readonly string[], sink: CellSink): void {
    if (this.impl instanceof ServingIndexV2) {
      this.impl.lookupMany(geoKeys, codes, sink);
      return;
    }
    const position = new Map(codes.map((c, i) => [c, i]));
    geoKeys.forEach((geo, k) =>
      this.impl.lookup(geo, codes, (code, cell) =>
        sink(k, position.get(code)!, cell.estimate, cell.moe, cell.estimate_annotation, cell.moe_annotation),
      ),
    );
  }

  close(): void {
    this.impl.close();
  }
}
