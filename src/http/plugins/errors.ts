// One error path for the whole app, so every failure — a verb's AppError, a schema violation, a
// framework error raised before routing (bad percent-encoding, an over-long path segment), an HTTP
// parse error Node raises before fastify sees a request (431, 408, a bad Content-Length), a bug —
// leaves as the same problem+json shape with a request id. None of them echoes the request back:
// `instance` is the path only when it is short and printable, and details never quote input.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, placeFields } from '../../domain/errors.js';
import { PROBLEM_CONTENT_TYPE, problemBody, toAppError } from '../../presentation/problem.js';
import { placeOf } from '../route-meta.js';
import { API_KEY_CHALLENGE, requestApiKey } from './auth.js';
import { contextOf } from './context.js';

/** Headers every response carries, errors included. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff' } as const;
/**
 * HSTS for answers to requests that came over https (directly, or from a trusted proxy's
 * X-Forwarded-Proto): one year, this host only (includeSubDomains would bind hosts this service
 * does not run). Never on plain http, where a browser ignores it and an attacker could forge it.
 */
export const HSTS = 'max-age=31536000';
/** Errors describe one moment (quota, a missing store): never cache them. */
const ERROR_CACHE_CONTROL = 'no-store';

/** The request path as `instance`, unless echoing it would mirror a long or unprintable input. */
export function safeInstance(path: string): string | null {
  return path.length <= 200 && /^[\x21-\x7e]*$/.test(path) ? path : null;
}

export function sendProblem(req: FastifyRequest, reply: FastifyReply, err: AppError, opts: { echoPath?: boolean } = {}) {
  const path = req.url.split('?')[0] ?? req.url;
  reply.header('X-Request-ID', req.id).header('Cache-Control', ERROR_CACHE_CONTROL);
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  if (err.status === 401 && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', API_KEY_CHALLENGE);
  const body = problemBody(err, req.server.services.config.ERRORS_URL, req.id, path);
  body.instance = err.instance ?? (opts.echoPath === false ? null : safeInstance(path));
  return reply.code(err.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

/**
 * The caller behind a request that matched no route (404, 405, 414), so its answer still shows the
 * quota state. A missing or bad key changes nothing: the answer stays 404/405/414.
 */
export async function identifyCaller(req: FastifyRequest): Promise<void> {
  const key = requestApiKey(req);
  const authenticateKey = req.server.services.seams.authenticateKey;
  if (!key || !authenticateKey || req.caller) return;
  try {
    req.caller = await authenticateKey(key, contextOf(req));
  } catch {
    req.caller = null;
  }
}

/** Current rate-limit headers of an authenticated caller, without charging (admission did not run). */
export function rateLimitHeadersOf(req: FastifyRequest): Record<string, string> {
  const seams = req.server.services.seams;
  if (!req.caller || !seams.rateLimitHeaders) return {};
  try {
    return seams.rateLimitHeaders(contextOf(req));
  } catch (err) {
    req.log.warn({ err }, 'rate-limit headers unavailable');
    return {};
  }
}

function rawInput(req: FastifyRequest, context: string | undefined): unknown {
  if (context === 'querystring') return req.query;
  if (context === 'params') return req.params;
  if (context === 'body') return req.body;
  if (context === 'headers') return req.headers;
  return undefined;
}

/** Route patterns by method, so an unknown method on a known path answers 405, not 404. */
function routeMatcher(app: FastifyInstance) {
  const routes: Array<{ methods: string[]; re: RegExp }> = [];
  app.addHook('onRoute', (opts) => {
    // CORS preflight (OPTIONS *) and swagger-ui's wildcard must not make every path look known.
    const methods = ([] as string[]).concat(opts.method).filter((m) => m !== 'OPTIONS');
    if (methods.length === 0 || opts.url.includes('*')) return;
    const pattern = opts.url
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    routes.push({ methods, re: new RegExp(`^${pattern}/?$`) });
  });
  return (path: string): string[] => {
    const allowed = new Set<string>();
    for (const r of routes) if (r.re.test(path)) r.methods.forEach((m) => allowed.add(m));
    return [...allowed];
  };
}

/** 405 with Allow when the path exists for other methods (any method, QUERY included), else 404. */
function unrouted(req: FastifyRequest, allowedMethods: (path: string) => string[]): AppError {
  const path = req.url.split('?')[0] ?? '/';
  const allowed = allowedMethods(path).filter((m) => m !== req.method);
  if (allowed.length > 0) {
    return new AppError('method-not-allowed', `This method is not supported on this path; use ${allowed.join(' or ')}.`, {
      headers: { Allow: allowed.join(', ') },
    });
  }
  return new AppError('not-found', 'No endpoint at this path. See /openapi.json for the list of endpoints.');
}

export function registerErrorHandling(app: FastifyInstance) {
  const allowedMethods = routeMatcher(app);

  // Unrouted requests are answered before fastify looks at their body: a QUERY or POST to a
  // GET-only path is 405, whatever Content-Type it carries.
  app.addHook('onRequest', async (req) => {
    if (!req.is404) return;
    await identifyCaller(req);
    throw unrouted(req, allowedMethods);
  });

  app.setErrorHandler((err, req, reply) => {
    const mapped = toAppError(err, (ctx) => rawInput(req, ctx));
    const { unexpected } = mapped;
    const meta = req.routeOptions.config?.meta;
    const error = placeFields(mapped.error, (name) => placeOf(meta, name));
    if (unexpected) req.log.error({ err }, 'unhandled error');
    else if (error.status >= 500)
      req.log.warn({ code: error.code, detail: error.detail, ...(error.cause ? { err: error.cause } : {}) }, 'request failed');
    return sendProblem(req, reply, error);
  });

  app.setNotFoundHandler((req, reply) => sendProblem(req, reply, unrouted(req, allowedMethods)));
}

/** fastify's `frameworkErrors`: failures raised before routing (FST_ERR_BAD_URL, 414, async constraints). */
export async function onFrameworkError(err: Error, req: FastifyRequest, reply: FastifyReply) {
  req.caller = null;
  await identifyCaller(req);
  reply.headers(rateLimitHeadersOf(req));
  // The path is what was wrong (too long, badly encoded): not repeated back.
  return sendProblem(req, reply, toAppError(err, () => undefined).error, { echoPath: false });
}

const CLIENT_ERRORS: Record<string, AppError> = {
  ERR_HTTP_REQUEST_TIMEOUT: new AppError('request-timeout', 'The request was not received in time.'),
  HPE_HEADER_OVERFLOW: new AppError('headers-too-large', 'The request headers are larger than the server accepts (16 KB).'),
};
const MALFORMED = new AppError('bad-request', 'The request is not valid HTTP/1.1 (for example a malformed Content-Length or header line).');

/**
 * Node's `clientError`: the request could not be parsed, so no route, hook or logger context
 * exists. The answer is written straight to the socket, still as problem+json with a fresh id.
 */
export function clientErrorHandler(errorsUrl: string, log: FastifyBaseLogger) {
  return (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED;
    const requestId = randomUUID();
    log.debug({ request_id: requestId, code: err.code }, 'client error');
    if (socket.writable) {
      const body = JSON.stringify({ ...problemBody(problem, errorsUrl, requestId, ''), instance: null });
      const head = [
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
        `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-ID: ${requestId}`,
        ...Object.entries(SECURITY_HEADERS).map(([k, v]) => `${k}: ${v}`),
        `Cache-Control: ${ERROR_CACHE_CONTROL}`,
        'Connection: close',
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
    }
    socket.destroy(err);
  };
}
