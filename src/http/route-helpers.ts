// How to write a route.
//
// One zod schema per part of the request (querystring, params, body) and one for `data`: the same
// objects drive validation (422/400 problem+json), the OpenAPI document at /openapi.json and the
// TypeScript types of the handler's arguments. The handler is thin: it receives a VerbContext
// built from the request, calls one verb, and returns its VerbResult; the helper wraps it in the
// envelope (or renders CSV). No business rule belongs in a route file.
//
//   defineRoute(app, {
//     method: 'GET', url: '/v1/topics', tags: ['catalog'], summary: 'List topics',
//     auth: 'api-key',            // 'api-key' | 'user-token' | 'none'
//     needs: ['catalog'],         // stores; absent → 503 dependency-unavailable, rest of the app works
//     feature: 'topics',          // listed in DISABLED_FEATURES → 503 feature-unavailable
//     querystring: z.object({ ... }),
//     data: z.array(topicSchema),
//     costOf: () => ({ kind: 'lookup' }), // the shape admission prices and charges before the handler
//     handler: ({ ctx, query }) => listTopics({ ctx, input: query }),
//   });
//
// Lifecycle: routes of a verb (defineVerbRoute, and the raw routes of boundaries, centroids and the
// Census-API query) run the verb's one lifecycle in their handler (src/verbs/lifecycle/lifecycle.ts
// `serve`, through verb-transport.ts): credential → kill switch → parse (HTTP's refusals, then the
// verb's schema, once) → gates → heavy queue → charge → run → render. Other routes run the same
// phase functions from fastify's hooks (route-guards.ts): credential (onRequest) → kill switch →
// schema validation → stores present → charge → handler → envelope. docs/architecture.md draws it.
// The parts live by concern: what a
// route declares (route-meta.ts), its checks before the handler (route-guards.ts), the envelope's
// bytes of shared and pre-rendered answers (envelope-body.ts), the query-parameter building
// blocks (query-params.ts); this file puts them together.
// Routes that render an operation are declared with defineVerbRoute (verb-route.ts): their
// schemas, flag, formats, CSV gate, row cap and cost come from the verb. Anything thrown becomes a
// problem body in plugins/errors.ts. `formats: ['json', 'csv']` adds a `format` query parameter;
// CSV needs a `csv` function mapping the VerbResult to a table.

import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import type { RequestShape } from '../domain/cost.js';
import type { StoreName } from '../context/stores.js';
import type { Caller, VerbContext, VerbResult } from '../context/verb-context.js';
import type { AuthMode } from './plugins/auth.js';
import { contextOf } from './plugins/context.js';
import { isSharedAnswer, isSharedCompact } from '../verbs/observations/answer-cache.js';
import { envelopeSchema, renderEnvelope, renderMetaAndLinks } from './envelope.js';
import { STREAM_MIN_ITEMS, streamEnvelope } from './stream-envelope.js';
import { cacheControlFor, setCaching } from './caching.js';
import { CSV_CONTENT_TYPE, contentDisposition, csvBody, type CsvTable } from './csv.js';
import { csvTerms } from '../verbs/describe-plans.js';
import { routeMeta, type Format, type RouteMeta } from './route-meta.js';
import { guards, knownParameters, refuseAsRead, type CostOf } from './route-guards.js';
import { DATA_OPEN, keepStreamPastTimeout, keptJson, renderedBody, sharedBody, tailOf } from './envelope-body.js';

type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface HandlerArgs<Q, P, B> {
  ctx: VerbContext;
  query: Q;
  params: P;
  body: B;
  req: FastifyRequest;
  reply: FastifyReply;
  /** HTTP's refusals of the request as read (unknown parameter, Accept, stores): for a route that runs a verb's lifecycle itself. */
  refuse: () => void;
}

