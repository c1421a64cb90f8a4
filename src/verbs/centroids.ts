// GET /v1/centroids/{geo_type}: a streamed GeoJSON FeatureCollection of points (chosen over the
// envelope: dot-map clients load GeoJSON directly). Each level is one kind of point —
// internal_point or population_center — stated in the collection's `centroids` member.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { BoundaryStore } from '../store/boundaries.js';
import { accessFor, bboxSchema, checkAccess, featureCollectionStream, geojsonMeta, levelSchema } from './boundaries-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const centroidsInput = z.object({
  level: levelSchema.describe('Geography type: nation, state, county, metro, cd, tract, block_group.'),
  bbox: bboxSchema,
});

export const centroids = defineVerb({
  name: 'centroids',
  input: centroidsInput,
  feature: 'centroids',
  gate: ({ ctx, input: q, plan }) =>
    checkAccess(ctx, accessFor(ctx, plan, 'centroids', { level: q.level, resolution: undefined }), q.level, null, 'Centroids'),
  // 0 units for plans with access (spec, Limits).
  cost: (q) => ({ kind: 'centroids', level: q.level }),
  run: async ({ ctx, input: q }): Promise<VerbResult<Readable>> => {
    const store = storeOf(ctx.stores, 'boundaries');
    const entry = store.centroidEntry(q.level);
    if (!entry) throw new AppError('not-found', `No centroids for level ${q.level}`);
    // Opened (and checked against the manifest) before the answer starts: a damaged file is a 503,
    // never a 200 cut off after its first features.
    await store.file(entry.path);
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
  },
});
