// BoundaryStore: the read side of `boundaries/` (FlatGeobuf files + index.json). Files are opened
// lazily on first use and kept; the ETag of a file is its sha256 from index.json (content hash).
// A file is checked against the build's checksums before it is read (file-integrity.ts): a
// damaged one answers 503 for the requests that need it, and is read again once repaired.
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../domain/errors.js';
import { DamagedFile, type FileIntegrity } from './file-integrity.js';
import type { BoundaryFiles } from './boundaries/files.js';
import { AddressGeocoder } from './geocode/address-geocoder.js';
import { PointGeocoder } from './geocode/point-geocoder.js';
import { FgbFile, type BoundaryFeature } from './boundaries/fgb-file.js';
import type { BoundaryFileEntry, BoundaryIndex, BoundaryLevel, CentroidFileEntry, Resolution } from './boundaries/manifest.js';

export type { BoundaryFeature } from './boundaries/fgb-file.js';
export type { BoundaryFileEntry, BoundaryIndex, CentroidFileEntry, Resolution, BoundaryLevel } from './boundaries/manifest.js';

const BOUNDARY_UNAVAILABLE =
  'Boundary data needed for this request is temporarily unavailable on this server; retry with backoff. Other boundaries are not affected.';

export type Bbox = [number, number, number, number];

export interface Geocoders {
  point: PointGeocoder;
  address: AddressGeocoder;
}

/** Encoded bytes of the decoded features featuresFor keeps: every state, county, metro and district at 20m. */
const SHAPE_CACHE_BYTES = 8 * 1024 * 1024;

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

export class BoundaryStore implements BoundaryFiles {
  private readonly opened = new Map<string, Promise<FgbFile>>();
  private readonly shapes = new Map<string, { feature: BoundaryFeature; bytes: number }>();
  private shapeBytes = 0;
  private geocodersP: Promise<Geocoders> | undefined;

  private constructor(
    readonly dir: string,
    readonly index: BoundaryIndex,
    private readonly integrity?: FileIntegrity,
  ) {}

  /** Open `<buildDir>/boundaries`; throws if index.json is missing or unreadable. */
  static async open(boundariesDir: string, integrity?: FileIntegrity): Promise<BoundaryStore> {
    const index = JSON.parse(await fs.readFile(path.join(boundariesDir, 'index.json'), 'utf8')) as BoundaryIndex;
    if (index.format !== 1) throw new Error(`unsupported boundaries index format ${String(index.format)}`);
    return new BoundaryStore(boundariesDir, index, integrity);
  }

  /** The bytes of `rel` (relative to boundaries/), checked against the manifest; 503 when damaged. */
  async readFile(rel: string): Promise<Buffer> {
    if (!this.integrity) return fs.readFile(path.join(this.dir, rel));
    try {
      return await this.integrity.read(`boundaries/${rel}`);
    } catch (e) {
      if (e instanceof DamagedFile) throw new AppError('dependency-unavailable', BOUNDARY_UNAVAILABLE, { cause: e });
      throw e;
    }
  }

  /** The served file for a level and resolution (default edition unless one is named). */
  entry(level: BoundaryLevel, resolution: Resolution, edition?: string): BoundaryFileEntry | undefined {
    return this.index.files.find(
      (f) => f.served && f.level === level && f.resolution === resolution && (edition ? f.edition === edition : f.default),
    );
  }

  /** Why a slot is empty (index.json `absent`), if it is. */
  absentReason(level: BoundaryLevel, resolution: Resolution): string | undefined {
    return this.index.absent.find((a) => a.level === level && a.resolution === resolution)?.reason;
  }

  centroidEntry(level: BoundaryLevel): CentroidFileEntry | undefined {
    return this.index.centroids.find((c) => c.level === level);
  }

  /**
   * The file `rel` (relative to boundaries/) and its key sidecar, opened once and kept in memory:
   * the bytes kept are the bytes checked against the manifest (FileIntegrity.read), so a file
   * changed between a check and a read cannot be kept. Rejects with 503 dependency-unavailable
   * when either is damaged (and is tried again on the next call).
   */
  file(rel: string): Promise<FgbFile> {
    let p = this.opened.get(rel);
    if (!p) {
      p = Promise.all([this.readFile(rel), this.readFile(rel.replace(/\.fgb$/, '.keys.json'))]).then(([bytes, keys]) =>
        FgbFile.of(bytes, keys),
      );
      p.catch(() => this.opened.delete(rel));
      this.opened.set(rel, p);
    }
    return p;
  }

  /** The geocoders over this store's files, loaded once on first use. */
  geocoders(): Promise<Geocoders> {
    if (!this.geocodersP) {
      this.geocodersP = Promise.all([PointGeocoder.load(this), AddressGeocoder.load(this)]).then(([point, address]) => ({
        point,
        address,
      }));
      this.geocodersP.catch(() => {
        this.geocodersP = undefined;
      });
    }
    return this.geocodersP;
  }

  /** Strong ETag (quoted) of a whole file: its content hash. */
  static etag(entry: { sha256: string }, suffix = ''): string {
    return `"${entry.sha256.slice(0, 32)}${suffix}"`;
  }

  async feature(entry: { path: string }, key: string): Promise<BoundaryFeature | null> {
    const f = await this.file(entry.path);
    const i = f.indexOf(key);
    return i === undefined ? null : f.feature(i);
  }

  /** Features of a file, all or those whose bbox meets `bbox`, decoded one at a time. */
  async *features(entry: { path: string }, bbox?: Bbox): AsyncGenerator<BoundaryFeature> {
    const f = await this.file(entry.path);
    if (bbox) {
      for (const i of f.search(...bbox)) yield f.feature(i);
    } else {
      for (let i = 0; i < f.count; i++) yield f.feature(i);
    }
  }

  /**
   * Features for a list of keys of one level (missing keys are skipped), in the order given: the
   * shapes of `/v1/data?include_geometry=true`. Decoded features are kept (least recently used out,
   * at most SHAPE_CACHE_BYTES of encoded features) and deep-frozen, since every answer shares them:
   * a heavy answer then decodes nothing and its serializer (http/stream-envelope.ts) reuses each
   * shape's JSON bytes instead of re-encoding it. A new build opens a new store, so a new cache.
   */
  async *featuresFor(entry: { path: string }, keys: string[]): AsyncGenerator<BoundaryFeature> {
    const f = await this.file(entry.path);
    for (const k of keys) {
      const i = f.indexOf(k);
      if (i === undefined) continue;
      const id = `${entry.path}#${i}`;
      let shape = this.shapes.get(id);
      if (shape) {
        this.shapes.delete(id); // most recently used last
        this.shapes.set(id, shape);
      } else {
        shape = { feature: deepFreeze(f.feature(i)), bytes: f.featureBytes(i) };
        this.shapes.set(id, shape);
        this.shapeBytes += shape.bytes;
        for (const [oldId, old] of this.shapes) {
          if (this.shapeBytes <= SHAPE_CACHE_BYTES) break;
          this.shapes.delete(oldId);
          this.shapeBytes -= old.bytes;
        }
      }
      yield shape.feature;
    }
  }
}
