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
// Lifecycle: auth (onRequest) → feature flag → schema validation → stores present → admission
// (quota; rate-limit headers; routes of verbs: the verb's lifecycle admits, src/verbs/lifecycle)
// → handler → envelope/CSV. docs/architecture.md draws it.
// Routes that render an operation are declared with defineVerbRoute (verb-route.ts): their
// schemas, flag, formats, CSV gate, row cap and cost come from the verb. Anything thrown becomes a
// problem body in plugins/errors.ts. `formats: ['json', 'csv']` adds a `format` query parameter;
// CSV needs a `csv` function mapping the VerbResult to a table.
//
// Query helpers below treat an empty value (`?vintage=`) as absent and give the spec's error
// types (`int_parsing`, `bool_parsing`).
import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { AppError } from '../domain/errors.js';
import { validationError } from '../domain/validation.js';
import Negotiator from 'negotiator';
import type { RequestShape } from '../domain/cost.js';
import { chargeRequest } from '../verbs/lifecycle/invoke.js';
import type { StoreName } from '../context/stores.js';
import type { Caller, VerbContext, VerbResult } from '../context/verb-context.js';
import { assertFeatureEnabled } from '../verbs/feature-flags.js';
import { authenticate, type AuthMode } from './plugins/auth.js';
import { contextOf, openScope } from './plugins/context.js';
import { isSharedAnswer, isSharedCompact } from '../verbs/observations/answer-cache.js';
import { envelopeSchema, linksSchema, metaSchema, renderEnvelope, renderMetaAndLinks } from './envelope.js';
import { STREAM_MIN_ITEMS, streamEnvelope } from './stream-envelope.js';
import { cacheControlFor, setCaching } from './caching.js';
import { CSV_CONTENT_TYPE, contentDisposition, csvBody, type CsvTable } from './csv.js';
import { csvTerms } from '../verbs/describe-plans.js';

export type Format = 'json' | 'csv' | 'compact';

/** Route metadata kept in fastify's route config; the OpenAPI transform reads it too. */
export interface RouteMeta {
  auth: AuthMode;
  feature?: string;
  formats: Format[];
  needs: StoreName[];
  paginated?: boolean;
  /** Where each operation field lives in this route: `geo_key` → `path`; the rest is query (or body). */
  places: Record<string, string>;
  hasBody: boolean;
  /** Statuses the operation raises beyond what auth, inputs and formats imply (404, 409, …), for /openapi.json. */
  errorStatuses?: number[];
  /** OpenAPI response objects of non-JSON answers (GeoJSON, files), for /openapi.json. */
  docResponses?: Record<string, unknown>;
  /** The route refuses an Accept it cannot answer with 406 (routes of defineRoute), for /openapi.json. */
  negotiates?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    meta?: RouteMeta;
  }
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface HandlerArgs<Q, P, B> {
  ctx: VerbContext;
  query: Q;
  params: P;
  body: B;
  req: FastifyRequest;
  reply: FastifyReply;
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
   * (src/verbs/lifecycle/invoke.ts).
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
  handler: (args: HandlerArgs<z.output<Q>, z.output<P>, z.output<B>>) => Promise<VerbResult<R>>;
  csv?: (result: VerbResult<R>, input: { query: z.output<Q>; params: z.output<P> }) => CsvTable;
  /**
   * `format=compact`: the envelope's data rebuilt by this function. Its schema is part of `data`
   * (a union) for the OpenAPI document; the body is stringified directly, without the response
   * schema pass, since the shape is built here from already-validated cells.
   */
  compact?: (result: VerbResult<R>) => unknown;
  /** Set by defineVerbRoute: the handler calls a verb, which applies the CSV gate and row cap. */
  verbGated?: true;
}

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

type CostOf = CommonSpec<AnyObject, AnyObject, z.ZodType>['costOf'];

function routeMeta(
  spec: Pick<CommonSpec<AnyObject, AnyObject, z.ZodType>, 'auth' | 'feature' | 'needs' | 'params' | 'fields' | 'body' | 'errorStatuses'>,
  formats: Format[],
  paginated?: boolean,
  docResponses?: Record<string, unknown>,
): RouteMeta {
  const places: Record<string, string> = {};
  for (const name of Object.keys(spec.params?.shape ?? {})) places[name] = `path → ${name}`;
  Object.assign(places, spec.fields ?? {});
  return {
    auth: spec.auth,
    feature: spec.feature,
    formats,
    needs: spec.needs ?? [],
    paginated,
    places,
    hasBody: spec.body !== undefined,
    errorStatuses: spec.errorStatuses,
    docResponses,
  };
}