interface CommonSpec<Q extends AnyObject, P extends AnyObject, B extends z.ZodType> {
  method?: HTTPMethods;
  url: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: AuthMode;
  needs?: StoreName[];
  feature?: string;
  querystring?: Q;
  params?: P;
  body?: B;
  /**
   * What admission charges before the handler runs: a request shape priced by src/domain/cost.ts
   * (default: a lookup), or units. 'verb': the route renders a verb, whose lifecycle charges
   * (src/verbs/lifecycle/lifecycle.ts).
   */
  costOf?: ((input: { query: z.output<Q>; params: z.output<P>; body: z.output<B> }, caller: Caller) => RequestShape | number) | 'verb';
  /** Hide from the OpenAPI document (internal or test routes). */
  hide?: boolean;
  /**
   * Operation fields renamed by this route, placed as the client wrote them: `{ level: 'path → geo_type' }`.
   * Path parameters of the same name as the operation's field need no entry.
   */
  fields?: Record<string, string>;
  /** Error statuses the operation raises beyond those implied by auth, inputs and path (e.g. 404, 409). */
  errorStatuses?: number[];
  /** fastify per-route options passthrough (e.g. logLevel). */
  logLevel?: 'silent' | 'info' | 'debug' | 'warn' | 'error';
}

/** `R`: what the handler's VerbResult holds (by default what `data` documents; a verb's own type for verb routes). */
export interface RouteSpec<
  Q extends AnyObject,
  P extends AnyObject,
  B extends z.ZodType,
  D extends z.ZodType,
  R = z.output<D>,
> extends CommonSpec<Q, P, B> {
  data: D;
  /** The success status when it is not 200 (201 for a created resource); the handler sets it. */
  status?: 201;
  formats?: Format[];
  paginated?: boolean;
  /** Absent on routes of a verb (`lifecycle`). */
  handler?: (args: HandlerArgs<z.output<Q>, z.output<P>, z.output<B>>) => Promise<VerbResult<R>>;
  csv?: (result: VerbResult<R>, input: { query: z.output<Q>; params: z.output<P> }) => CsvTable;
  /**
   * `format=compact`: the envelope's data rebuilt by this function. Its schema is part of `data`
   * (a union) for the OpenAPI document; the body is stringified directly, without the response
   * schema pass, since the shape is built here from already-validated cells.
   */
  compact?: (result: VerbResult<R>) => unknown;
  /** Set by defineVerbRoute: the handler calls a verb, which applies the CSV gate and row cap. */
  verbGated?: true;
  /**
   * Set by defineVerbRoute: the request runs the verb's lifecycle (src/verbs/lifecycle/lifecycle.ts)
   * from its credential to `render`, which is this route's rendering of the result; `refuse` is
   * HTTP's refusals of the request as read, for the lifecycle's parse phase.
   */
  lifecycle?: (args: {
    req: FastifyRequest;
    reply: FastifyReply;
    refuse: () => void;
    render: (result: VerbResult<R>) => Promise<unknown>;
  }) => Promise<unknown>;
}

/**
 * Routes whose input the verb parses (defineVerbRoute, the Census-API route): fastify does not
 * validate it first, so the request is validated once, by the verb's schema, in the lifecycle's
 * parse phase; the route's schemas still describe it in /openapi.json.
 */
export const VALIDATED_BY_THE_VERB = { validatorCompiler: () => (value: unknown) => ({ value }) };

export interface RawRouteSpec<Q extends AnyObject, P extends AnyObject, B extends z.ZodType> extends CommonSpec<Q, P, B> {
  /** Response schemas by status, for the OpenAPI document. Non-JSON responses: use `produces`. */
  response?: Record<number, z.ZodType>;
  /** OpenAPI response objects for non-JSON answers (`{ 200: { description, content } }`). */
  docResponses?: Record<string, unknown>;
  produces?: string[];
  /**
   * The route reads its query string by rules of its own (the Census Data API's paths: the
   * Bureau's parameters, and predicates such as `B01001_001E=0:100`), so parameters its schema
   * does not name are not refused here.
   */
  ownParameters?: boolean;
  /** Sends the reply itself (files, GeoJSON, health). */
  handler: (args: HandlerArgs<z.output<Q>, z.output<P>, z.output<B>>) => Promise<unknown>;
}

const emptyObject = z.object({});

interface DocSpec {
  summary: string;
  description?: string;
  tags?: string[];
  hide?: boolean;
  auth: AuthMode;
  params?: z.ZodType;
  body?: z.ZodType;
}

