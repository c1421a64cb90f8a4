// Write a FlatGeobuf file WITH its packed Hilbert R-tree. The flatgeobuf JS serializer writes no
// index (index_node_size 0) and takes the whole collection at once, so we use its own encoders
// (buildHeader, buildFeature) feature by feature, sort the features in Hilbert order, build the
// tree ourselves and patch index_node_size in the header. FgbSpool does the same without holding
// the features (national tracts and block groups). The result is
// what GDAL writes with SPATIAL_INDEX=YES and is read back by flatgeobuf's own bbox search.
import { createHash } from 'node:crypto';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import * as flatbuffers from 'flatbuffers';
import type { Feature, Geometry } from 'geojson';
import type { ColumnMeta } from 'flatgeobuf/lib/mjs/column-meta.js';
import { magicbytes } from 'flatgeobuf/lib/mjs/constants.js';
import { GeometryType } from 'flatgeobuf/lib/mjs/flat-geobuf/geometry-type.js';
import { Header } from 'flatgeobuf/lib/mjs/flat-geobuf/header.js';
import { buildFeature } from 'flatgeobuf/lib/mjs/generic/feature.js';
import { buildHeader, mapColumn } from 'flatgeobuf/lib/mjs/generic/featurecollection.js';
import { toGeometryType } from 'flatgeobuf/lib/mjs/generic/geometry.js';
import { parseGC, parseGeometry } from 'flatgeobuf/lib/mjs/geojson/geometry.js';
import type { HeaderMeta } from 'flatgeobuf/lib/mjs/header-meta.js';

export const NODE_SIZE = 16;
const MAGIC_LEN = 8;
const NODE_BYTES = 40;

export type Bbox = [number, number, number, number];

export function geometryBbox(g: Geometry): Bbox {
  const b: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    const a = c as number[] | unknown[];
    if (typeof a[0] === 'number') {
      const x = a[0] as number;
      const y = a[1] as number;
      if (x < b[0]) b[0] = x;
      if (y < b[1]) b[1] = y;
      if (x > b[2]) b[2] = x;
      if (y > b[3]) b[3] = y;
    } else for (const child of a) visit(child);
  };
  if (g.type === 'GeometryCollection')
    for (const child of g.geometries) {
      const cb = geometryBbox(child);
      extend(b, cb);
    }
  else visit(g.coordinates);
  return b;
}

function extend(b: Bbox, o: Bbox): void {
  b[0] = Math.min(b[0], o[0]);
  b[1] = Math.min(b[1], o[1]);
  b[2] = Math.max(b[2], o[2]);
  b[3] = Math.max(b[3], o[3]);
}

/** Hilbert curve index of (x, y) in a 2^16 grid (the algorithm flatbush and FlatGeobuf use). */
function hilbert(x: number, y: number): number {
  let a = x ^ y;
  let b = 0xffff ^ a;
  let c = 0xffff ^ (x | y);
  let d = x & (y ^ 0xffff);
  let A = a | (b >> 1);
  let B = (a >> 1) ^ a;
  let C = c ^ ((c >> 1) ^ (b & (d >> 1)));
  let D = d ^ ((a & (c >> 1)) ^ (d >> 1));
  a = (A & (A >> 2)) ^ (B & (B >> 2));
  b = (A & (B >> 2)) ^ (B & ((A ^ B) >> 2));
  c = C ^ ((A & (C >> 2)) ^ (B & (D >> 2)));
  d = D ^ ((B & (C >> 2)) ^ ((A ^ B) & (D >> 2)));
  A = (a & (a >> 4)) ^ (b & (b >> 4));
  B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4));
  C = c ^ ((a & (c >> 4)) ^ (b & (d >> 4)));
  D = d ^ ((b & (c >> 4)) ^ ((a ^ b) & (d >> 4)));
  c = C ^ ((A & (C >> 8)) ^ (B & (D >> 8)));
  d = D ^ ((B & (C >> 8)) ^ ((A ^ B) & (D >> 8)));
  c ^= c >> 1;
  d ^= d >> 1;
  a = x ^ y;
  b = d | (0xffff ^ (a | c));
  a = (a | (a << 8)) & 0x00ff00ff;
  a = (a | (a << 4)) & 0x0f0f0f0f;
  a = (a | (a << 2)) & 0x33333333;
  a = (a | (a << 1)) & 0x55555555;
  b = (b | (b << 8)) & 0x00ff00ff;
  b = (b | (b << 4)) & 0x0f0f0f0f;
  b = (b | (b << 2)) & 0x33333333;
  b = (b | (b << 1)) & 0x55555555;
  return ((b << 1) | a) >>> 0;
}

