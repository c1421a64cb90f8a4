// The Census Data API's discovery documents at the Bureau's paths, so that clients which read
// them (tidycensus load_variables, censusapi listCensusMetadata, cenpy, census) work when pointed
// here. Public like the Bureau's: no key is needed and a `key` parameter is ignored. Each answer is
// rendered once per build and served from memory with a strong ETag (If-None-Match → 304) and a
// public cache lifetime; a path naming nothing we serve gets the Bureau's plain-text `error:` body.
// The query endpoint /data/{vintage}/acs/{ds} is another module's; these exact paths win over its
// parametric and catch-all routes in fastify's router (test/http/routes/census-api/discovery.test.ts).
import { DISCOVERY_SCHEMAS } from './discovery-schemas.js';
import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatch } from '../../caching.js';
import { publicBase } from '../../envelope.js';
import { defineRawRoute } from '../../route-helpers.js';
import { unknownGroup, unknownVariable } from '../../../domain/census-api/discovery-errors.js';
import { censusApiDiscovery, type DiscoveryAnswer } from '../../../verbs/census-api-discovery.js';
import { datasetKeys, datasetSpec } from '../../../domain/datasets.js';

/** Public (no credential varies the answer) and shared by caches for an hour: a build is immutable until replaced. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Bodies below this size are sent as they are: gzip would save little and cost a buffer each. */
const GZIP_MIN_BYTES = 1024;

