// OpenAPI 3.1 generated from the routes' zod schemas. The error responses each operation can
// produce are added here from the route metadata (auth, query schema, stores, flags), so route
// authors never hand-write them and the document cannot drift from the error handler.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { Config } from '../../config.js';
import { SERVICE_VERSION } from '../../version.js';
import { PROBLEM_CONTENT_TYPE } from '../../presentation/problem.js';
import type { RouteMeta } from '../route-helpers.js';
import { csvRowCapText, csvTerms } from '../../verbs/describe-plans.js';
import { MAX_PATH_SEGMENT } from '../request-target.js';
import { documentResponses } from './openapi-responses.js';

export const API_VERSION = SERVICE_VERSION;

export const API_DESCRIPTION = `Census Data Service: American Community Survey estimates with margins of error.

Conventions (details in docs/api.md):
- Authentication: \`X-API-Key\` header (any capitalisation) or \`api_key\` query parameter (testing only; it ends up in proxies' logs). Public (no key): /health and the Census Data API discovery documents under /data (docs/census-api.md).
- Every successful JSON body is the envelope \`{data, meta, links}\`; \`meta.request_id\` equals the \`X-Request-ID\` response header.
- Several \`variables\` are comma-separated; several \`geo\` specifiers are separated by \`;\` (names contain commas); repeating either parameter also works.
- \`dataset\` defaults to \`acs5\`; \`vintage\` defaults to the latest vintage loaded for that dataset.
- Pagination: \`limit\` (default 50, reduced to the plan maximum) and \`offset\` (default 0); \`meta.total_count\`, \`links.next\`, \`links.prev\`.
- \`format=csv\` returns text/csv as an attachment: ${csvTerms()}.
- Errors are RFC 9457 problem details (\`application/problem+json\`): 422 when a parameter is missing or cannot be read as its type, 400 when it is readable but not acceptable.`;

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'request_id'],
  properties: {
    type: { type: 'string', format: 'uri', description: 'Stable error type: {errors_url}/<slug>.' },
    title: { type: 'string', description: 'Constant per type.' },
    status: { type: 'integer' },
    detail: { type: 'string', description: 'What went wrong in this occurrence and how to fix it.' },
    request_id: { type: 'string', format: 'uuid' },
    instance: { type: ['string', 'null'], description: 'The request path.' },
    errors: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['field', 'message', 'type'],
        properties: {
          field: { type: 'string', examples: ['query → geo'] },
          message: { type: 'string' },
          type: { type: 'string', examples: ['missing', 'int_parsing', 'enum', 'less_than_equal'] },
        },
      },
    },
  },
  additionalProperties: true,
};

function problemResponse(description: string) {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } } };
}

/**
 * Every error status an operation can answer, from what the route declares (auth, inputs, path
 * parameters, body, CSV) plus the statuses its operation raises (`meta.errors`). Statuses any
 * request can meet before routing (431, 408) are described once in the API description.
 */
function errorResponses(meta: RouteMeta | undefined, parts: { input: boolean; path: boolean; body: boolean }): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  r['400'] = problemResponse(
    parts.input
      ? 'A parameter is readable but not acceptable (validation-error, invalid-vintage, invalid-dataset, invalid-geo-format, …), or the request is malformed (bad-request).'
      : 'bad-request: the request is malformed (e.g. the path is not valid percent-encoded UTF-8).',
  );
  if (parts.input) r['422'] = problemResponse('A parameter is missing or cannot be read as its type; `errors` lists each field.');
  if (meta?.auth === 'api-key') {
    r['401'] = problemResponse('missing-api-key or invalid-api-key. Carries WWW-Authenticate.');
    r['403'] = problemResponse('tos-acceptance-required or feature-requires-upgrade.');
    r['429'] = problemResponse('rate-limit-exceeded (monthly quota, per-minute burst or concurrency).');
  } else if (meta?.auth === 'user-token') {
    r['401'] = problemResponse('invalid-token. Carries WWW-Authenticate.');
    r['403'] = problemResponse('forbidden: the signed-in account may not do this.');
    r['409'] = problemResponse(
      'conflict: the change conflicts with the current state of the account (a revoked key, an existing subscription, …).',
    );
  }
  if (parts.path) {
    r['404'] = problemResponse('No such resource (not-found, variable-not-found, geography-not-found).');
    r['414'] = problemResponse(`uri-too-long: a path segment is longer than ${MAX_PATH_SEGMENT} characters.`);
  }
  for (const status of meta?.errorStatuses ?? []) {
    if (!r[String(status)]) r[String(status)] = problemResponse(ERROR_STATUS_TEXT[status] ?? 'See docs/errors.md.');
  }
  if (meta?.negotiates)
    r['406'] = problemResponse('not-acceptable: the Accept header admits neither application/json nor, with `format=csv`, text/csv.');
  if (parts.body) {
    r['413'] = problemResponse('payload-too-large: the body is over 1 MiB.');
    r['415'] = problemResponse('unsupported-media-type: send application/json.');
  }
  if (meta?.formats.includes('csv'))
    r['413'] = problemResponse(
      `payload-too-large: the CSV would exceed ${csvRowCapText()} rows, or an expansion is larger than any plan allows.`,
    );
  r['500'] = problemResponse('internal-error; quote request_id when contacting support.');
  r['503'] = problemResponse('dependency-unavailable or feature-unavailable; retry with backoff.');
  return r;
}