/** Features must share one property schema (same keys, same value types) and have geometries. */
export type FgbFeature = Feature<Geometry, Record<string, string>>;

/** The flatgeobuf library's own encoders (the pieces its `serialize` is made of), one feature at a time. */
function columnsOf(f: FgbFeature): ColumnMeta[] {
  return Object.keys(f.properties).map((k) => mapColumn(f.properties, k));
}

function schemaOf(columns: ColumnMeta[]): string {
  return columns.map((c) => `${c.name}:${c.type}`).join(',');
}

function encodeFeature(f: FgbFeature, columns: ColumnMeta[]): Uint8Array {
  const g = f.geometry;
  const parsed = g.type === 'GeometryCollection' ? parseGC(g) : parseGeometry(g);
  return buildFeature(parsed, f.properties, { columns } as HeaderMeta);
}

/** Size-prefixed header as `serialize` writes it, with index_node_size patched to NODE_SIZE. */
function headerBytes(columns: ColumnMeta[], geometryTypes: Set<GeometryType>, count: number): Uint8Array {
  const geometryType = geometryTypes.size === 1 ? [...geometryTypes][0]! : GeometryType.Unknown;
  const header = buildHeader({
    geometryType,
    columns,
    envelope: null,
    featuresCount: count,
    indexNodeSize: 0,
    crs: null,
    title: null,
    description: null,
    metadata: null,
  });
  patchIndexNodeSize(header);
  return header;
}

/**
 * File (Hilbert) order of features by their boxes (4 numbers each): by the Hilbert index of each
 * box's centre in the extent of all, ties in input order.
 */
function hilbertOrder(boxes: Float64Array, n: number): Uint32Array {
  const total: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) extend(total, [boxes[4 * i]!, boxes[4 * i + 1]!, boxes[4 * i + 2]!, boxes[4 * i + 3]!]);
  const w = total[2] - total[0] || 1;
  const h = total[3] - total[1] || 1;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const hx = Math.floor((0xffff * ((boxes[4 * i]! + boxes[4 * i + 2]!) / 2 - total[0])) / w);
    const hy = Math.floor((0xffff * ((boxes[4 * i + 1]! + boxes[4 * i + 3]!) / 2 - total[1])) / h);
    keys[i] = hilbert(hx, hy);
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order.sort((p, q) => keys[p]! - keys[q]! || p - q);
}

/** Magic, header and index of a file whose features (in file order) have these lengths. */
function preamble(
  columns: ColumnMeta[],
  geometryTypes: Set<GeometryType>,
  boxes: Float64Array,
  lengths: ArrayLike<number>,
  order: Uint32Array,
): Uint8Array {
  const n = order.length;
  const header = headerBytes(columns, geometryTypes, n);
  const sortedBoxes: Bbox[] = new Array(n);
  // Byte offset of each feature relative to the start of the feature section.
  const offsets: number[] = new Array(n);
  let pos = 0;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    sortedBoxes[k] = [boxes[4 * i]!, boxes[4 * i + 1]!, boxes[4 * i + 2]!, boxes[4 * i + 3]!];
    offsets[k] = pos;
    pos += lengths[i]!;
  }
  const tree = buildTree(sortedBoxes, offsets);
  const out = new Uint8Array(MAGIC_LEN + header.length + tree.length);
  out.set(magicbytes, 0);
  out.set(header, MAGIC_LEN);
  out.set(tree, MAGIC_LEN + header.length);
  return out;
}