/** Where an operation's field was in this request (`query → geo`, `path → geo_key`). */
export function placeOf(meta: RouteMeta | undefined, name: string): string {
  return meta?.places[name] ?? `${meta?.hasBody ? 'body' : 'query'} → ${name}`;
}

/**
 * The query parameters a route reads: its schema's, and `api_key` (the key's testing-only place,
 * plugins/auth.ts). Anything else is refused with a 400 naming it, on every route, as MCP refuses
 * an unknown argument: a misspelt parameter (`page_size`, `vintages`) must not be silently ignored
 * and answered as if it had not been sent (docs/api.md, "Unknown parameters").
 */
function knownParameters(querystring: z.ZodType | undefined): ReadonlySet<string> {
  const shape = querystring instanceof z.ZodObject ? Object.keys(querystring.shape) : [];
  return new Set([...shape, 'api_key']);
}

function refuseUnknownParameters(query: unknown, known: ReadonlySet<string>): void {
  if (query === null || typeof query !== 'object') return;
  const unknown = Object.keys(query).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw validationError([{ keyword: 'unrecognized_keys', instancePath: '', params: { keys: unknown } }], 'query', query);
}

/**
 * The media type this route will answer with: CSV when `format=csv`, JSON otherwise (the envelope,
 * compact included). A request whose Accept admits neither is refused with 406 before it is
 * charged, rather than answered in a type it said it cannot take (RFC 9110 §12.5.1). No Accept, or
 * any wildcard, admits everything.
 */
function refuseUnacceptable(req: FastifyRequest): void {
  const accept = req.headers.accept;
  if (accept === undefined || accept.trim() === '') return;
  const format = (req.query as Record<string, unknown> | undefined)?.format;
  const type = format === 'csv' ? 'text/csv' : 'application/json';
  if (new Negotiator({ headers: { accept } }).mediaType([type]) === undefined) {
    throw new AppError('not-acceptable', `This request answers ${type}, which the Accept header does not admit.`, {
      extensions: { available: [type] },
    });
  }
}

function guards(meta: RouteMeta, costOf: CostOf, known: ReadonlySet<string> | undefined, negotiate: boolean) {
  return {
    onRequest: async (req: FastifyRequest, reply: FastifyReply) => {
      await authenticate(req, meta.auth);
      // The request's charges, slots and refunds, from here to the response's end.
      openScope(req, reply);
      assertFeatureEnabled(req.server.services.config, meta.feature);
    },
    // After authentication (a request without a key is a 401 first), before admission (never charged).
    preValidation: async (req: FastifyRequest) => {
      if (known) refuseUnknownParameters(req.query, known);
      if (negotiate) refuseUnacceptable(req);
    },
    preHandler: async (req: FastifyRequest) => {
      const stores = req.stores ?? req.server.services.stores;
      const missing = meta.needs.filter((n) => stores[n] === undefined || stores[n] === null);
      if (missing.length > 0) {
        // Which store is down is an operator concern: logged, not told to the client.
        req.log.warn({ missing }, 'store unavailable');
        throw new AppError('dependency-unavailable', 'A data source this endpoint needs is temporarily unavailable; retry with backoff.');
      }
      if (req.caller && costOf !== 'verb') {
        const input = { query: req.query, params: req.params, body: req.body } as never;
        await chargeRequest(contextOf(req), costOf ? costOf(input, req.caller) : { kind: 'lookup' });
      }
    },
  };
}

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
 * REQUEST_TIMEOUT_MS bounds producing the answer, not a client's download of it: fastify's handler
 * timeout would destroy a stream still being read at the deadline, so once the stream has started
 * the reply is handed over (hijacked) and left to finish.
 */
function keepStreamPastTimeout(req: FastifyRequest, reply: FastifyReply): void {
  req.signal.addEventListener(
    'abort',
    () => {
      if (reply.raw.headersSent && !reply.raw.writableEnded) reply.hijack();
    },
    { once: true },
  );
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
  const base = spec.querystring ?? emptyObject;
  const querystring =
    formats.length > 1
      ? base.extend({
          format: z
            .enum(formats as [Format, ...Format[]])
            .optional()
            .describe(
              `Response format; csv: ${csvTerms()}.${formats.includes('compact') ? ' compact: the same values as a columnar table (geographies × variables arrays, annotation codes, each label once), for large answers (docs/api.md).' : ''}`,
            ),
        })
      : spec.querystring;
  app.route({
    method: spec.method ?? 'GET',
    url: spec.url,
    logLevel: spec.logLevel,
    config: { meta },
    schema: {
      ...openapiSchema(spec, querystring),
      response: { [spec.status ?? 200]: envelopeSchema(spec.data).describe('APIResponse envelope: data, meta, links.') },
    } as FastifySchema,
    ...guards(meta, spec.costOf as CostOf, knownParameters(querystring), true),
    handler: async (req, reply) => {
      const query = req.query as z.output<Q> & { format?: Format };
      const params = req.params as z.output<P>;
      let result: VerbResult<R>;
      try {
        result = await spec.handler({ ctx: contextOf(req), query, params, body: req.body as z.output<B>, req, reply });
      } catch (e) {
        // Timed out (REQUEST_TIMEOUT_MS) or abandoned meanwhile, e.g. in the heavy queue: already answered.
        if (reply.sent || reply.raw.destroyed) return reply;
        throw e;
      }
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
    },
  });
}

