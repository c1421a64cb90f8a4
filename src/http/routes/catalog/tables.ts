// GET /v1/tables (search Detailed Tables) and GET /v1/tables/{table_id} (one table in a vintage).
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { getTable, searchTables } from '../../../verbs/tables.js';
import { defineRoute, paginationQuery, queryInt, queryString } from '../../route-helpers.js';
import { tableDetailSchema, tableSummarySchema } from './schemas.js';

export function tableRoutes(app: FastifyInstance) {
  defineRoute(app, {
    url: '/v1/tables',
    summary: 'Search the Census Detailed Tables',
    description:
      'Every Detailed Table (B/C) the Census Bureau published in any vintage of acs1 or acs5. `search` is a table id prefix (`B19`, `B19013`) or words of the title and universe (`geographical mobility`). Each result lists the vintages the table was published in. Ask for a whole table in a data request with `variables=B19013*`.',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['censusTables'],
    paginated: true,
    querystring: z.object({
      search: queryString('A table id prefix or words of the title.').pipe(z.string().max(200)).optional(),
      ...paginationQuery,
    }),
    data: z.array(tableSummarySchema),
    handler: ({ ctx, query }) => searchTables({ ctx, input: query }),
  });

  defineRoute(app, {
    url: '/v1/tables/:table_id',
    summary: 'One Detailed Table: title, universe, columns, and where it is published and loaded',
    description:
      'Columns (estimate code, label, indent) as published in `dataset` and `vintage` (defaults: acs5 when the table exists there, else acs1; the latest vintage that has it). `published` lists every vintage with the table per dataset; `loaded` the vintages per level whose values this service holds.',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['censusTables'],
    params: z.object({ table_id: z.string().min(1).max(20).describe('Table id, e.g. B19013') }),
    querystring: z.object({
      dataset: queryString('acs5 or acs1.').optional(),
      vintage: queryInt({ description: 'Survey year.' }).optional(),
    }),
    data: tableDetailSchema,
    handler: ({ ctx, params, query }) => getTable({ ctx, input: { table_id: params.table_id, ...query } }),
  });
}