/** Encoded file plus the input features in file (Hilbert) order. */
export function encodeFgb(features: FgbFeature[]): { data: Uint8Array; ordered: FgbFeature[] } {
  if (features.length === 0) throw new Error('refusing to write an empty FlatGeobuf file');
  const n = features.length;
  const boxes = new Float64Array(4 * n);
  features.forEach((f, i) => boxes.set(geometryBbox(f.geometry), 4 * i));
  const order = hilbertOrder(boxes, n);
  const columns = columnsOf(features[order[0]!]!);
  const encoded = features.map((f) => encodeFeature(f, columns));
  const types = new Set(features.map((f) => toGeometryType(f.geometry.type)));
  const head = preamble(
    columns,
    types,
    boxes,
    encoded.map((e) => e.length),
    order,
  );
  const out = new Uint8Array(head.length + encoded.reduce((a, e) => a + e.length, 0));
  out.set(head, 0);
  let pos = head.length;
  for (const i of order) {
    out.set(encoded[i]!, pos);
    pos += encoded[i]!.length;
  }
  return { data: out, ordered: [...order].map((i) => features[i]!) };
}

const SPOOL_CHUNK = 4 << 20;

/**
 * A FlatGeobuf file written from features given one at a time, holding none of them: each is
 * encoded on arrival and appended to a spool file; only its box, length and key stay in memory
 * (about 100 bytes a feature). `finish` then writes the file in Hilbert order with its index,
 * reading the encoded features back from the spool. The bytes are those `encodeFgb` gives for the
 * same features in the same order (the index needs every box before the first feature is placed,
 * hence the two passes).
 */
export class FgbSpool {
  private fh: FileHandle | undefined;
  private boxes = new Float64Array(4 * 1024);
  private lengths = new Uint32Array(1024);
  private spoolAt = new Float64Array(1024);
  private keys: string[] = [];
  private columns: ColumnMeta[] | undefined;
  private schema = '';
  private types = new Set<GeometryType>();
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private flushed = 0;

  constructor(readonly spoolFile: string) {}

  get count(): number {
    return this.keys.length;
  }

  /** Bytes of encoded features on disk in the spool (what `flush` has written). */
  get spooledBytes(): number {
    return this.flushed;
  }

  async add(f: FgbFeature): Promise<void> {
    const n = this.keys.length;
    if (n === this.lengths.length) this.grow();
    // The column list is the first feature's; every later feature must have the same schema.
    const columns = columnsOf(f);
    if (!this.columns) {
      this.columns = columns;
      this.schema = schemaOf(columns);
    } else if (schemaOf(columns) !== this.schema) throw new Error(`feature ${f.properties.geo_key} has another property schema`);
    const bytes = encodeFeature(f, this.columns);
    this.boxes.set(geometryBbox(f.geometry), 4 * n);
    this.lengths[n] = bytes.length;
    this.spoolAt[n] = this.flushed + this.pendingBytes;
    this.keys.push(f.properties.geo_key!);
    this.types.add(toGeometryType(f.geometry.type));
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= SPOOL_CHUNK) await this.flush();
  }

  /** Write what is pending to the spool file (also called after each source file, so what was read is on disk). */
  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    if (!this.fh) {
      await fs.mkdir(path.dirname(this.spoolFile), { recursive: true });
      this.fh = await fs.open(this.spoolFile, 'w+');
    }
    await this.fh.write(Buffer.concat(this.pending), 0, this.pendingBytes, this.flushed);
    this.flushed += this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private grow(): void {
    const boxes = new Float64Array(this.boxes.length * 2);
    boxes.set(this.boxes);
    this.boxes = boxes;
    const lengths = new Uint32Array(this.lengths.length * 2);
    lengths.set(this.lengths);
    this.lengths = lengths;
    const at = new Float64Array(this.spoolAt.length * 2);
    at.set(this.spoolAt);
    this.spoolAt = at;
  }

  /** Write `file` and its key sidecar (as writeFgb), then delete the spool. */
  async finish(file: string): Promise<{ bytes: number; sha256: string; feature_count: number }> {
    const n = this.keys.length;
    if (n === 0 || !this.columns) throw new Error('refusing to write an empty FlatGeobuf file');
    await this.flush();
    const order = hilbertOrder(this.boxes, n);
    const hash = createHash('sha256');
    await fs.mkdir(path.dirname(file), { recursive: true });
    const out = await fs.open(file, 'w');
    let bytes = 0;
    const write = async (chunk: Uint8Array) => {
      hash.update(chunk);
      await out.write(chunk, 0, chunk.length, bytes);
      bytes += chunk.length;
    };
    try {
      await write(preamble(this.columns, this.types, this.boxes, this.lengths, order));
      let buf = Buffer.alloc(SPOOL_CHUNK);
      let used = 0;
      for (const i of order) {
        const len = this.lengths[i]!;
        if (used + len > buf.length) {
          await write(buf.subarray(0, used));
          used = 0;
          if (len > buf.length) buf = Buffer.alloc(len);
        }
        await this.fh!.read(buf, used, len, this.spoolAt[i]!);
        used += len;
      }
      if (used > 0) await write(buf.subarray(0, used));
    } finally {
      await out.close();
    }
    const keys = new Array<string>(n);
    for (let k = 0; k < n; k++) keys[k] = this.keys[order[k]!]!;
    await fs.writeFile(file.replace(/\.fgb$/, '.keys.json'), JSON.stringify(keys));
    await this.discard();
    return { bytes, sha256: hash.digest('hex'), feature_count: n };
  }

  /** Close and delete the spool file. */
  async discard(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
    await fs.rm(this.spoolFile, { force: true });
  }
}