/** Whether the client takes gzip (`Accept-Encoding: gzip`, `gzip;q=1.0`, `*`; not `gzip;q=0`). */
function acceptsGzip(req: FastifyRequest): boolean {
  const header = String(req.headers['accept-encoding'] ?? '');
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

function send(req: FastifyRequest, reply: FastifyReply, answer: DiscoveryAnswer) {
  if (answer.kind === 'error')
    return reply.code(answer.status).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send(answer.body);
  // Clients fetch these once and keep them (tidycensus, censusapi): a 9 MB variables.json goes out
  // gzipped to every client that accepts it (R's curl, Python's requests and fetch all do). The
  // gzipped representation has an ETag of its own, as RFC 9110 asks of a strong validator.
  const gzip = answer.body.length >= GZIP_MIN_BYTES && acceptsGzip(req);
  const etag = gzip ? `${answer.etag.slice(0, -1)}-gz"` : answer.etag;
  const vary = reply.getHeader('Vary');
  reply
    .header('ETag', etag)
    .header('Cache-Control', DISCOVERY_CACHE_CONTROL)
    .header('Vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
  if (ifNoneMatch(req.headers['if-none-match'], etag)) return reply.code(304).send();
  if (gzip) return reply.type(JSON_TYPE).header('Content-Encoding', 'gzip').send(answer.gzipped());
  return reply.type(JSON_TYPE).send(answer.body);
}

const datasetParams = z.object({
  vintage: z.string().describe('Survey year, e.g. 2018.'),
  dataset: z.string().describe(`The dataset's name after acs/: ${datasetKeys().join(', ')}.`),
});

const documentResponses = (what: string, schema: object) => ({
  200: {
    description: `${what} Carries ETag and Cache-Control; If-None-Match → 304.`,
    content: { 'application/json': { schema } },
  },
  304: { description: 'Not Modified: If-None-Match matched the ETag; no body.' },
  404: {
    description:
      "The Bureau's plain-text form: `error: unknown/unsupported dataset '…'` (with what this service holds), `error: unknown variable '…'` or `error: unknown group '…'`.",
    content: { 'text/plain': { schema: { type: 'string' } } },
  },
});

const TAGS = ['census-api'];

export function censusApiDiscoveryRoutes(app: FastifyInstance) {
  const base = (req: FastifyRequest) => publicBase(req, req.server.services.config.BASE_URL);
  const common = {
    tags: TAGS,
    auth: 'none' as const,
    needs: ['censusTables' as const, 'observations' as const, 'build' as const],
    feature: 'census-api',
    // The Bureau's conventions, not /v1's: a parameter these documents do not read is ignored.
    ownParameters: true,
  };

  defineRawRoute(app, {
    ...common,
    url: '/data.json',
    summary: 'Census Data API catalog of the datasets served (DCAT-US)',
    description:
      "The Bureau's data.json shape (Project Open Data v1.1 catalog), listing each dataset and vintage whose values this service holds, with links to its query endpoint and documents here. Public; no key.",
    docResponses: documentResponses('The catalog.', DISCOVERY_SCHEMAS.catalog),
    handler: async ({ ctx, req, reply }) =>
      send(req, reply, (await censusApiDiscovery.invoke({ ctx, input: { document: 'catalog', base: base(req) } })).data),
  });

  for (const dataset of datasetKeys().sort()) {
    defineRawRoute(app, {
      ...common,
      url: `/data/:vintage/${datasetSpec(dataset).bureauPath}.json`,
      params: z.object({ vintage: z.string().describe('Survey year, e.g. 2018.') }),
      summary: `Census Data API catalog entry of ${dataset} for one vintage`,
      description: "The Bureau's /data/{vintage}/acs/{dataset}.json: a DCAT catalog holding that one dataset. Public; no key.",
      docResponses: documentResponses('The catalog of one dataset.', DISCOVERY_SCHEMAS.dataset),
      handler: async ({ ctx, req, reply, params }) =>
        send(
          req,
          reply,
          (
            await censusApiDiscovery.invoke({
              ctx,
              input: {
                document: 'dataset',
                base: base(req),
                vintage: params.vintage,
                dataset: datasetSpec(dataset).bureauPath.slice('acs/'.length),
              },
            })
          ).data,
        ),
    });
  }

  const documents = [
    [
      'variables.json',
      'variables',
      'Census Data API variables of a dataset',
      'The estimates of every table held, as {"variables": {code: {label, concept, predicateType, group, limit, attributes}}}, with the for/in/ucgid predicates, NAME and GEO_ID.',
    ],
    [
      'groups.json',
      'groups',
      'Census Data API groups (tables) of a dataset',
      'Every table held, as {"groups": [{name, description, variables, "universe "}]}.',
    ],
    [
      'geography.json',
      'geography',
      'Census Data API geography levels of a dataset',
      'The levels held, as {"fips": [{name, geoLevelDisplay, referenceDate, requires, wildcard, optionalWithWCFor}]}.',
    ],
    ['tags.json', 'tags', 'Census Data API tags of a dataset', 'The Bureau\'s {"tags": […]}: an empty list here (no tags are curated).'],
    [
      'examples.json',
      'examples',
      'Census Data API example queries of a dataset',
      'The Bureau\'s {"examples": […]}: an empty list here (docs/census-api.md has examples).',
    ],
    ['sorts.json', 'sorts', 'Census Data API sort orders of a dataset', 'The Bureau\'s {"sorts": […]}: an empty list here.'],
  ] as const;
  for (const [file, document, summary, description] of documents) {
    defineRawRoute(app, {
      ...common,
      url: `/data/:vintage/acs/:dataset/${file}`,
      params: datasetParams,
      summary,
      description: `${description} Public; no key.`,
      docResponses: documentResponses(`The ${document} document.`, DISCOVERY_SCHEMAS[document]),
      handler: async ({ ctx, req, reply, params }) =>
        send(req, reply, (await censusApiDiscovery.invoke({ ctx, input: { document, base: base(req), ...params } })).data),
    });
  }

  const named = [
    [
      'variables',
      'variable',
      'One variable of a dataset (Census Data API)',
      'One estimate, margin of error or annotation variable (or for, in, ucgid, NAME, GEO_ID) as {name, label, concept, predicateType, group, limit, …}.',
    ],
    [
      'groups',
      'group',
      'One group (table) of a dataset (Census Data API)',
      'Every variable of the table (estimates, margins, annotations) as {"variables": {…}}.',
    ],
  ] as const;
  for (const [folder, document, summary, description] of named) {
    defineRawRoute(app, {
      ...common,
      url: `/data/:vintage/acs/:dataset/${folder}/:file`,
      params: datasetParams.extend({
        file: z
          .string()
          .describe(`The ${document}'s name followed by .json, e.g. ${document === 'variable' ? 'B19013_001E.json' : 'B19013.json'}.`),
      }),
      summary,
      description: `${description} Public; no key.`,
      docResponses: documentResponses(`The ${document} document.`, DISCOVERY_SCHEMAS[document]),
      handler: async ({ ctx, req, reply, params }) => {
        const { file, ...rest } = params;
        // Only the .json form exists here (the Bureau's .html pages are not served).
        if (!file.endsWith('.json'))
          return send(req, reply, { kind: 'error', ...(document === 'variable' ? unknownVariable(file) : unknownGroup(file)) });
        const name = file.slice(0, -'.json'.length);
        return send(req, reply, (await censusApiDiscovery.invoke({ ctx, input: { document, base: base(req), ...rest, name } })).data);
      },
    });
  }
}