/**
 * JSON of shared answers' `data` (answer-cache.ts), rendered once through the route's schema and
 * kept as UTF-8 bytes: a string body of 300 KB was measured at ~30% of the request's CPU in
 * encoding alone (fastify's byteLength, then the conversion when written), a copy of bytes costs
 * a fraction of that.
 */
const renderedData = new WeakMap<object, WeakMap<z.ZodType, Buffer>>();
const DATA_OPEN = Buffer.from('{"data":');
const DATA_OPEN_ARRAY = Buffer.from('{"data":[');
const ARRAY_CLOSE = Buffer.from(']');
/**
 * Chunks of answers rendered whole (up to STREAM_MIN_ITEMS cells; those up to 256 come as one
 * chunk whatever this is): under 4 KB, Node's Buffer pool serves them (a 256 KB chunk per request
 * cost more than rendering a small answer). A geography's cells that need more get a chunk of
 * their own size.
 */
const RENDERED_CHUNK_BYTES = 4000;

/** A shared compact table's JSON, rendered once (it went through no response schema before either). */
const renderedCompact = new WeakMap<object, Buffer>();
function keptJson(data: object): Buffer {
  let json = renderedCompact.get(data);
  if (!json) renderedCompact.set(data, (json = Buffer.from(JSON.stringify(data))));
  return json;
}

/** The envelope after its data: `,"meta":…,"links":…}`. */
const tailOf = (envelope: { meta: unknown; links: unknown }) =>
  Buffer.from(`,"meta":${JSON.stringify(envelope.meta)},"links":${JSON.stringify(envelope.links)}}`);

/**
 * The body the response serializer would write, JSON.stringify(envelopeSchema(data).parse(envelope)),
 * with `data`'s part rendered once per shared answer: JSON.stringify of an object is the
 * concatenation of its members' JSON, and the envelope's keys are data, meta, links in that order.
 * Undefined when a part does not parse: the serializer then runs and reports it as before.
 */
function sharedBody(dataSchema: z.ZodType, envelope: { data: unknown; meta: unknown; links: unknown }): Buffer | undefined {
  const cells = envelope.data as object;
  let bySchema = renderedData.get(cells);
  if (!bySchema) renderedData.set(cells, (bySchema = new WeakMap()));
  let data = bySchema.get(dataSchema);
  if (data === undefined) {
    const parsed = dataSchema.safeParse(cells);
    if (!parsed.success) return undefined;
    bySchema.set(dataSchema, (data = Buffer.from(JSON.stringify(parsed.data))));
  }
  const tail = checkedTail(envelope);
  return tail && Buffer.concat([DATA_OPEN, data, tail]);
}

/** `,"meta":…,"links":…}` through their schemas; undefined when either does not parse. */
function checkedTail(envelope: { meta: unknown; links: unknown }): Buffer | undefined {
  const meta = metaSchema.safeParse(envelope.meta);
  const links = linksSchema.safeParse(envelope.links);
  if (!meta.success || !links.success) return undefined;
  return tailOf({ meta: meta.data, links: links.data });
}

/**
 * The body of an answer whose items the operation rendered itself (VerbResult.itemsJson: each
 * exactly JSON.stringify of the item, which for the data routes' cells is also what the response
 * schema's pass leaves them as, test/verbs/observations/grid-renderings.test.ts): the cells are not
 * parsed and stringified again, half the CPU of an all-states × 10 answer computed afresh. Meta
 * and links still go through their schemas; undefined when they do not parse (the serializer then
 * runs and reports it).
 */
function renderedBody(chunks: (chunkBytes: number) => Iterable<Buffer>, envelope: { meta: unknown; links: unknown }): Buffer | undefined {
  const tail = checkedTail(envelope);
  return tail && Buffer.concat([DATA_OPEN_ARRAY, ...chunks(RENDERED_CHUNK_BYTES), ARRAY_CLOSE, tail]);
}