const ERROR_STATUS_TEXT: Record<number, string> = {
  403: 'forbidden or feature-requires-upgrade.',
  404: 'No such resource (not-found, variable-not-found, geography-not-found).',
  409: 'conflict: the change conflicts with the current state of the resource.',
  413: 'payload-too-large: an expansion larger than any plan allows.',
};

/** The Census Data API's own paths: errors in the Bureau's text, keys by redirect (routes/census-api). */
const CENSUS_API_TAG = 'census-api';

type PathParameters = { properties?: Record<string, { maxLength?: number }> };

/** Every path parameter's maxLength is at most what the router takes (longer: 414 before any route). */
function boundedPathParameters(params: PathParameters): PathParameters {
  const properties = Object.fromEntries(
    Object.entries(params.properties ?? {}).map(([name, p]) => [
      name,
      { ...p, maxLength: Math.min(p.maxLength ?? MAX_PATH_SEGMENT, MAX_PATH_SEGMENT) },
    ]),
  );
  return { ...params, properties };
}

/**
 * HEAD: the GET's statuses, headers and media types (Content-Type is sent), never a body. A response
 * given as a bare JSON Schema is of the route's `produces` (JSON by default); a bodiless one (204, 302, 304) stays bodiless.
 */
function headResponses(responses: Record<string, unknown>, produces: readonly string[]): Record<string, unknown> {
  const empty = { schema: { type: 'string', maxLength: 0, description: 'HEAD: no body.' } };
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => {
      const { description, headers, content, type } = r as { description?: string; headers?: unknown; content?: object; type?: string };
      if (type === 'null') return [status, r];
      const types = content ? Object.keys(content) : produces;
      return [
        status,
        { description: description ?? 'As GET, without the body.', headers, content: Object.fromEntries(types.map((t) => [t, empty])) },
      ];
    }),
  );
}

/** `GET /v1/geographies/{geo_key}/children` → `getGeographiesByGeoKeyChildren`: stable and unique per route. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((seg) => seg && seg !== 'v1')
    .flatMap((seg) => (seg.startsWith(':') ? ['by', ...seg.slice(1).split('_')] : seg.split(/[._-]/)));
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

export async function registerOpenApi(app: FastifyInstance, config: Config) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Census Data Service',
        version: API_VERSION,
        description: API_DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // BASE_URL when configured; otherwise `/`, which OpenAPI resolves against the address the
      // document was fetched from — right for any host without naming one.
      servers: [{ url: config.BASE_URL ?? '/', description: 'This deployment' }],
      components: {
        securitySchemes: {
          ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'For testing only: URLs are logged by proxies.' },
          // The Census Data API's own parameter, which every Bureau client sends: its query paths take it (census-api.md).
          CensusApiKey: {
            type: 'apiKey',
            in: 'query',
            name: 'key',
            description: "The Census Data API's `key=`, on its query paths (/data/{vintage}/acs/…).",
          },
          UserToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard sign-in token.' },
        },
        schemas: { Problem: problemSchema as never },
      },
      security: [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }],
    },
    // Every GET route answers HEAD (fastify's exposeHeadRoutes): described too, as the same answer without a body.
    exposeHeadRoutes: true,
    transform: (input) => {
      const out = jsonSchemaTransform(input);
      const schema = out.schema as Record<string, unknown> | undefined;
      if (!schema || schema.hide) return out;
      const meta = (input.route.config as { meta?: RouteMeta } | undefined)?.meta;
      const parts = {
        input: Boolean(schema.querystring || schema.params || schema.body),
        path: Boolean(schema.params),
        body: Boolean(schema.body),
      };
      const response = documentResponses(
        {
          ...(errorResponses(meta, parts) as Record<string, never>),
          ...((meta?.docResponses ?? {}) as Record<string, never>),
          ...((schema.response as Record<string, never>) ?? {}),
        },
        { meta, bureau: ((schema.tags as string[] | undefined) ?? []).includes(CENSUS_API_TAG) },
      );
      const method = ([] as string[]).concat(input.route.method)[0] ?? 'GET';
      const params = schema.params && boundedPathParameters(schema.params as PathParameters);
      const bureau = ((schema.tags as string[] | undefined) ?? []).includes(CENSUS_API_TAG);
      // The Census Data API's query paths take its `key=` (not `api_key=`, which they refuse as a predicate).
      const security = (
        bureau && Array.isArray(schema.security) && schema.security.length > 0
          ? [{ ApiKeyHeader: [] }, { CensusApiKey: [] }]
          : schema.security
      ) as Array<Record<string, string[]>> | undefined;
      return {
        ...out,
        schema: {
          ...schema,
          ...(params ? { params } : {}),
          security,
          response:
            method === 'HEAD' ? headResponses(response, (schema.produces as string[] | undefined) ?? ['application/json']) : response,
          operationId: operationIdOf(method, input.url),
        },
      };
    },
  });
  app.get('/openapi.json', { schema: { hide: true }, logLevel: 'warn' }, async () => app.swagger());
  // The API reference is public documentation, served in every mode (the dashboard links to it).
  // Its scripts and styles are the package's own files (no CDN), under a CSP of their own, and
  // the online validator badge is off (validatorUrl null), so the page makes no outside request.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { validatorUrl: null } });
}
