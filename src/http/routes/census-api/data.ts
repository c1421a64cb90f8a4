// The Census Data API's query endpoint, GET /data/{vintage}/acs/{acs1|acs5}, for code written
// against api.census.gov: its parameters (get, for, in, ucgid, key), its answer (a JSON array of
// string rows, header first) and its statuses and error bodies (bureau-errors.ts). The work is the
// census-api-query operation, which is /v1/data's path for the same cells. Any other /data/… path
// this module does not answer (another program, a vintage we never built) gets the Bureau's
// "unknown dataset" form with a pointer; the discovery documents (…/variables.json, /data.json)
// are registered beside these by their own module and win over the catch-all.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  censusApiQuery,
  censusApiQueryInput,
  servedDatasets,
  unknownDataset,
  type CensusApiRows,
} from '../../../verbs/census-api-query.js';
import type { VerbResult } from '../../../context/verb-context.js';
import { serve } from '../../../verbs/lifecycle/lifecycle.js';
import { httpTransport } from '../../verb-transport.js';
import { CensusApiError, quoted } from '../../../domain/census-api/errors.js';
import { storeOf } from '../../../context/stores.js';
import { contextOf } from '../../plugins/context.js';
import { defineRawRoute } from '../../route-helpers.js';
import { identifyCaller, rateLimitHeadersOf } from '../../plugins/errors.js';
import { AppError } from '../../../domain/errors.js';
import { bureauErrorHandler, INVALID_KEY_PAGE, keyPage, MISSING_KEY_PAGE } from './bureau-errors.js';
import { datasetKeys, datasetSpec } from '../../../domain/datasets.js';
// The router's path-segment limit (a longer path parameter is a 414 on every other route).
import { MAX_PATH_SEGMENT } from '../../request-target.js';

const param = z.union([z.string(), z.array(z.string())]).optional();
const querystring = z.object({
  get: param.describe(censusApiQueryInput.shape.get.description ?? ''),
  for: param.describe(censusApiQueryInput.shape.for.description ?? ''),
  in: param.describe(censusApiQueryInput.shape.in.description ?? ''),
  ucgid: param.describe(censusApiQueryInput.shape.ucgid.description ?? ''),
  key: z
    .string()
    .optional()
    .describe("One of your API keys (the Census Data API's parameter; the X-API-Key header works too). Never logged."),
});

/** The Bureau's answer: a header row, then rows of strings or nulls, all of one width. */
const BUREAU_TABLE = {
  type: 'array',
  minItems: 1,
  items: { type: 'array', items: { type: ['string', 'null'] } },
};

const DESCRIPTION =
  "The Census Data API's query, answered from this service's data: `get=` (NAME, GEO_ID, codes with E/M/EA/MA, group(X)), `for=`/`in=` with the Bureau's level names, or `ucgid=`; `key=` or X-API-Key. The answer is the Bureau's format — a JSON array of arrays, header first, every value a string or null, geography columns last — with every cell as the Bureau published it (jam values, annotation symbols, number text). Errors are the Bureau's: 400 `error: …` text, 204 with no body when nothing matches, 302 to /data/missing_key.html or /data/invalid_key.html for a missing or invalid key. Admission, plan gates, cost and limits are those of /v1/data for the same cells. docs/census-api.md.";

