// One error handler and one not-found handler for the whole app, so every failure — a verb's
// AppError, a schema violation, a framework error, a bug — leaves as the same problem+json shape.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { PROBLEM_CONTENT_TYPE, problemBody, toAppError } from '../problem.js';
import { API_KEY_CHALLENGE } from './auth.js';

export function sendProblem(req: FastifyRequest, reply: FastifyReply, err: AppError) {
  const path = req.url.split('?')[0] ?? req.url;
  reply.header('X-Request-ID', req.id);
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  if (err.status === 401 && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', API_KEY_CHALLENGE);
  return reply
    .code(err.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problemBody(err, req.server.services.config.ERRORS_URL, req.id, path));
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
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    routes.push({ methods, re: new RegExp(`^${pattern}/?$`) });
  });
  return (path: string): string[] => {
    const allowed = new Set<string>();
    for (const r of routes) if (r.re.test(path)) r.methods.forEach((m) => allowed.add(m));
    return [...allowed];
  };
}

export function registerErrorHandling(app: FastifyInstance) {
  const allowedMethods = routeMatcher(app);

  app.setErrorHandler((err, req, reply) => {
    const { error, unexpected } = toAppError(err, (ctx) => rawInput(req, ctx));
    if (unexpected) req.log.error({ err }, 'unhandled error');
    else if (error.status >= 500) req.log.warn({ code: error.code, detail: error.detail, ...(error.cause ? { err: error.cause } : {}) }, 'request failed');
    return sendProblem(req, reply, error);
  });

  app.setNotFoundHandler((req, reply) => {
    const path = (req.url.split('?')[0] ?? '/').slice(0, 200);
    const allowed = allowedMethods(path).filter((m) => m !== req.method);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(req, reply, new AppError('method-not-allowed', `${req.method} is not supported on ${path}; use ${allowed.join(' or ')}.`));
    }
    return sendProblem(req, reply, new AppError('not-found', `No endpoint at ${path}. See /openapi.json for the list of endpoints.`));
  });
}
