// GET /v1/tables (search Detailed Tables) and GET /v1/tables/{table_id} (one table in a vintage).
import type { FastifyInstance } from 'fastify';
import { getTable, searchTables } from '../../../verbs/tables.js';
import { defineVerbRoute } from '../../verb-route.js';
import { DEFAULT_DATASET, datasetKeys } from '../../../domain/datasets.js';

export function tableRoutes(app: FastifyInstance) {
  defineVerbRoute(app, {
    url: '/v1/tables',
    summary: 'Search the Census Detailed Tables',
    description: `Every Detailed Table (B/C) the Census Bureau published in any vintage of ${datasetKeys().join(' or ')}. \`search\` is a table id prefix (\`B19\`, \`B19013\`) or words of the title and universe (\`geographical mobility\`). Each result lists the vintages the table was published in. Ask for a whole table in a data request with \`variables=B19013*\`.`,
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['censusTables'],
    paginated: true,
    verb: searchTables,
  });

  defineVerbRoute(app, {
    url: '/v1/tables/:table_id',
    summary: 'One Detailed Table: title, universe, columns, and where it is published and loaded',
    description: `Columns (estimate code, label, indent) as published in \`dataset\` and \`vintage\` (defaults: ${DEFAULT_DATASET} when the table exists there, else another dataset that has it; the latest vintage that has it). \`published\` lists every vintage with the table per dataset; \`loaded\` the vintages per level whose values this service holds.`,
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['censusTables'],
    verb: getTable,
    rest: { table_id: { path: 'table_id' } },
  });
}
