// GET /v1/boundaries/{geo_key}: one GeoJSON Feature (small: returned as an object, rendered as
// bare GeoJSON, not enveloped). ETag = file hash + key, strong.
import type { Feature } from 'geojson';
import { z } from 'zod';
import { parseInput } from '../domain/validation.js';
import { AppError } from '../domain/errors.js';
import { BoundaryStore } from '../store/boundaries.js';
import type { BoundaryLevel } from '../store/boundaries/manifest.js';
import { accessFor, accessSchema, checkAccess, levelSchema, resolutionSchema } from './boundaries-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeIfOpen, storeOf } from '../context/stores.js';
import { entryForVintage } from './boundaries-geometries.js';

const schema = z.object({
  geo_key: z.string().regex(/^[a-z_]+:[0-9A-Z]+$/, 'geo key must be {type}:{fips}'),
  resolution: resolutionSchema,
  edition: z.string().optional(),
  /** ACS vintage whose definitions the shapes must have (entryForVintage); ignored with an edition. */
  vintage: z.number().int().optional(),
  /** Explicit gates; by default derived from the caller's plan (accessFor). */
  access: accessSchema.optional(),
});

export async function boundariesFeature({ ctx, input }: { ctx: VerbContext; input: z.input<typeof schema> }): Promise<VerbResult<Feature>> {
  const q = parseInput(schema, input);
  const type = q.geo_key.slice(0, q.geo_key.indexOf(':'));
  const lv = levelSchema.safeParse(type);
  if (!lv.success) throw new AppError('invalid-geo-format', `unknown geography type "${type}"`);
  const level: BoundaryLevel = lv.data;
  checkAccess(ctx, q.access ?? accessFor(ctx, 'boundaries', { level, resolution: q.resolution }), level, q.resolution, 'Boundaries');
  const store = storeOf(ctx.stores, 'boundaries');
  const geos = storeIfOpen(ctx.stores, 'geographies');
  if (q.vintage !== undefined && geos && geos.get(q.geo_key, q.vintage) === null && geos.versions(q.geo_key).length > 0) {
    throw new AppError(
      'geography-not-found',
      `${q.geo_key} does not exist in ACS ${q.vintage} (it exists in ${geos
        .versions(q.geo_key)
        .map((v) => `${v.valid_from}–${v.valid_to ?? 'present'}`)
        .join(', ')}); no shape of another vintage is given in its place.`,
    );
  }
  const entry =
    q.vintage !== undefined && !q.edition
      ? entryForVintage(store, level, q.resolution, q.vintage)
      : store.entry(level, q.resolution, q.edition);
  if (!entry) {
    const why =
      q.vintage !== undefined && !q.edition && store.entry(level, q.resolution)
        ? `none has the geography definitions of ACS ${q.vintage} (see docs/geographies.md, "Shapes by vintage")`
        : (store.absentReason(level, q.resolution) ?? 'not built');
    throw new AppError('not-found', `No ${level} boundaries at resolution ${q.resolution}: ${why}`);
  }
  const f = await store.feature(entry, q.geo_key);
  if (!f) {
    const gaps = entry.gaps.length ? ` Known gaps of this file: ${entry.gaps.join('; ')}.` : '';
    throw new AppError('geography-not-found', `No ${q.resolution} boundary for ${q.geo_key}.${gaps}`);
  }
  const etag = BoundaryStore.etag(entry, `-${q.geo_key}`);
  return {
    data: f,
    meta: {
      etag,
      boundary_vintage: entry.boundary_vintage,
      true_resolution: entry.true_resolution,
      derived: entry.derived,
      content_type: 'application/geo+json',
      headers: { 'Content-Type': 'application/geo+json', ETag: etag, 'X-Boundary-Vintage': entry.boundary_vintage },
      cost_units: 0,
    },
  };
}
