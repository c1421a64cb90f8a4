// Spatial lookups over the FgbFile features: polygons (Flatbush bbox filter, then exact
// point-in-polygon with holes and multipolygons via turf) and points (nearest neighbour).
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import type { MultiPolygon, Polygon } from 'geojson';
import type { BoundaryFeature, FgbFile } from '../boundaries/fgb-file.js';

export interface Hit {
  key: string;
  index: number;
}

export class PolygonLayer {
  // Geometries are decoded on first hit and kept: the hot set (populated areas) stays small,
  // and the cost of decoding a 100k-vertex TIGER polygon is paid once.
  private readonly cache = new Map<number, BoundaryFeature>();

  constructor(readonly file: FgbFile) {}

  /** The decoded feature (cached: decoding is the dominant cost for large TIGER polygons). */
  feature(i: number): BoundaryFeature {
    let f = this.cache.get(i);
    if (!f) {
      f = this.file.feature(i);
      this.cache.set(i, f);
    }
    return f;
  }

  private geometry(i: number): Polygon | MultiPolygon {
    return this.feature(i).geometry as Polygon | MultiPolygon;
  }

  /** Every feature containing the point (boundary counts as inside), sorted by key. */
  containing(lng: number, lat: number): Hit[] {
    const out: Hit[] = [];
    for (const i of this.file.index.search(lng, lat, lng, lat)) {
      if (booleanPointInPolygon([lng, lat], this.geometry(i))) out.push({ key: this.file.keys[i]!, index: i });
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Candidates from the bbox filter alone (the baseline the benchmark compares against). */
  bboxCandidates(lng: number, lat: number): number {
    return this.file.index.search(lng, lat, lng, lat).length;
  }

  decodeAll(): void {
    for (let i = 0; i < this.file.count; i++) this.geometry(i);
  }

  keyPrefixes(len: number): Set<string> {
    return new Set(this.file.keys.map((k) => k.slice(k.indexOf(':') + 1, k.indexOf(':') + 1 + len)));
  }
}

export class PointLayer {
  constructor(readonly file: FgbFile) {}

  feature(i: number): BoundaryFeature {
    return this.file.feature(i);
  }

  /** The nearest point whose GEOID starts with `prefix` (degree-space distance; approximate). */
  nearest(lng: number, lat: number, prefix: string): Hit | null {
    const keys = this.file.keys;
    const colon = keys[0] ? keys[0].indexOf(':') + 1 : 0;
    const [i] = this.file.index.neighbors(lng, lat, 1, 5, (j) => keys[j]!.startsWith(prefix, colon));
    return i === undefined ? null : { key: keys[i]!, index: i };
  }
}
