// GET /v1/geographies, /v1/geographies/{geo_key}, /v1/geographies/{geo_key}/children: thin
// wrappers over the geography operations. `{geo_key}` holds a colon (`state:06`) or, for the
// children endpoint, a URL-encoded name (`Travis%20County%2C%20TX`); the router decodes it.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { geographiesList } from '../../verbs/geographies-list.js';
import { geographyChildren } from '../../verbs/geography-children.js';
import { geographyGet } from '../../verbs/geography-get.js';
import { defineRoute, paginationQuery, queryInt, queryString } from '../route-helpers.js';
import { childGeographySchema, geographyDetailSchema, geographySchema, geoTypeSchema } from './geographies-schemas.js';

const vintage = queryInt({ description: 'ACS vintage whose geography definitions to use; default: the latest.' }).optional();
const geoKeyParam = z.string().min(1).max(300);

export function geographyRoutes(app: FastifyInstance) {
  defineRoute(app, {
    url: '/v1/geographies',
    summary: 'Browse geographies by type, parent or name',
    description:
      'One of: `type` alone (every geography of the type), `parent` + `type` (children, as /v1/geographies/{geo_key}/children), or `search` (name words; states, counties, metros and districts; optionally narrowed by `type` and `parent`). Paginated with `limit`/`offset`; `meta.total_count` and `links.next`/`prev`.',
    tags: ['geographies'],
    auth: 'api-key',
    errorStatuses: [404],
    needs: ['geographies'],
    paginated: true,
    querystring: z.object({
      type: geoTypeSchema.optional().describe('Geography type.'),
      parent: queryString('A parent geography key (`state:48`) or name (`Travis County, TX`, `TX-35`).')
        .pipe(z.string().max(300))
        .optional(),
      search: queryString('Name words, e.g. `travis`.').pipe(z.string().max(200)).optional(),
      vintage,
      ...paginationQuery,
    }),
    data: z.array(geographySchema),
    handler: ({ ctx, query }) => geographiesList({ ctx, input: query }),
  });

  defineRoute(app, {
    url: '/v1/geographies/:geo_key',
    summary: 'Geography detail with its parent hierarchy',
    description:
      '`hierarchy` lists the parents nearest first, ending with the nation; `definitions` every definition the key has had across ACS vintages; counties carry `metro_key`.',
    tags: ['geographies'],
    auth: 'api-key',
    needs: ['geographies'],
    params: z.object({ geo_key: geoKeyParam.describe('`{type}:{fips}`, e.g. `state:06`, `county:48453`.') }),
    querystring: z.object({ vintage }),
    data: geographyDetailSchema,
    handler: ({ ctx, params, query }) => geographyGet({ ctx, input: { geo_key: params.geo_key, vintage: query.vintage } }),
  });

  defineRoute(app, {
    url: '/v1/geographies/:geo_key/children',
    summary: 'Child geographies of a parent',
    description:
      'Accepted pairs: nation→state; state→county, cd, tract, block_group; metro→county, tract, block_group; cd→county, tract, block_group; county→tract, block_group; tract→block_group. Another pair is 400 `unsupported-child-type` naming the allowed types. The parent may be a key or a URL-encoded name (`Travis County, TX`, `TX-35`, `Austin-Round Rock-San Marcos, TX`). Paginated; the maximum page size depends on the plan.',
    tags: ['geographies'],
    auth: 'api-key',
    needs: ['geographies'],
    paginated: true,
    params: z.object({ geo_key: geoKeyParam.describe('Parent key (`metro:12420`) or name.') }),
    querystring: z.object({
      type: geoTypeSchema.describe('Child type; see the pairs above.'),
      vintage,
      ...paginationQuery,
    }),
    data: z.array(childGeographySchema),
    handler: ({ ctx, params, query }) => geographyChildren({ ctx, input: { ...query, geo_key: params.geo_key } }),
  });
}
