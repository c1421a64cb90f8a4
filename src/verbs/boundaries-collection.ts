// GET /v1/boundaries/{geo_type}: every geography of a level as a streamed GeoJSON
// FeatureCollection (see boundaries-common.ts for the streaming contract), optionally cut to a bbox.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { BoundaryStore } from '../store/boundaries.js';
import {
  accessFor,
  bboxSchema,
  checkAccess,
  editionSchema,
  featureCollectionStream,
  geojsonMeta,
  levelSchema,
  resolutionSchema,
  shapeVintageSchema,
} from './boundaries-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { entryForVintage } from './boundaries-geometries.js';
import { childPrefix, childrenOnly, searchBox, withinSchema } from './boundaries-within.js';
import { defineVerb } from './define-verb.js';

export const boundariesCollectionInput = z.object({
  level: levelSchema.describe('Geography type: nation, state, county, metro, cd, tract, block_group.'),
  resolution: resolutionSchema,
  edition: editionSchema,
  /** Ignored with an edition. */
  vintage: shapeVintageSchema,
  bbox: bboxSchema,
  within: withinSchema,
});

export const boundariesCollection = defineVerb({
  name: 'boundaries-collection',
  input: boundariesCollectionInput,
  feature: 'boundaries',
  // Levels and resolutions by plan: refused before any charge (403, never 429).
  gate: ({ ctx, input: q, plan }) =>
    checkAccess(ctx, accessFor(ctx, plan, 'boundaries', { level: q.level, resolution: q.resolution }), q.level, q.resolution, 'Boundaries'),
  // 0 units for plans with access (spec, Limits).
  cost: (q) => ({ kind: 'boundaries', level: q.level, resolution: q.resolution }),
  run: async ({ ctx, input: q }): Promise<VerbResult<Readable>> => {
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
    // Opened (and checked against the manifest) before the answer starts: a damaged file is a 503,
    // never a 200 cut off after its first features.
    await store.file(entry.path);
    const prefix = q.within ? childPrefix(q.level, q.within) : undefined;
    const box = q.within ? await searchBox(store, q.within, q.resolution, q.bbox) : q.bbox;
    const etag = BoundaryStore.etag(entry, `${q.bbox ? `-${q.bbox.join(',')}` : ''}${q.within ? `-${q.within}` : ''}`);
    const features = prefix ? childrenOnly(store.features(entry, box), prefix) : store.features(entry, box);
    const data = featureCollectionStream(features, {
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
      meta: geojsonMeta(etag, entry.boundary_vintage, q.bbox || q.within ? null : entry.feature_count),
    };
  },
});
