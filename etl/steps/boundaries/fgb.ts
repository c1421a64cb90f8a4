// Write a FlatGeobuf file WITH its packed Hilbert R-tree. The flatgeobuf JS serializer writes no
// index (index_node_size 0), so we let it encode header and features, then sort the features in
// Hilbert order, build the tree ourselves and patch index_node_size in the header. The result is
// what GDAL writes with SPATIAL_INDEX=YES and is read back by flatgeobuf's own bbox search.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as flatbuffers from 'flatbuffers';
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import { serialize } from 'flatgeobuf/lib/mjs/geojson.js';
import { Header } from 'flatgeobuf/lib/mjs/flat-geobuf/header.js';

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

/** Encoded file plus the input features in file (Hilbert) order. */
export function encodeFgb(features: FgbFeature[]): { data: Uint8Array; ordered: FgbFeature[] } {
  if (features.length === 0) throw new Error('refusing to write an empty FlatGeobuf file');
  const boxes = features.map((f) => geometryBbox(f.geometry));
  const total: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
  for (const b of boxes) extend(total, b);
  const w = total[2] - total[0] || 1;
  const h = total[3] - total[1] || 1;
  const order = features.map((_, i) => {
    const b = boxes[i]!;
    const hx = Math.floor((0xffff * ((b[0] + b[2]) / 2 - total[0])) / w);
    const hy = Math.floor((0xffff * ((b[1] + b[3]) / 2 - total[1])) / h);
    return { i, h: hilbert(hx, hy) };
  });
  order.sort((p, q) => p.h - q.h || p.i - q.i);
  const sorted = order.map((o) => features[o.i]!);
  const sortedBoxes = order.map((o) => boxes[o.i]!);

  const plain = serialize({ type: 'FeatureCollection', features: sorted } as FeatureCollection);
  const bb = new flatbuffers.ByteBuffer(plain);
  const headerLen = bb.readUint32(MAGIC_LEN);
  const featuresStart = MAGIC_LEN + 4 + headerLen;
  const header = plain.slice(MAGIC_LEN, featuresStart);
  patchIndexNodeSize(header);

  // Byte offset of each feature relative to the start of the feature section.
  const offsets: number[] = [];
  let pos = featuresStart;
  while (pos < plain.length) {
    offsets.push(pos - featuresStart);
    pos += 4 + bb.readUint32(pos);
  }
  if (offsets.length !== features.length) throw new Error('feature count mismatch while indexing');

  const tree = buildTree(sortedBoxes, offsets);
  const out = new Uint8Array(MAGIC_LEN + header.length + tree.length + (plain.length - featuresStart));
  out.set(plain.subarray(0, MAGIC_LEN), 0);
  out.set(header, MAGIC_LEN);
  out.set(tree, MAGIC_LEN + header.length);
  out.set(plain.subarray(featuresStart), MAGIC_LEN + header.length + tree.length);
  return { data: out, ordered: sorted };
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