function patchIndexNodeSize(sizePrefixedHeader: Uint8Array): void {
  const hb = new flatbuffers.ByteBuffer(sizePrefixedHeader);
  const h = Header.getSizePrefixedRootAsHeader(hb);
  const raw = h as unknown as { bb_pos: number };
  const field = hb.__offset(raw.bb_pos, 22);
  // The serializer writes 0 explicitly (0 differs from the schema default 16), so the slot exists.
  if (!field) throw new Error('FlatGeobuf header has no index_node_size slot to patch');
  hb.writeUint16(raw.bb_pos + field, NODE_SIZE);
  if (h.indexNodeSize() !== NODE_SIZE) throw new Error('index_node_size patch failed');
}

/** Packed R-tree in FlatGeobuf layout: root first, leaves last; leaf offset = feature byte offset. */
function buildTree(boxes: Bbox[], offsets: number[]): Uint8Array {
  const levels: number[] = [boxes.length];
  let n = boxes.length;
  do {
    n = Math.ceil(n / NODE_SIZE);
    levels.push(n);
  } while (n !== 1);
  const numNodes = levels.reduce((a, b) => a + b, 0);
  // levelStart[k] = index of the first node of level k (k = 0 leaves).
  const levelStart: number[] = [];
  let end = numNodes;
  for (const count of levels) {
    levelStart.push(end - count);
    end -= count;
  }
  const buf = new ArrayBuffer(numNodes * NODE_BYTES);
  const dv = new DataView(buf);
  const node = (idx: number, b: Bbox, off: number) => {
    const p = idx * NODE_BYTES;
    dv.setFloat64(p, b[0], true);
    dv.setFloat64(p + 8, b[1], true);
    dv.setFloat64(p + 16, b[2], true);
    dv.setFloat64(p + 24, b[3], true);
    dv.setBigUint64(p + 32, BigInt(off), true);
  };
  let childBoxes = boxes;
  boxes.forEach((b, i) => node(levelStart[0]! + i, b, offsets[i]!));
  for (let k = 1; k < levels.length; k++) {
    const parentBoxes: Bbox[] = [];
    for (let c = 0; c < childBoxes.length; c += NODE_SIZE) {
      const b: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
      for (let j = c; j < Math.min(c + NODE_SIZE, childBoxes.length); j++) extend(b, childBoxes[j]!);
      node(levelStart[k]! + parentBoxes.length, b, levelStart[k - 1]! + c);
      parentBoxes.push(b);
    }
    childBoxes = parentBoxes;
  }
  return new Uint8Array(buf);
}

/**
 * Write `<file>` and its key sidecar `<file without .fgb>.keys.json` (geo_key per feature in file
 * order) so the store finds one feature by key without decoding the whole file.
 */
export async function writeFgb(file: string, features: FgbFeature[]): Promise<{ bytes: number; sha256: string }> {
  const { data, ordered } = encodeFgb(features);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, data);
  await fs.writeFile(file.replace(/\.fgb$/, '.keys.json'), JSON.stringify(ordered.map((f) => f.properties.geo_key)));
  return { bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}