export function censusApiDataRoutes(app: FastifyInstance): void {
  void app.register(async (api) => {
    api.setErrorHandler(bureauErrorHandler);
    for (const dataset of datasetKeys().sort()) {
      const spec = datasetSpec(dataset);
      defineRawRoute(api, {
        // The Bureau's parameters and predicates, read by the query's own rules (domain/census-api/query.ts).
        ownParameters: true,
        url: `/data/:vintage/${spec.bureauPath}`,
        summary: `Census Data API query (${spec.shortLabel})`,
        description: DESCRIPTION,
        tags: ['census-api'],
        auth: 'api-key',
        feature: 'data',
        needs: ['catalog', 'geographies', 'observations'],
        costOf: 'verb',
        params: z.object({ vintage: z.string().describe('The vintage, e.g. 2018.') }),
        querystring,
        produces: ['application/json'],
        docResponses: {
          200: {
            description: 'Header row, then one row per geography; every value a string or null.',
            content: { 'application/json': { schema: BUREAU_TABLE } },
          },
          204: { description: 'The query matched no geography (no body).' },
          302: {
            description: 'Missing or invalid key: to /data/missing_key.html or /data/invalid_key.html (header X-DataWebAPI-KeyError: 1).',
            headers: {
              Location: { type: 'string', description: 'The key page.' },
              'X-DataWebAPI-KeyError': { type: 'string', enum: ['1'] },
            },
            // No body (the page is at Location): `type: 'null'` leaves `content` out of the description.
            type: 'null',
          },
          400: {
            description: '`error: …` text (unknown variable, unknown/unsupported geography hierarchy, missing or invalid for, …).',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          404: {
            description: '`error: …` text: a dataset, vintage or level this service does not hold.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
        // The query's lifecycle (src/verbs/lifecycle/lifecycle.ts): this route gives it the Bureau's
        // parameters and renders its rows in the Bureau's form; errors are rendered by bureauErrorHandler.
        handler: ({ req, reply, refuse }) =>
          serve(
            httpTransport(req, reply, {
              refuse: () => {
                refuse();
                refuseOtherParameters(req.url);
              },
              input: () => {
                const query = req.query as Record<string, string | string[] | undefined>;
                const { vintage } = req.params as { vintage: string };
                return { dataset, vintage, get: query.get, for: query.for, in: query.in, ucgid: query.ucgid };
              },
              render: (result: VerbResult<CensusApiRows>) => {
                reply.header('Cache-Control', 'private, no-store');
                if (result.data.length === 0) return reply.code(204).send();
                return reply.type('application/json; charset=utf-8').send(bureauJson(result.data));
              },
            }),
            censusApiQuery.spec,
          ),
      });
    }
    for (const [url, kind] of [
      [MISSING_KEY_PAGE, 'missing'],
      [INVALID_KEY_PAGE, 'invalid'],
    ] as const) {
      defineRawRoute(api, {
        // The Bureau's parameters and predicates, read by the query's own rules (domain/census-api/query.ts).
        ownParameters: true,
        url,
        summary:
          kind === 'missing'
            ? 'Where a keyless Census Data API query is redirected'
            : 'Where a bad-key Census Data API query is redirected',
        tags: ['census-api'],
        auth: 'none',
        produces: ['text/html'],
        docResponses: { 200: { description: 'An HTML page saying what is wrong with the key.' } },
        handler: async ({ reply }) => reply.type('text/html; charset=utf-8').send(keyPage(kind)),
      });
    }
    // Every other /data/… path: a dataset, program or vintage this service does not hold. Not an
    // operation of its own (no route-table entry, not in /openapi.json): the Bureau's 404.
    api.get('/data/*', { schema: { hide: true } }, async (req, reply) => {
      const path = req.url.split('?')[0] ?? req.url;
      if (path.split('/').some((segment) => segment.length > MAX_PATH_SEGMENT)) {
        // What the router answers for an over-long path parameter elsewhere (414), with the quota state.
        await identifyCaller(req);
        reply.headers(rateLimitHeadersOf(req));
        throw new AppError('uri-too-long', 'A path segment is longer than this service accepts.');
      }
      throw unknownDataset(path, servedDatasets(storeOf(contextOf(req).stores, 'observations').partitions));
    });
  });
}

const PARAMETERS = new Set(['get', 'for', 'in', 'ucgid', 'key']);

/**
 * The Bureau also takes predicates (`B01001_001E=0:100000`, `time=`, …); this service does not
 * filter, and ignoring one would answer rows the client asked to leave out: a 400 says so.
 */
function refuseOtherParameters(url: string): void {
  const at = url.indexOf('?');
  if (at < 0) return;
  for (const name of new URLSearchParams(url.slice(at + 1)).keys()) {
    if (!PARAMETERS.has(name))
      throw new CensusApiError(
        'unsupported-parameter',
        `unsupported parameter ${quoted(name)}: this service answers get, for, in, ucgid and key`,
      );
  }
}

/** JSON of answers the operation handed out more than once (a cached grid's rendering). */
const bodies = new WeakMap<object, string>();

/** The Bureau's layout: one row per line, rows separated by `,\n` (its clients parse it as JSON either way). */
function bureauJson(rows: Array<Array<string | null>>): string {
  let body = bodies.get(rows);
  if (body === undefined) bodies.set(rows, (body = `[${rows.map((r) => JSON.stringify(r)).join(',\n')}]`));
  return body;
}
