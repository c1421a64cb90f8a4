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

  properties(i: number): BoundaryFeature['properties'] {
    return this.feature(i).properties;
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
  /** Feature indices sorted by key: a key prefix is one contiguous run (~0.1 s for 240k block groups, at load). */
  private readonly byKey: Int32Array;
  /** Decoded properties of answered points (names and sources: small; geometry is not kept). */
  private readonly props = new Map<number, BoundaryFeature['properties']>();

  constructor(readonly file: FgbFile) {
    const keys = file.keys;
    const order = Array.from({ length: keys.length }, (_, i) => i);
    order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
    this.byKey = Int32Array.from(order);
  }

  feature(i: number): BoundaryFeature {
    return this.file.feature(i);
  }

  /** The properties of point `i` (cached: decoding the feature was a visible share of a geocode). */
  properties(i: number): BoundaryFeature['properties'] {
    let p = this.props.get(i);
    if (!p) {
      p = this.file.feature(i).properties;
      this.props.set(i, p);
    }
    return p;
  }

  /**
   * The nearest point whose GEOID starts with `prefix` (degree-space distance; approximate), within
   * 5 degrees. The candidates are the points of that prefix (one county's tracts, one tract's block
   * groups), scanned with the distance Flatbush computes; a tie for the nearest is decided by
   * Flatbush's own search, so the answer is the one `nearestByIndex` gives in every case.
   */
  nearest(lng: number, lat: number, prefix: string): Hit | null {
    const keys = this.file.keys;
    if (keys.length === 0) return null;
    const colon = keys[0]!.indexOf(':') + 1;
    const order = this.byKey;
    const lo = lowerBound(keys, order, keys[0]!.slice(0, colon) + prefix);
    // Every key of the prefix sorts before prefix + U+FFFF (keys are ASCII).
    const hi = lowerBound(keys, order, `${keys[0]!.slice(0, colon)}${prefix}\uffff`);
    const boxes = this.file.boxes;
    let best = -1;
    let bestDist = 25; // maxDistance 5, squared, as Flatbush compares it
    let tie = false;
    for (let j = lo; j < hi; j++) {
      const i = order[j]!;
      const p = i * 4;
      // Flatbush's box distance, term for term (a point's box has min = max).
      const dx = Math.max(Math.max(boxes[p]! - lng, lng - boxes[p + 2]!), 0);
      const dy = Math.max(Math.max(boxes[p + 1]! - lat, lat - boxes[p + 3]!), 0);
      const dist = dx * dx + dy * dy;
      if (dist > bestDist) continue;
      if (best >= 0 && dist === bestDist) tie = true;
      else if (dist < bestDist || best < 0) {
        tie = false;
        best = i;
        bestDist = dist;
      }
    }
    if (best < 0) return null;
    if (tie) return this.nearestByIndex(lng, lat, prefix);
    return { key: keys[best]!, index: best };
  }

  /** The same answer through the Flatbush best-first search with a key filter (ties; tests compare both). */
  nearestByIndex(lng: number, lat: number, prefix: string): Hit | null {
    const keys = this.file.keys;
    const colon = keys[0] ? keys[0].indexOf(':') + 1 : 0;
    const [i] = this.file.index.neighbors(lng, lat, 1, 5, (j) => keys[j]!.startsWith(prefix, colon));
    return i === undefined ? null : { key: keys[i]!, index: i };
  }
}

/** The first position in `order` whose key is not below `target`. */
function lowerBound(keys: readonly string[], order: Int32Array, target: string): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[order[mid]!]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
