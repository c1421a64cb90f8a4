// GET /v1/coverage: the get-coverage verb over REST. The query schema is derived from the verb's
// input; the wording below is REST's own, the rules (one place, its price) are the verb's.
import type { FastifyInstance } from 'fastify';
import { COVERAGE_COUNTED, coverageCostTerms, getCoverage } from '../../verbs/get-coverage.js';
import { MAX_VARIABLES } from '../../verbs/observations/variables.js';
import { defineVerbRoute } from '../verb-route.js';

export function coverageRoutes(app: FastifyInstance) {
  defineVerbRoute(app, {
    url: '/v1/coverage',
    summary: 'In which surveys and years one place has values for some variables',
    description:
      `One row per dataset (every dataset, or \`dataset\`) and per vintage it publishes, in the registry's order then ascending: \`{dataset, vintage, with_values, variables, loaded}\`. ${COVERAGE_COUNTED} ` +
      `\`meta.geo_key\` and \`meta.name\` name the place. \`geo\` is ONE geography (a key such as \`county:48453\`, or a name of that level such as \`county:Travis County, TX\`); wildcards, several places and regions are 400. \`variables\` as in /v1/data (at most ${MAX_VARIABLES}). ` +
      coverageCostTerms(),
    tags: ['data'],
    auth: 'api-key',
    needs: ['catalog', 'geographies', 'observations'],
    errorStatuses: [404],
    verb: getCoverage,
    rest: {
      variables: { describe: `Variables by api_name or census code, mixable: comma-separated and/or repeated; at most ${MAX_VARIABLES}.` },
    },
  });
}
