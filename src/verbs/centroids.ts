// GET /v1/centroids/{geo_type}: a streamed GeoJSON FeatureCollection of points (chosen over the
// envelope: dot-map clients load GeoJSON directly). Each level is one kind of point —
// internal_point or population_center — stated in the collection's `centroids` member.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { parseInput } from '../domain/validation.js';
import { AppError } from '../domain/errors.js';
import { BoundaryStore } from '../store/boundaries.js';
import { accessFor, geojsonMeta, accessSchema, checkAccess, featureCollectionStream, levelSchema } from './boundaries-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

const schema = z.object({
  level: levelSchema,
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional(),
  /** Explicit gates; by default derived from the caller's plan (accessFor). */
  access: accessSchema.optional(),
});

export async function centroids({ ctx, input }: { ctx: VerbContext; input: z.input<typeof schema> }): Promise<VerbResult<Readable>> {
  const q = parseInput(schema, input);
  checkAccess(ctx, q.access ?? accessFor(ctx, 'centroids', { level: q.level, resolution: undefined }), q.level, null, 'Centroids');
  const store = storeOf(ctx.stores, 'boundaries');
  const entry = store.centroidEntry(q.level);
  if (!entry) throw new AppError('not-found', `No centroids for level ${q.level}`);
  const etag = BoundaryStore.etag(entry, q.bbox ? `-${q.bbox.join(',')}` : '');
  return {
    data: featureCollectionStream(store.features(entry, q.bbox), {
      centroids: {
        level: q.level,
        kind: entry.kind,
        source: entry.source,
        vintage: entry.vintage,
        derived: entry.derived,
        derivation: entry.derivation,
      },
    }),
    meta: geojsonMeta(etag, entry.vintage, q.bbox ? null : entry.feature_count),
  };
}
