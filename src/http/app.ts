// The HTTP application as a pure function of its dependencies: no listen(), no process handlers,
// no environment reads. src/server.ts wires it to a port; tests call app.inject().
import zlib from 'node:zlib';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { Logger } from 'pino';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import type { Stores } from '../context/verb-context.js';
import { type Seams } from './plugins/context.js';
import { defaultSeams } from '../verbs/lifecycle/seams.js';
import { createLogger, hardenLogger, OneLinePerRequest } from './plugins/logging.js';
import {
  clientErrorHandler,
  HSTS,
  onFrameworkError,
  rateLimitHeadersOf,
  registerErrorHandling,
  SECURITY_HEADERS,
} from './plugins/errors.js';
import { parseQueryString } from './query-string.js';
import type { RouteMeta } from './route-meta.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerRoutes } from './routes/index.js';
import { registerMcp } from '../mcp/server.js';
import { registerDashboard } from './dashboard/index.js';
import { HeavyGate } from '../verbs/lifecycle/heavy-gate.js';
import type { RequestScope } from '../verbs/lifecycle/request-scope.js';
import { refund } from '../verbs/lifecycle/lifecycle.js';
import { LiveStores } from '../context/live-stores.js';
import { HttpMetrics } from './plugins/metrics.js';
import { checkHost, MAX_PATH_SEGMENT, originFormTarget } from './request-target.js';

declare module 'fastify' {
  interface FastifyInstance {
    heavyGate: HeavyGate;
  }
}

/** A route of the app with the metadata defineRoute/defineRawRoute gave it. */
export interface RouteEntry {
  method: string;
  url: string;
  meta: RouteMeta;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
    liveStores: LiveStores;
  }
}

export interface BuildAppOptions {
  config: Config;
  stores: Stores;
  /**
   * Switchable stores (a server following DATA_SOURCE): each request is served from the
   * generation live when it arrived. Default: `stores`, fixed for the app's life.
   */
  live?: LiveStores;
  /** Defaults to a pino logger at config.LOG_LEVEL on stdout; always gets key redaction. */
  logger?: Logger;
  now?: () => Date;
  /** Authentication and admission (src/verbs/lifecycle/seams.ts). Default: the accounts verbs. */
  seams?: Seams;
  /** Extra routes (tests, embedding), registered after the built-in ones. */
  extraRoutes?: (app: FastifyInstance) => void | Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A client's X-Request-ID is kept only when it is a UUID: the id is written into logs and bodies,
 * and accepting arbitrary text would let a client forge or garble log lines.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v && UUID.test(v.trim()) ? v.trim().toLowerCase() : randomUUID();
}

