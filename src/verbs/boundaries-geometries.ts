// Shapes for `/v1/data?include_geometry=true`: the caller (the data operation) has already checked
// the include_geometry gate; this returns geometry per key, null where none exists.
import type { Geometry } from 'geojson';
import { AppError, quoteInput } from '../domain/errors.js';
import type { BoundaryStore } from '../store/boundaries.js';
import { BOUNDARY_LEVELS, type BoundaryFileEntry, type BoundaryLevel, type Resolution } from '../store/boundaries/manifest.js';

export interface GeometriesResult {
  geometries: Map<string, Geometry | null>;
  /** Per level: the boundary vintage used (for X-Boundary-Vintage / meta). */
  vintages: Partial<Record<BoundaryLevel, string>>;
}

/**
 * The boundary file whose definitions hold in ACS `vintage`, or none: Connecticut's legacy counties
 * (edition 2017) through 2021, tracts drawn on 2010 definitions only for vintages before 2020,
 * districts of the 118th Congress from 2022. A shape of another definition would be another area,
 * so a vintage with no matching file gets no geometry rather than the newest one.
 */
export function entryForVintage(
  store: BoundaryStore,
  level: BoundaryLevel,
  resolution: Resolution,
  vintage: number | undefined,
): BoundaryFileEntry | undefined {
  if (vintage === undefined) return store.entry(level, resolution);
  if (level === 'county' && vintage <= 2021) return store.entry(level, resolution, '2017') ?? store.entry(level, resolution);
  const entry = store.entry(level, resolution);
  if (level === 'tract' || level === 'block_group') {
    // The edition drawn on the vintage's definitions (an online build may hold both decades).
    const want = vintage >= 2020 ? '2020' : '2010';
    if (entry?.definition_vintage === want) return entry;
    return store.index.files.find((f) => f.served && f.level === level && f.resolution === resolution && f.definition_vintage === want);
  }
  if (level === 'cd' && vintage < 2022) return undefined;
  return entry;
}

export async function geometriesFor(
  store: BoundaryStore,
  keys: string[],
  resolution: Resolution = '20m',
  vintage?: number,
): Promise<GeometriesResult> {
  const byLevel = new Map<BoundaryLevel, string[]>();
  for (const k of keys) {
    const level = k.slice(0, k.indexOf(':')) as BoundaryLevel;
    if (!BOUNDARY_LEVELS.includes(level)) throw new AppError('invalid-geo-format', `unknown geography type in "${quoteInput(k)}"`);
    const l = byLevel.get(level);
    if (l) l.push(k);
    else byLevel.set(level, [k]);
  }
  const geometries = new Map<string, Geometry | null>(keys.map((k) => [k, null]));
  const vintages: GeometriesResult['vintages'] = {};
  for (const [level, ks] of byLevel) {
    const entry = entryForVintage(store, level, resolution, vintage);
    if (!entry) continue;
    vintages[level] = entry.boundary_vintage;
    for await (const f of store.featuresFor(entry, ks)) geometries.set(f.properties.geo_key, f.geometry);
  }
  return { geometries, vintages };
}
