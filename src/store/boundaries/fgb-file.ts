// Random access to one FlatGeobuf file written by the `boundaries` step. The packed R-tree's leaf
// nodes hold every feature's bbox and byte offset, so opening reads the header and leaves only;
// features are decoded one at a time on demand (never the whole file at once).
import fs from 'node:fs/promises';
import * as flatbuffers from 'flatbuffers';
import Flatbush from 'flatbush';
import type { Feature, Geometry } from 'geojson';
import { Feature as FgbFeature } from 'flatgeobuf/lib/mjs/flat-geobuf/feature.js';
import { fromFeature } from 'flatgeobuf/lib/mjs/geojson/feature.js';
import { fromByteBuffer, type HeaderMeta } from 'flatgeobuf/lib/mjs/header-meta.js';
import type { BoundaryProps } from './manifest.js';

const MAGIC_LEN = 8;
const NODE_BYTES = 40;

export type BoundaryFeature = Feature<Geometry, BoundaryProps>;

export class FgbFile {
  readonly count: number;
  /** Per feature (file order): [minX, minY, maxX, maxY]. */
  readonly boxes: Float64Array;
  readonly index: Flatbush;
  private readonly offsets: Float64Array;
  private readonly bb: flatbuffers.ByteBuffer;
  private readonly header: HeaderMeta;
  private readonly keyIndex: Map<string, number>;

  private constructor(
    readonly bytes: Uint8Array,
    readonly keys: string[],
  ) {
    if (bytes[0] !== 0x66 || bytes[1] !== 0x67 || bytes[2] !== 0x62) throw new Error('not a FlatGeobuf file');
    this.bb = new flatbuffers.ByteBuffer(bytes);
    const headerLen = this.bb.readUint32(MAGIC_LEN);
    this.bb.setPosition(MAGIC_LEN);
    this.header = fromByteBuffer(this.bb);
    const n = this.header.featuresCount;
    if (this.header.indexNodeSize === 0) throw new Error('FlatGeobuf file has no spatial index');
    if (keys.length !== n) throw new Error(`key sidecar has ${keys.length} keys for ${n} features`);
    this.count = n;
    let numNodes = n;
    let m = n;
    do {
      m = Math.ceil(m / this.header.indexNodeSize);
      numNodes += m;
    } while (m !== 1);
    const treeStart = MAGIC_LEN + 4 + headerLen;
    const leavesStart = treeStart + (numNodes - n) * NODE_BYTES;
    const featuresStart = treeStart + numNodes * NODE_BYTES;
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.boxes = new Float64Array(n * 4);
    this.offsets = new Float64Array(n);
    this.index = new Flatbush(Math.max(n, 1));
    for (let i = 0; i < n; i++) {
      const p = leavesStart + i * NODE_BYTES;
      for (let k = 0; k < 4; k++) this.boxes[i * 4 + k] = dv.getFloat64(p + k * 8, true);
      this.offsets[i] = featuresStart + Number(dv.getBigUint64(p + 32, true));
      this.index.add(this.boxes[i * 4]!, this.boxes[i * 4 + 1]!, this.boxes[i * 4 + 2]!, this.boxes[i * 4 + 3]!);
    }
    this.index.finish();
    this.keyIndex = new Map(keys.map((k, i) => [k, i]));
  }

  static async open(file: string): Promise<FgbFile> {
    const [bytes, keys] = await Promise.all([fs.readFile(file), fs.readFile(file.replace(/\.fgb$/, '.keys.json'))]);
    return FgbFile.of(bytes, keys);
  }

  /** A file from its bytes and its key sidecar's (as read, and checked, by the caller). */
  static of(bytes: Buffer, keys: Buffer): FgbFile {
    return new FgbFile(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), JSON.parse(keys.toString('utf8')) as string[]);
  }

  indexOf(key: string): number | undefined {
    return this.keyIndex.get(key);
  }

  feature(i: number): BoundaryFeature {
    this.bb.setPosition(this.offsets[i]!);
    const f = fromFeature(i, FgbFeature.getSizePrefixedRootAsFeature(this.bb), this.header);
    return {
      type: 'Feature',
      id: (f.properties as BoundaryProps).geo_key,
      geometry: f.geometry as Geometry,
      properties: f.properties as BoundaryProps,
    };
  }

  /** Encoded size of feature `i` in the file (a proxy for its decoded size). */
  featureBytes(i: number): number {
    const end = i + 1 < this.count ? this.offsets[i + 1]! : this.bytes.byteLength;
    return end - this.offsets[i]!;
  }

  /** Feature indices whose bbox intersects the given bbox, in file order. */
  search(minX: number, minY: number, maxX: number, maxY: number): number[] {
    return this.index.search(minX, minY, maxX, maxY).sort((a, b) => a - b);
  }
}