function openapiSchema(spec: DocSpec, querystring: z.ZodType | undefined) {
  const parts = Object.entries({ querystring, params: spec.params, body: spec.body }).filter(([, v]) => v !== undefined);
  return {
    ...Object.fromEntries(parts),
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    hide: spec.hide,
    security: spec.auth === 'api-key' ? [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }] : spec.auth === 'user-token' ? [{ UserToken: [] }] : [],
  };
}

/**
 * The `format` query parameter of a route answering in several formats (null for JSON alone): the
 * one declaration of its enum, documented in the route's querystring and read by verb routes
 * (verb-route.ts) with this same schema.
 */
export function formatQuery(formats: readonly Format[]) {
  if (formats.length < 2) return null;
  return z.object({
    format: z
      .enum(formats as [Format, ...Format[]])
      .optional()
      .describe(
        `Response format; csv: ${csvTerms()}.${formats.includes('compact') ? ' compact: the same values as a columnar table (geographies × variables arrays, annotation codes, each label once), for large answers (docs/api.md).' : ''}`,
      ),
  });
}

/** A route whose JSON success body is the APIResponse envelope around `data`. */
export function defineRoute<
  Q extends AnyObject = typeof emptyObject,
  P extends AnyObject = typeof emptyObject,
  B extends z.ZodType = z.ZodUndefined,
  D extends z.ZodType = z.ZodType,
  R = z.output<D>,
>(app: FastifyInstance, spec: RouteSpec<Q, P, B, D, R>) {
  const formats = spec.formats ?? ['json'];
  const meta = { ...routeMeta(spec, formats, spec.paginated), negotiates: true };
  if (formats.includes('csv') && !spec.csv) throw new Error(`${spec.url}: formats includes csv but no csv() renderer`);
  // The CSV gate and row cap are an operation's (define-verb.ts): CSV routes render a verb.
  if (formats.includes('csv') && !spec.verbGated) throw new Error(`${spec.url}: csv needs a verb route (defineVerbRoute)`);
  if (formats.includes('compact') && !spec.compact) throw new Error(`${spec.url}: formats includes compact but no compact() renderer`);
  if (!spec.handler === !spec.lifecycle) throw new Error(`${spec.url}: a route has a handler or a verb's lifecycle, one of them`);
  const base = spec.querystring ?? emptyObject;
  const format = formatQuery(formats);
  const querystring = format ? base.extend(format.shape) : spec.querystring;
  // The query's parameter names, read once per route (refuseAsRead checks each request against them).
  const known = knownParameters(querystring);
  app.route({
    method: spec.method ?? 'GET',
    url: spec.url,
    logLevel: spec.logLevel,
    config: { meta },
    schema: {
      ...openapiSchema(spec, querystring),
      response: { [spec.status ?? 200]: envelopeSchema(spec.data).describe('APIResponse envelope: data, meta, links.') },
    } as FastifySchema,
    ...guards(meta, spec.costOf as CostOf, known, true, spec.lifecycle !== undefined),
    ...(spec.lifecycle ? VALIDATED_BY_THE_VERB : {}),
    handler: async (req, reply) => {
      const query = req.query as z.output<Q> & { format?: Format };
      const params = req.params as z.output<P>;
      const render = (result: VerbResult<R>) => renderAnswer(spec, meta, req, reply, result, query, params);
      try {
        if (spec.lifecycle) return await spec.lifecycle({ req, reply, render, refuse: () => refuseAsRead(req, meta, known, true) });
        const refuse = () => refuseAsRead(req, meta, known, true);
        return await render(await spec.handler!({ ctx: contextOf(req), query, params, body: req.body as z.output<B>, req, reply, refuse }));
      } catch (e) {
        // Timed out (REQUEST_TIMEOUT_MS) or abandoned meanwhile, e.g. in the heavy queue: already answered.
        if (reply.sent || reply.raw.destroyed) return reply;
        throw e;
      }
    },
  });
}

