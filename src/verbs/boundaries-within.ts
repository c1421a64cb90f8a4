// `within=` on a boundaries collection: only the shapes inside one parent whose children nest in
// it by FIPS code (a county's tracts: `tract:48453…` inside `county:48453`), so a map of one
// county's tracts downloads that county's shapes, not the country's. The parent's own shape gives
// a bounding box for the file's spatial index; the key prefix then keeps only its children.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import type { Bbox, BoundaryFeature, BoundaryLevel, BoundaryStore } from '../store/boundaries.js';

/** Which child levels nest in each parent type by code prefix. */
const NESTS: Record<string, readonly string[]> = {
  state: ['county', 'tract', 'block_group', 'cd'],
  county: ['tract', 'block_group'],
  tract: ['block_group'],
};

export const withinSchema = z
  .string()
  .regex(/^(state|county|tract):\d+$/, 'Use a state, county or tract key, e.g. county:48453')
  .optional()
  .describe(
    'Collections only: only the geographies inside this parent (a state, county or tract key whose children nest by FIPS code: `county:48453` for its tracts or block groups, `state:48` for its counties, tracts or districts).',
  );

/** The key prefix of `level` children inside `within`, or a 400 when they do not nest. */
export function childPrefix(level: BoundaryLevel, within: string): string {
  const [type, code] = within.split(':') as [string, string];
  if (!NESTS[type]?.includes(level))
    throw new AppError(
      'unsupported-child-type',
      `${level} geographies do not nest inside a ${type} by code; within= takes ${Object.entries(NESTS)
        .filter(([, kids]) => kids.includes(level))
        .map(([p]) => p)
        .join(' or ')} keys for ${level}.`,
    );
  return `${level}:${code}`;
}

/** The bounding box of a geometry's coordinates. */
function bboxOf(geometry: unknown): Bbox | undefined {
  const box: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
  const walk = (c: unknown) => {
    if (typeof (c as number[])[0] === 'number') {
      const [x, y] = c as [number, number];
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
    } else for (const d of c as unknown[]) walk(d);
  };
  const coords = (geometry as { coordinates?: unknown } | null)?.coordinates;
  if (coords) walk(coords);
  return box[0] === Infinity ? undefined : box;
}

/**
 * The box to search for `within`'s children: the parent's shape's box (at the same resolution,
 * newest edition), cut to `bbox` when both are given; undefined (scan the file) when the parent
 * has no shape here.
 */
export async function searchBox(store: BoundaryStore, within: string, resolution: string, bbox?: Bbox): Promise<Bbox | undefined> {
  const type = within.split(':')[0] as BoundaryLevel;
  const entry = store.entry(type, resolution as never) ?? store.entry(type, '20m' as never);
  const parent = entry ? await store.feature(entry, within) : null;
  const box = parent ? bboxOf(parent.geometry) : undefined;
  if (!box) return bbox;
  if (!bbox) return box;
  return [Math.max(box[0], bbox[0]), Math.max(box[1], bbox[1]), Math.min(box[2], bbox[2]), Math.min(box[3], bbox[3])];
}

/** Only the features whose key starts with `prefix`. */
export async function* childrenOnly(features: AsyncIterable<BoundaryFeature>, prefix: string): AsyncGenerator<BoundaryFeature> {
  for await (const f of features) if ((f.properties as { geo_key: string }).geo_key.startsWith(prefix)) yield f;
}
