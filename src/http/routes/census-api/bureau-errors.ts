// Errors on the Census-API-compatible paths, answered as the Bureau answers them, because that is
// what its clients read: a 400 or 404 with a one-line `error: …` text body, a 204 with no body when
// nothing matches, a 302 to an HTML page (header X-DataWebAPI-KeyError: 1) when the key is missing
// or invalid. Everything else keeps its status (403 plan gate, 413, 429 with Retry-After, 503) with
// the same kind of text body. The mapping is documented in docs/census-api.md.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CensusApiError } from '../../../domain/census-api/errors.js';
import { AppError } from '../../../domain/errors.js';
import { toAppError } from '../../../presentation/problem.js';
import { SECURITY_HEADERS } from '../../plugins/errors.js';

export const MISSING_KEY_PAGE = '/data/missing_key.html';
export const INVALID_KEY_PAGE = '/data/invalid_key.html';

/** The Bureau's text for a failure of its own: it logs it and says so. */
const INTERNAL_TEXT =
  "There was an error while running your query.  We've logged the error and we'll correct it ASAP.  Sorry for the inconvenience.";

const TEXT = 'text/plain; charset=utf-8';

function sendText(req: FastifyRequest, reply: FastifyReply, status: number, text: string) {
  reply.header('X-Request-ID', req.id).header('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
  return reply.code(status).type(TEXT).send(text);
}

/** Where an AppError of the shared operations lands in the Bureau's vocabulary. */
function bureauStatus(e: AppError): { status: number; text: string } | 'no-content' {
  switch (e.code) {
    // A FIPS code that names no geography, or a wildcard that expands to none: the Bureau's 204.
    case 'geography-not-found':
      return 'no-content';
    case 'invalid-geo-format':
    case 'validation-error':
    case 'unprocessable-request':
    case 'bad-request':
    case 'ambiguous-geography-name':
      return { status: 400, text: `error: ${e.detail}` };
    case 'variable-not-found':
      return { status: 400, text: `error: ${e.detail}` };
    case 'payload-too-large':
      return { status: 400, text: `error: ${e.detail}` };
    case 'invalid-vintage':
    case 'invalid-dataset':
      return { status: 404, text: `error: ${e.detail}` };
    default:
      return { status: e.status, text: `error: ${e.detail}` };
  }
}

export function bureauErrorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof CensusApiError) return sendText(req, reply, err.status, err.message);
  const { error, unexpected } = toAppError(err, () => undefined);
  if (unexpected) {
    req.log.error({ err }, 'unhandled error');
    return sendText(req, reply, 500, INTERNAL_TEXT);
  }
  for (const [k, v] of Object.entries(error.headers)) if (k.toLowerCase() !== 'www-authenticate') reply.header(k, v);
  if (error.status === 401) {
    // The Bureau redirects a keyless or bad-key query to an HTML page; its clients look for it.
    const page = error.code === 'missing-api-key' ? MISSING_KEY_PAGE : INVALID_KEY_PAGE;
    reply.header('X-Request-ID', req.id).header('Cache-Control', 'no-store').header('X-DataWebAPI-KeyError', '1');
    return reply.code(302).header('Location', page).send();
  }
  if (error.status >= 500) req.log.warn({ code: error.code, detail: error.detail }, 'request failed');
  const mapped = bureauStatus(error);
  if (mapped === 'no-content') {
    reply.header('X-Request-ID', req.id);
    return reply.code(204).send();
  }
  return sendText(req, reply, mapped.status, mapped.text);
}

/** The two HTML pages the Bureau's key redirects lead to (clients recognise them by URL and type). */
export function keyPage(kind: 'missing' | 'invalid'): string {
  const what =
    kind === 'missing'
      ? 'A key must be included with each data request: send one of your API keys as <code>key=</code> or in the X-API-Key header.'
      : 'The key sent with this request is not valid: it is unknown, revoked or mistyped. Check it in your dashboard.';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${kind === 'missing' ? 'Missing Key' : 'Invalid Key'}</title></head><body><h1>${kind === 'missing' ? 'Missing Key' : 'Invalid Key'}</h1><p>${what}</p></body></html>`;
}