/** A route's rendering of its result: the envelope (streamed when large), CSV or compact. */
async function renderAnswer<Q extends AnyObject, P extends AnyObject, B extends z.ZodType, D extends z.ZodType, R>(
  spec: RouteSpec<Q, P, B, D, R>,
  meta: RouteMeta,
  req: FastifyRequest,
  reply: FastifyReply,
  result: VerbResult<R>,
  query: z.output<Q> & { format?: Format },
  params: z.output<P>,
): Promise<unknown> {
  if (!reply.hasHeader('Cache-Control')) setCaching(reply, cacheControlFor(meta.auth));
  if (query.format === 'csv' && spec.csv) {
    const table = spec.csv(result, { query, params });
    // The plan's row cap was applied by the verb (the lifecycle's CSV gate) before any value was read.
    const body = csvBody(table);
    if (typeof body !== 'string') keepStreamPastTimeout(req, reply);
    return reply.type(CSV_CONTENT_TYPE).header('Content-Disposition', contentDisposition(table.filename)).send(body);
  }
  if (query.format === 'compact' && spec.compact) {
    const data = spec.compact(result);
    const envelope = renderEnvelope({ ...result, data }, req, reply, req.server.services.config.BASE_URL);
    const kept = typeof data === 'object' && data !== null && isSharedCompact(data) ? keptJson(data) : undefined;
    // JSON.stringify(envelope), with the shared table's JSON rendered once (its keys: data, meta, links).
    const body = kept ? Buffer.concat([DATA_OPEN, kept, tailOf(envelope)]) : JSON.stringify(envelope);
    return reply.type('application/json; charset=utf-8').send(body);
  }
  // An answer with its items' JSON (itemsJson) is written from those bytes: its `data` may be
  // built only when read (withLazyData), so it is read only when nothing else will do.
  const json = result.itemsJson;
  if ((json ? json.count : Array.isArray(result.data) ? result.data.length : 0) > STREAM_MIN_ITEMS) {
    keepStreamPastTimeout(req, reply);
    return reply
      .type('application/json; charset=utf-8')
      .send(streamEnvelope(result as VerbResult<unknown[]>, req, reply, req.server.services.config.BASE_URL));
  }
  // A cached answer (json.keep) keeps its cells and their JSON beside them (sharedBody); an
  // answer computed afresh is written from its chunks, its cells never built.
  const baseUrl = req.server.services.config.BASE_URL;
  const cached = !json || json.keep !== undefined;
  const body =
    cached && Array.isArray(result.data) && isSharedAnswer(result.data)
      ? sharedBody(spec.data, renderEnvelope(result, req, reply, baseUrl))
      : json
        ? renderedBody(json.chunks, renderMetaAndLinks(result, req, reply, baseUrl))
        : undefined;
  // Undefined: meta or links did not parse; the response serializer runs and reports it.
  if (body === undefined) return renderEnvelope(result, req, reply, baseUrl);
  return reply.type('application/json; charset=utf-8').send(body);
}

/** A route that writes its own response (static files, GeoJSON, health) but shares the guards. */
export function defineRawRoute<
  Q extends AnyObject = typeof emptyObject,
  P extends AnyObject = typeof emptyObject,
  B extends z.ZodType = z.ZodUndefined,
>(app: FastifyInstance, spec: RawRouteSpec<Q, P, B>) {
  const meta = routeMeta(spec, ['json'], undefined, spec.docResponses);
  const known = spec.ownParameters ? undefined : knownParameters(spec.querystring);
  app.route({
    method: spec.method ?? 'GET',
    url: spec.url,
    logLevel: spec.logLevel,
    config: { meta },
    schema: {
      ...openapiSchema(spec, spec.querystring),
      ...(spec.response ? { response: spec.response } : {}),
      ...(spec.produces ? { produces: spec.produces } : {}),
    } as FastifySchema,
    // Raw routes write their own types (GeoJSON, pages, files); they negotiate nothing here.
    ...guards(meta, spec.costOf as CostOf, known, false, spec.costOf === 'verb'),
    // A raw route of a verb (the Census-API query) runs its lifecycle in the handler: the verb validates.
    ...(spec.costOf === 'verb' ? VALIDATED_BY_THE_VERB : {}),
    handler: async (req, reply) =>
      spec.handler({
        ctx: contextOf(req),
        query: req.query as z.output<Q>,
        params: req.params as z.output<P>,
        body: req.body as z.output<B>,
        req,
        reply,
        refuse: () => refuseAsRead(req, meta, known, false),
      }),
  });
}