/** A route that writes its own response (static files, GeoJSON, health) but shares the guards. */
export function defineRawRoute<
  Q extends AnyObject = typeof emptyObject,
  P extends AnyObject = typeof emptyObject,
  B extends z.ZodType = z.ZodUndefined,
>(app: FastifyInstance, spec: RawRouteSpec<Q, P, B>) {
  const meta = routeMeta(spec, ['json'], undefined, spec.docResponses);
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
    ...guards(meta, spec.costOf as CostOf, spec.ownParameters ? undefined : knownParameters(spec.querystring), false),
    handler: async (req, reply) =>
      spec.handler({
        ctx: contextOf(req),
        query: req.query as z.output<Q>,
        params: req.params as z.output<P>,
        body: req.body as z.output<B>,
        req,
        reply,
      }),
  });
}

// ---- query-parameter building blocks ----------------------------------------------------------

function emptyToUndefined(v: unknown): unknown {
  return v === '' ? undefined : v;
}

/** An integer query parameter; `abc` and `1.5` give `int_parsing` (422). */
export function queryInt(opts: { min?: number; max?: number; description?: string } = {}) {
  let inner = z.int();
  if (opts.min !== undefined) inner = inner.min(opts.min);
  if (opts.max !== undefined) inner = inner.max(opts.max);
  const schema = z.preprocess((v, ctx) => {
    const s = emptyToUndefined(v);
    if (typeof s !== 'string') return s;
    if (!/^[+-]?\d+$/.test(s.trim())) {
      ctx.issues.push({ code: 'custom', message: 'Input should be a valid integer', input: v, params: { type: 'int_parsing' } });
      return z.NEVER;
    }
    return Number(s);
  }, inner);
  return opts.description ? schema.describe(opts.description) : schema;
}

/** A decimal number query parameter; `abc` gives `float_parsing` (422). */
export function queryFloat(opts: { min?: number; max?: number; description?: string } = {}) {
  let inner = z.number();
  if (opts.min !== undefined) inner = inner.min(opts.min);
  if (opts.max !== undefined) inner = inner.max(opts.max);
  const schema = z.preprocess((v, ctx) => {
    const s = emptyToUndefined(v);
    if (typeof s !== 'string') return s;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s.trim())) {
      ctx.issues.push({ code: 'custom', message: 'Input should be a valid number', input: v, params: { type: 'float_parsing' } });
      return z.NEVER;
    }
    return Number(s);
  }, inner);
  return opts.description ? schema.describe(opts.description) : schema;
}

/** `true`/`false` (also 1/0, yes/no); anything else gives `bool_parsing` (422). */
export function queryBool(description?: string) {
  const schema = z.preprocess((v, ctx) => {
    const s = emptyToUndefined(v);
    if (typeof s !== 'string') return s;
    const t = s.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(t)) return true;
    if (['false', '0', 'no'].includes(t)) return false;
    ctx.issues.push({
      code: 'custom',
      message: 'Input should be a valid boolean (true or false)',
      input: v,
      params: { type: 'bool_parsing' },
    });
    return z.NEVER;
  }, z.boolean());
  return description ? schema.describe(description) : schema;
}

/**
 * A comma-separated list (`a,b,c`); a repeated parameter (`?v=a&v=b`) is accepted too and the
 * two forms combine. Blank items are dropped.
 */
export function queryList(item: z.ZodType<string> = z.string(), opts: { min?: number; max?: number; description?: string } = {}) {
  let arr = z.array(item);
  if (opts.min !== undefined) arr = arr.min(opts.min);
  if (opts.max !== undefined) arr = arr.max(opts.max);
  const schema = z.preprocess((v) => {
    const s = emptyToUndefined(v);
    if (s === undefined) return undefined;
    const parts = ([] as unknown[]).concat(s).flatMap((x) => (typeof x === 'string' ? x.split(',') : [x]));
    const items = parts.map((x) => (typeof x === 'string' ? x.trim() : x)).filter((x) => x !== '');
    return items.length === 0 ? undefined : items;
  }, arr);
  return opts.description ? schema.describe(opts.description) : schema;
}

/** A plain string parameter where an empty value means absent. */
export function queryString(description?: string) {
  const schema = z.preprocess(emptyToUndefined, z.string());
  return description ? schema.describe(description) : schema;
}

/** `limit`/`offset` as documented in docs/api.md; the plan's maximum is applied by the verb. */
export const paginationQuery = {
  limit: queryInt({ min: 1, description: 'Page size. Default 50; values above your plan maximum are reduced to it.' }).optional(),
  offset: queryInt({ min: 0, description: 'Zero-based index of the first record. Default 0.' }).optional(),
};