/** Response headers browsers may read cross-origin. */
export const EXPOSED_HEADERS = [
  'X-Request-ID',
  'X-Boundary-Vintage',
  'ETag',
  'Retry-After',
  'Content-Disposition',
  'RateLimit',
  'RateLimit-Policy',
];

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const logger = opts.logger ? hardenLogger(opts.logger) : createLogger(config);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: (raw) => requestIdFrom(raw.headers['x-request-id']),
    logController: new OneLinePerRequest({ requestIdLogLabel: 'request_id' }),
    // Forwarded headers only from the proxies named in TRUSTED_PROXIES (or every peer when
    // TRUST_PROXY is on); a client talking to us directly cannot rewrite its scheme, host or IP.
    trustProxy: config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : config.TRUST_PROXY,
    // Application-level deadline (works with keep-alive); socket-level limits are set in server.ts.
    handlerTimeout: config.REQUEST_TIMEOUT_MS,
    return503OnClosing: true,
    routerOptions: { querystringParser: parseQueryString, maxParamLength: MAX_PATH_SEGMENT },
    // Absolute-form targets (clients behind a forward proxy) are routed by their path.
    rewriteUrl: originFormTarget,
    frameworkErrors: onFrameworkError,
    // Bound lazily: the logger exists only once the instance does.
    clientErrorHandler: clientErrorHandler(config.ERRORS_URL, logger as FastifyBaseLogger),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.decorate('heavyGate', new HeavyGate(config.HEAVY_CONCURRENCY, config.HEAVY_QUEUE));
  const live = opts.live ?? new LiveStores(opts.stores);
  const metrics = config.METRICS_TOKEN ? new HttpMetrics(live) : undefined;
  const seams = opts.seams ?? defaultSeams();
  app.decorate('liveStores', live);
  app.decorate('services', {
    config,
    // Outside a request (MCP auth cache generation, background work): whatever is live now.
    get stores() {
      return live.stores;
    },
    now: opts.now ?? (() => new Date()),
    seams: metrics ? metrics.instrument(seams) : seams,
  });
  app.decorateRequest('stores', null as unknown as Stores);
  app.decorateRequest('caller', null);
  app.decorateRequest('responseHeaders', null as unknown as Record<string, string>);
  app.decorateRequest('scopes', null as unknown as RequestScope[]);
  app.decorateRequest('responseClosed', false);
  app.addHook('onRequest', async (req, reply) => {
    // The build this request is served from, to its end: a switch meanwhile does not affect it.
    const lease = live.acquire();
    req.stores = lease.stores;
    req.caller = null;
    req.responseHeaders = {};
    req.scopes = [];
    req.responseClosed = false;
    reply.header('X-Request-ID', req.id).headers(SECURITY_HEADERS);
    if (req.protocol === 'https') reply.header('Strict-Transport-Security', HSTS);
    // Also on the raw response at once: the shutdown log lists aborted requests by it (drain.ts).
    reply.raw.setHeader('X-Request-ID', req.id);
    // Charge only what was served (docs/operations.md): units are taken up front by admission and
    // given back when the answer is a 5xx or did not reach its last byte (client gone, shutdown).
    // 'finish' is also emitted when a destroyed socket fails the last write, so a response only
    // counts as delivered if its connection was still up when it finished.
    // (The response lets go of its socket by then, so the socket is taken now.)
    const socket = reply.raw.socket;
    let finished = false;
    reply.raw.once('finish', () => (finished = !socket?.destroyed));
    reply.raw.once('close', () => {
      lease.release();
      req.responseClosed = true;
      if (req.scopes.length === 0) return;
      const failed = reply.raw.statusCode >= 500;
      if (!failed && finished) return;
      // The lifecycle's refund phase over the scopes' one refund list (request-scope.ts): what
      // the lifecycle gave back already is not counted again.
      const n = refund(req.scopes);
      if (n > 0) req.log.info({ charges: n, status: reply.raw.statusCode, cut_off: !failed }, 'charge refunded: response not served');
    });
  });
  // The Host goes into links: only a host[:port] is accepted (request-target.ts).
  app.addHook('onRequest', checkHost);
  // Applied on errors too: a 403 or 404 to an authenticated caller still shows the quota state.
  // When admission did not run here (a gate refused first, or the verb admitted itself) the
  // current state is read without charging.
  app.addHook('onSend', async (req, reply, payload) => {
    const headers = req.responseHeaders ?? {};
    if (req.caller && !('RateLimit' in headers) && !reply.hasHeader('RateLimit')) Object.assign(headers, rateLimitHeadersOf(req));
    for (const [k, v] of Object.entries(headers)) if (!reply.hasHeader(k)) reply.header(k, v);
    return payload;
  });

  await app.register(cors, {
    origin: config.CORS_ORIGINS.length > 0 ? config.CORS_ORIGINS : false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // Mcp-Protocol-Version lets browser-based MCP clients pass the preflight for /mcp.
    allowedHeaders: [
      'X-API-Key',
      'Authorization',
      'Content-Type',
      'X-Request-ID',
      'If-None-Match',
      'Mcp-Protocol-Version',
      'Mcp-Session-Id',
    ],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });

  // br or gzip when the client asks (Accept-Encoding) and the answer is over 1 KB: JSON, GeoJSON,
  // CSV, problem+json and the pages' scripts. Streams stay streams (compressed as they go);
  // text/event-stream (MCP) is never compressed. Brotli at quality 4, not the library's 11: about
  // gzip's CPU for smaller bodies, since these are dynamic answers compressed per request.
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
  });

  // Every route with its metadata, as registered: the contract test enumerates the app from it.
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (opts) => {
    const meta = (opts.config as { meta?: RouteMeta } | undefined)?.meta;
    if (meta) for (const method of ([] as string[]).concat(opts.method)) routeTable.push({ method, url: opts.url, meta });
  });

  if (metrics) metrics.register(app, config.METRICS_TOKEN!);
  registerErrorHandling(app);
  await registerOpenApi(app, config);
  await registerRoutes(app);
  await registerMcp(app);
  await registerDashboard(app);
  if (opts.extraRoutes) await opts.extraRoutes(app);
  return app;
}
