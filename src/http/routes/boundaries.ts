// GET /v1/boundaries/{geo_type | geo_key} and GET /v1/centroids/{geo_type}: bare GeoJSON
// (application/geo+json, not enveloped), a strong ETag with If-None-Match → 304, and
// X-Boundary-Vintage. Collections are the operations' Node Readables piped as they come
// (docs/boundaries.md, "streaming contract"); one Feature is a small object.
//
// Gates, kill switches and cost are the operations' (src/verbs/boundaries-common.ts derives the
// gates from the caller's plan; a gated request answers 403 before any charge, and plans with
// access pay what costOf prices them). The query schemas are derived from the operations' input; one path
// parameter, `{target}`, picks the operation: a type (collection) or a geo key (one feature).
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { FILE_CACHE_CONTROL, ifNoneMatch, setCaching } from '../caching.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { boundariesCollection } from '../../verbs/boundaries-collection.js';
import { boundariesFeature } from '../../verbs/boundaries-feature.js';
import { centroids } from '../../verbs/centroids.js';
import type { VerbResult } from '../../context/verb-context.js';
import { defineRawRoute } from '../route-helpers.js';
import { httpTransport } from '../verb-transport.js';
import { serve } from '../../verbs/lifecycle/lifecycle.js';
import { restSchemas } from '../verb-schemas.js';
import { boundaryCostTerms, levelsByPlan } from '../../verbs/describe-plans.js';
import { boundaryCollectionSchema, boundaryFeatureSchema, centroidCollectionSchema } from '../geojson-schemas.js';

export const GEOJSON_CONTENT_TYPE = 'application/geo+json';
/** Boundaries change only with a new build (and then their ETag changes). */
export const BOUNDARY_CACHE_CONTROL = FILE_CACHE_CONTROL;

type GeoJsonResult = VerbResult<unknown> & { meta?: { etag?: unknown; headers?: unknown } };

/** 304 on a matching If-None-Match, else the GeoJSON with the operation's headers. */
function sendGeoJson(req: FastifyRequest, reply: FastifyReply, result: GeoJsonResult) {
  const stream = isReadable(result.data) ? result.data : null;
  const headers = { ...((result.meta?.headers ?? {}) as Record<string, string>) };
  const etag = String(result.meta?.etag ?? headers.ETag ?? '');
  setCaching(reply, BOUNDARY_CACHE_CONTROL);
  if (etag && ifNoneMatch(req.headers['if-none-match'], etag)) {
    stream?.destroy();
    delete headers['Content-Type'];
    return reply.code(304).headers(headers).send();
  }
  reply.headers(headers).type(GEOJSON_CONTENT_TYPE);
  return reply.send(stream ?? JSON.stringify(result.data));
}

function isReadable(x: unknown): x is Readable {
  return typeof x === 'object' && x !== null && typeof (x as Readable).pipe === 'function' && typeof (x as Readable).destroy === 'function';
}

const collectionQuery = restSchemas(boundariesCollection.spec.input, {
  level: false,
  bbox: { describe: 'Collections only: only features whose bounding box meets `min_lng,min_lat,max_lng,max_lat`.' },
});
// `within` is described by its schema (src/verbs/boundaries-within.ts).
const centroidQuery = restSchemas(centroids.spec.input, { level: { path: 'geo_type' } });

const notModified = z.null().describe('Not Modified: If-None-Match matched the ETag; no body.');

/** The 200 of a GeoJSON answer, for /openapi.json (the body is streamed, not serialized from a schema). */
function geojsonOk(description: string, schema: object) {
  const vintage = { type: 'string', description: 'The vintage of the boundary files the shapes come from.' };
  return { 200: { description, headers: { 'X-Boundary-Vintage': vintage }, content: { [GEOJSON_CONTENT_TYPE]: { schema } } } };
}

export function boundaryRoutes(app: FastifyInstance) {
  defineRawRoute(app, {
    url: '/v1/boundaries/:target',
    summary: 'Boundaries: every geography of a type (FeatureCollection) or one geography (Feature)',
    description:
      '`{target}` is a geography type (`state`, `county`, `metro`, `cd`, `tract`, …) for a streamed FeatureCollection of every geography of the type, or a geo key (`state:06`, `county:48453`) for one Feature. Bare GeoJSON (`application/geo+json`, not enveloped); `X-Boundary-Vintage` names the boundary vintage; strong `ETag` with `If-None-Match` → 304. Levels by plan: ' +
      levelsByPlan('boundaries') +
      '. Other levels or resolutions → 403 `feature-requires-upgrade` with `upgrade_url`. A slot the data lacks (e.g. state 5m) → 404 with the reason. ' +
      `${boundaryCostTerms()}.`,
    tags: ['boundaries'],
    auth: 'api-key',
    needs: ['boundaries'],
    feature: boundariesCollection.spec.feature,
    costOf: 'verb',
    params: z.object({ target: z.string().min(1).max(100).describe('Geography type or geo key.') }),
    fields: { geo_key: 'path → target', level: 'path → target' },
    docResponses: geojsonOk('A FeatureCollection (geography type) or a Feature (geo key). Carries ETag and X-Boundary-Vintage.', {
      oneOf: [boundaryCollectionSchema, boundaryFeatureSchema],
    }),
    querystring: collectionQuery.querystring,
    produces: [GEOJSON_CONTENT_TYPE],
    response: { 304: notModified },
    // One lifecycle (src/verbs/lifecycle/lifecycle.ts) of the operation the path picks.
    handler: ({ params, query, req, reply, refuse }) => {
      const target = params.target.trim();
      const input = () => {
        const { bbox, within, ...shared } = collectionQuery.toInput(query, {});
        return target.includes(':') ? { ...shared, geo_key: target } : { ...shared, bbox, within, level: target };
      };
      const transport = httpTransport(req, reply, { refuse, input, render: (r: GeoJsonResult) => sendGeoJson(req, reply, r) });
      return target.includes(':') ? serve(transport, boundariesFeature.spec) : serve(transport, boundariesCollection.spec);
    },
  });

  defineRawRoute(app, {
    url: '/v1/centroids/:geo_type',
    summary: 'Centroid points of every geography of a type (GeoJSON, for dot maps)',
    description:
      "A streamed GeoJSON FeatureCollection of Points (`application/geo+json`, not enveloped); the collection's `centroids` member says which kind of point the level has (`population_center` or `internal_point`) and its source. `X-Boundary-Vintage`, strong `ETag`, If-None-Match → 304. Levels by plan: " +
      `${levelsByPlan('centroids')}. ${boundaryCostTerms()}.`,
    tags: ['boundaries'],
    auth: 'api-key',
    needs: ['boundaries'],
    feature: centroids.spec.feature,
    costOf: 'verb',
    params: z.object({
      geo_type: z.string().min(1).max(40).describe('Geography type: nation, state, county, metro, cd, tract, block_group.'),
    }),
    fields: centroidQuery.fields,
    docResponses: geojsonOk('A FeatureCollection of Points. Carries ETag and X-Boundary-Vintage.', centroidCollectionSchema),
    querystring: centroidQuery.querystring,
    produces: [GEOJSON_CONTENT_TYPE],
    response: { 304: notModified },
    handler: ({ params, query, req, reply, refuse }) =>
      serve(
        httpTransport(req, reply, {
          refuse,
          input: () => centroidQuery.toInput(query, params),
          render: (r: GeoJsonResult) => sendGeoJson(req, reply, r),
        }),
        centroids.spec,
      ),
  });
}
