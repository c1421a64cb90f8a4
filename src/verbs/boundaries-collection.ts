// GET /v1/boundaries/{geo_type}: every geography of a level as a streamed GeoJSON
// FeatureCollection (see boundaries-common.ts for the streaming contract), optionally cut to a bbox.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { parseInput } from '../domain/validation.js';
import { AppError } from '../domain/errors.js';
import { BoundaryStore } from '../store/boundaries.js';
import {
  accessFor,
  geojsonMeta,
  accessSchema,
  checkAccess,
  featureCollectionStream,
  levelSchema,
  resolutionSchema,
} from './boundaries-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { entryForVintage } from './boundaries-geometries.js';

const schema = z.object({
  level: levelSchema,
  resolution: resolutionSchema,
  /** Boundary edition (e.g. county `2017` for legacy Connecticut counties); default: newest. */
  edition: z.string().optional(),
  /** ACS vintage whose definitions the shapes must have (entryForVintage); ignored with an edition. */
  vintage: z.number().int().optional(),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional(),
  /** Explicit gates; by default derived from the caller's plan (accessFor). */
  access: accessSchema.optional(),
});

export async function boundariesCollection({
  ctx,
  input,
}: {
  ctx: VerbContext;
  input: z.input<typeof schema>;
}): Promise<VerbResult<Readable>> {
  const q = parseInput(schema, input);
  checkAccess(
    ctx,
    q.access ?? accessFor(ctx, 'boundaries', { level: q.level, resolution: q.resolution }),
    q.level,
    q.resolution,
    'Boundaries',
  );
  const store = storeOf(ctx.stores, 'boundaries');
  const entry =
    q.vintage !== undefined && !q.edition
      ? entryForVintage(store, q.level, q.resolution, q.vintage)
      : store.entry(q.level, q.resolution, q.edition);
  if (!entry) {
    const why =
      q.vintage !== undefined && !q.edition && store.entry(q.level, q.resolution)
        ? `none has the geography definitions of ACS ${q.vintage} (see docs/geographies.md, "Shapes by vintage")`
        : (store.absentReason(q.level, q.resolution) ?? (q.edition ? `no edition ${q.edition}` : 'not built'));
    throw new AppError('not-found', `No ${q.level} boundaries at resolution ${q.resolution}: ${why}`);
  }
  const etag = BoundaryStore.etag(entry, q.bbox ? `-${q.bbox.join(',')}` : '');
  const data = featureCollectionStream(store.features(entry, q.bbox), {
    boundary: {
      level: q.level,
      resolution: q.resolution,
      true_resolution: entry.true_resolution,
      derived: entry.derived,
      boundary_vintage: entry.boundary_vintage,
      source: entry.source,
      gaps: entry.gaps,
    },
  });
  return {
    data,
    meta: geojsonMeta(etag, entry.boundary_vintage, q.bbox ? null : entry.feature_count),
  };
}
