// Encoding of the serving index file (format version 2, layout in src/store/serving-index-v2.ts)
// from a partition's cells in (geography, variable) order. No DuckDB here: the parse workers, which
// run an esbuild bundle without native modules, build indexes with it (serving-index-builder.ts).
import fs from 'node:fs';
import { SERVING_INDEX_V2_MAGIC } from '../../src/store/serving-index.js';
import { ENCODING_BYTES, NULL_I16, NULL_I32, type ServingIndexV2Footer, type ValueEncoding } from '../../src/store/serving-index-v2.js';

/**
 * A partition's cells in (geography, variable) order, as both writers hand them to `writeIndexFile`:
 * DuckDB's reading of the Parquet file (`writeServingIndex`) and the parse's own columns
 * (serving-index-builder.ts).
 */
export interface IndexColumns {
  /** Sorted, byte order. */
  geos: string[];
  variables: string[];
  annotations: string[];
  rows: number;
  /** Every geography × every variable once: cell g·nv + v. */
  dense: boolean;
  /** NaN = null; in (geography, variable) order. */
  estimate: Float64Array;
  moe: Float64Array;
  /** Sparse only: variable id per row, and first row per geography (geos + 1 entries). */
  vars?: Uint16Array | Uint32Array;
  starts?: Uint32Array;
  /** First annotation entry per geography, and 6-byte entries (u32 variable, u8 ea, u8 ma); absent with none. */
  annStarts?: Uint32Array;
  ann?: Buffer;
  annotated: number;
}

/** Variable id width: u16 below 65,536 variables. */
export const varWidthOf = (variables: number): 2 | 4 => (variables < 65_536 ? 2 : 4);

/** The narrowest encoding that holds every value of `x` (NaN = null) exactly. */
export function narrowest(x: Float64Array): ValueEncoding {
  let fits16 = true;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v !== v) continue; // null
    // Exact integers only; -0 would come back as 0.
    if (!Number.isInteger(v) || (v === 0 && 1 / v < 0) || v <= NULL_I32 || v > 2147483647) return 'f64';
    if (v <= NULL_I16 || v > 32767) fits16 = false;
  }
  return fits16 ? 'i16' : 'i32';
}

/** Interleaved records (estimate, MOE) in the chosen encodings. */
function records(est: Float64Array, moe: Float64Array, ee: ValueEncoding, me: ValueEncoding): Buffer {
  const ew = ENCODING_BYTES[ee];
  const R = ew + ENCODING_BYTES[me];
  const buf = Buffer.alloc(est.length * R);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const put = (enc: ValueEncoding, v: number, o: number) => {
    if (enc === 'i16') dv.setInt16(o, v !== v ? NULL_I16 : v, true);
    else if (enc === 'i32') dv.setInt32(o, v !== v ? NULL_I32 : v, true);
    else dv.setFloat64(o, v, true);
  };
  for (let i = 0, o = 0; i < est.length; i++, o += R) {
    put(ee, est[i]!, o);
    put(me, moe[i]!, o + ew);
  }
  return buf;
}

export interface IndexWritten {
  rows: number;
  bytes: number;
  dense: boolean;
  estimate: ValueEncoding;
  moe: ValueEncoding;
}

const bytesOf = (a: ArrayBufferView | undefined) => a && Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Encode `cols` as a version-2 index file at `target` (atomically: `.tmp` then rename). */
export function writeIndexFile(target: string, cols: IndexColumns, opts: { synthetic?: boolean } = {}): IndexWritten {
  const { rows, dense } = cols;
  if (rows >= 2 ** 32) throw new Error(`${target}: ${rows} rows, the index holds fewer than 2^32`);
  if (cols.annotations.length > 254)
    throw new Error(`${target}: ${cols.annotations.length} distinct annotation codes, the index holds at most 254`);
  const estimate = narrowest(cols.estimate);
  const moeEnc = narrowest(cols.moe);
  const sections: Array<[keyof ServingIndexV2Footer['sections'], Buffer | undefined]> = [
    ['values', records(cols.estimate, cols.moe, estimate, moeEnc)],
    ['vars', bytesOf(cols.vars)],
    ['starts', bytesOf(cols.starts)],
    ['annStarts', bytesOf(cols.annStarts)],
    ['ann', cols.ann],
  ];
  const footer: ServingIndexV2Footer = {
    version: 2,
    rows,
    dense,
    estimate,
    moe: moeEnc,
    varWidth: varWidthOf(cols.variables.length),
    geos: cols.geos,
    variables: cols.variables,
    annotations: cols.annotations,
    annotated: cols.annotated,
    synthetic: opts.synthetic ?? false,
    sections: {},
  };
  const tmp = `${target}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    let off = 0;
    for (const [name, buf] of sections) {
      if (!buf) continue;
      fs.writeSync(fd, buf, 0, buf.length, off);
      footer.sections[name] = [off, buf.length];
      off += buf.length;
    }
    const json = Buffer.from(JSON.stringify(footer));
    const tail = Buffer.alloc(12);
    tail.writeUInt32LE(json.length, 0);
    tail.write(SERVING_INDEX_V2_MAGIC, 4, 'latin1');
    fs.writeSync(fd, json, 0, json.length, off);
    fs.writeSync(fd, tail, 0, 12, off + json.length);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, target);
    return { rows, bytes: off + json.length + 12, dense, estimate, moe: moeEnc };
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      /* already closed */
    }
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
