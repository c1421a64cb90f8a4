// GET /v1/variables (browse/search) and GET /v1/variables/{api_name} (detail; census code alias).
import type { FastifyInstance } from 'fastify';
import { getVariable, searchVariables } from '../../../verbs/catalog.js';
import { defineVerbRoute } from '../../verb-route.js';

export function variableRoutes(app: FastifyInstance) {
  defineVerbRoute(app, {
    url: '/v1/variables',
    summary: 'Browse or search the variable catalog',
    description:
      '`search` matches api_name words, labels and census codes (a code or table prefix such as `B19013` adds `matched_census_codes` with the vintages each code maps to this variable). Catalog variables (`kind: catalog`) come first; a search that is a census code or table prefix (`B07009`, `B07009_025E`) then lists every published code it names (`kind: census_code`, with the table and the vintages it was published in). `meta.matching_tables` lists up to 5 Detailed Tables whose id or title match (see /v1/tables). `topic` filters catalog variables by topic_key. Empty results carry `meta.hint`.',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['catalog'],
    paginated: true,
    verb: searchVariables,
    rest: { search: { describe: 'Words, a census code or a table id.' }, topic: { describe: 'A topic_key from /v1/topics.' } },
  });

  defineVerbRoute(app, {
    url: '/v1/variables/:api_name',
    summary: 'Variable detail with vintage availability',
    description: 'Accepts an api_name or a census code (e.g. `B19013_001E`; the `…M` margin code resolves to the same variable).',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['catalog'],
    verb: getVariable,
    rest: { name: { path: 'api_name' } },
  });
}
