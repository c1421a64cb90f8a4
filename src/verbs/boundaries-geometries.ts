// Shapes for `/v1/data?include_geometry=true`: the caller (the data operation) has already checked
// the include_geometry gate; this returns geometry per key, null where none exists.
import type { Geometry } from 'geojson';
import { AppError } from '../domain/errors.js';
import type { BoundaryStore } from '../store/boundaries.js';
import { BOUNDARY_LEVELS, type BoundaryLevel, type Resolution } from '../store/boundaries/manifest.js';

export interface GeometriesResult {
  geometries: Map<string, Geometry | null>;
  /** Per level: the boundary vintage used (for X-Boundary-Vintage / meta). */
  vintages: Partial<Record<BoundaryLevel, string>>;
}

export async function geometriesFor(store: BoundaryStore, keys: string[], resolution: Resolution = '20m'): Promise<GeometriesResult> {
  const byLevel = new Map<BoundaryLevel, string[]>();
  for (const k of keys) {
    const level = k.slice(0, k.indexOf(':')) as BoundaryLevel;
    if (!BOUNDARY_LEVELS.includes(level)) throw new AppError('invalid-geo-format', `unknown geography type in "${k}"`);
    const l = byLevel.get(level);
    if (l) l.push(k); else byLevel.set(level, [k]);
  }
  const geometries = new Map<string, Geometry | null>(keys.map((k) => [k, null]));
  const vintages: GeometriesResult['vintages'] = {};
  for (const [level, ks] of byLevel) {
    const entry = store.entry(level, resolution);
    if (!entry) continue;
    vintages[level] = entry.boundary_vintage;
    for await (const f of store.featuresFor(entry, ks)) geometries.set(f.properties.geo_key, f.geometry);
  }
  return { geometries, vintages };
}
