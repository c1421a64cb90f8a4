// The parts of each documented response that no route schema states: the CSV rendering of the
// data operations, the headers the service sends (request id, rate limits, caching validators,
// downloads), bodiless statuses, and the Census Data API paths' plain-text errors. Applied by the
// OpenAPI transform (openapi.ts) to every operation, so Prism and generated clients can check them.
import type { RouteMeta } from '../route-meta.js';

type Response = { description?: string; content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown>; type?: string };
type Responses = Record<string, Response>;

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ ...schema, description });

/** Headers by name, as @fastify/swagger reads them from a response's `headers` (a schema per header). */
export const RESPONSE_HEADERS = {
  'X-Request-ID': header('Identifies this request in our logs; equals `request_id` in JSON bodies. Quote it to support.', {
    type: 'string',
    format: 'uuid',
  }),
  RateLimit: header(
    'Remaining quota per policy (draft-ietf-httpapi-ratelimit-headers): `"monthly";r=…;t=…, "burst";r=…;t=…, "concurrency";r=…`. docs/plans.md.',
  ),
  'RateLimit-Policy': header('The quota policies of your plan: `"monthly";q=…;w=…, "burst";q=…;w=60, "concurrency";q=…`.'),
  'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }),
  ETag: header('Strong validator of this representation; send it back as If-None-Match to get 304 while it is unchanged.'),
  'Cache-Control': header('How long the answer may be reused (docs/api.md, caching).'),
  'Content-Disposition': header('`attachment; filename="…"`: the answer is a file to save.'),
  'WWW-Authenticate': header('The authentication challenge (`ApiKey` or `Bearer`, RFC 9110 §11.6.1).'),
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;

function withHeaders(r: Response, names: HeaderName[]): Response {
  const headers = { ...(r.headers ?? {}) };
  for (const n of names) headers[n] ??= RESPONSE_HEADERS[n];
  return { ...r, headers };
}

/**
 * 204 and 304 carry no body, so they carry no media type either (RFC 9110 §15.3.5, §15.4.5):
 * `type: 'null'` is how @fastify/swagger is told to leave `content` out.
 */
function bodiless(r: Response): Response {
  return { description: r.description ?? 'No body.', headers: r.headers, type: 'null' };
}

/** `format=csv`: the same 200 as text/csv (a header row, then one row per cell), as an attachment. */
function withCsv(ok: Response & Record<string, unknown>): Response {
  const { description, headers, content, ...schema } = ok;
  const json = content ?? { 'application/json': { schema } };
  return {
    description: `${description ?? ''} With \`format=csv\`: text/csv, a header row then one row per cell, as an attachment (Content-Disposition).`,
    headers,
    content: { ...json, 'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV with a header row.' } } },
  };
}

const BUREAU_TEXT = { 'text/plain': { schema: { type: 'string', examples: ["error: unknown variable 'B99999_001E'"] } } };

/**
 * The Census Data API's paths answer errors as the Bureau does, `error: …` as text/plain
 * (routes/census-api/bureau-errors.ts), and a missing or bad key with a 302, never 401.
 */
function bureauErrors(responses: Responses): Responses {
  const out: Responses = {};
  for (const [status, r] of Object.entries(responses)) {
    if (status === '401') continue;
    const problem = r.content?.['application/problem+json'];
    out[status] = problem ? { ...r, content: BUREAU_TEXT } : r;
  }
  return out;
}

export interface ResponseFacts {
  meta: RouteMeta | undefined;
  /** The Census Data API's own paths (tag `census-api`). */
  bureau: boolean;
}

/** Every response of one operation, completed. */
export function documentResponses(responses: Responses, { meta, bureau }: ResponseFacts): Responses {
  const out: Responses = bureau ? bureauErrors(responses) : { ...responses };
  if (meta?.formats.includes('csv') && out['200']) out['200'] = withCsv(out['200'] as Response & Record<string, unknown>);
  const validated = out['304'] !== undefined;
  for (const [status, r] of Object.entries(out)) {
    const names: HeaderName[] = ['X-Request-ID'];
    // Any answer after authentication reports the quota state; a 429 says when to come back.
    if (meta?.auth === 'api-key' && status !== '401') names.push('RateLimit', 'RateLimit-Policy');
    if (status === '429' || status === '503') names.push('Retry-After');
    if (status === '401') names.push('WWW-Authenticate');
    if (/^2/.test(status) || status === '304') names.push('Cache-Control');
    if (validated && (status === '200' || status === '304')) names.push('ETag');
    if (status === '200' && meta?.formats.includes('csv')) names.push('Content-Disposition');
    out[status] = withHeaders(r, names);
    if (status === '204' || status === '304') out[status] = bodiless(out[status]!);
  }
  return out;
}
