// GET /v1/boundaries/{geo_key}: one GeoJSON Feature (small: returned as an object, rendered as
// bare GeoJSON, not enveloped). ETag = file hash + key, strong.
import type { Feature } from 'geojson';
import { z } from 'zod';
import { AppError, quoteInput } from '../domain/errors.js';
import { BoundaryStore } from '../store/boundaries.js';
import type { BoundaryLevel } from '../store/boundaries/manifest.js';
import { accessFor, checkAccess, editionSchema, levelSchema, resolutionSchema, shapeVintageSchema } from './boundaries-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeIfOpen, storeOf } from '../context/stores.js';
import { entryForVintage } from './boundaries-geometries.js';
import { defineVerb } from './define-verb.js';

export const boundariesFeatureInput = z.object({
  geo_key: z.string().regex(/^[a-z_]+:[0-9A-Z]+$/, 'geo key must be {type}:{fips}'),
  resolution: resolutionSchema,
  edition: editionSchema,
  /** Ignored with an edition. */
  vintage: shapeVintageSchema,
});

/** The boundary level of a geo key; an unknown type is `invalid-geo-format`. */
function levelOf(geoKey: string): BoundaryLevel {
  const type = geoKey.slice(0, geoKey.indexOf(':'));
  const lv = levelSchema.safeParse(type);
  if (!lv.success) throw new AppError('invalid-geo-format', `unknown geography type "${quoteInput(type)}"`);
  return lv.data;
}

export const boundariesFeature = defineVerb({
  name: 'boundaries-feature',
  input: boundariesFeatureInput,
  feature: 'boundaries',
  gate: ({ ctx, input: q, plan }) => {
    const level = levelOf(q.geo_key);
    checkAccess(ctx, accessFor(ctx, plan, 'boundaries', { level, resolution: q.resolution }), level, q.resolution, 'Boundaries');
  },
  // 0 units for plans with access (spec, Limits).
  cost: (q) => ({ kind: 'boundaries', level: levelOf(q.geo_key), resolution: q.resolution }),
  run: async ({ ctx, input: q }): Promise<VerbResult<Feature>> => {
    const level = levelOf(q.geo_key);
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
      throw new AppError('geography-not-found', `No ${q.resolution} boundary for ${quoteInput(q.geo_key)}.${gaps}`);
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
      },
    };
  },
});
