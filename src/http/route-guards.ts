// HTTP's own refusals of a request as read (unknown parameters, Accept, the stores a route needs),
// and the lifecycle's phases for routes that render no verb, in fastify's hooks: the credential and
// the request scope (onRequest), unknown parameters and Accept (preValidation, after
// authentication so a request without a key is a 401 first), the stores it needs and the charge
// (preHandler). Routes of verbs (costOf 'verb') have no hooks here: the lifecycle runs every phase
// in their handler (src/verbs/lifecycle/lifecycle.ts `serve`, through verb-transport.ts) and
// calls refuseAsRead in its parse phase.
import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { AppError } from '../domain/errors.js';
import { validationError } from '../domain/validation.js';
import type { RequestShape } from '../domain/cost.js';
import type { Caller } from '../context/verb-context.js';
import { chargeRequest, killSwitch } from '../verbs/lifecycle/lifecycle.js';
import { authenticate } from './plugins/auth.js';
import { contextOf, openScope } from './plugins/context.js';
import type { RouteMeta } from './route-meta.js';

/**
 * What admission charges before the handler runs: a request shape priced by src/domain/cost.ts
 * (default: a lookup), or units. 'verb': the route renders a verb, whose lifecycle charges.
 */
export type CostOf = ((input: { query: never; params: never; body: never }, caller: Caller) => RequestShape | number) | 'verb' | undefined;

export /**
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

/** The stores the route needs: 503 when one is not open (which one is logged, not told). */
function refuseWithoutStores(req: FastifyRequest, meta: RouteMeta): void {
  const stores = req.stores ?? req.server.services.stores;
  const missing = meta.needs.filter((n) => stores[n] === undefined || stores[n] === null);
  if (missing.length > 0) {
    // Which store is down is an operator concern: logged, not told to the client.
    req.log.warn({ missing }, 'store unavailable');
    throw new AppError('dependency-unavailable', 'A data source this endpoint needs is temporarily unavailable; retry with backoff.');
  }
}

/** HTTP's refusals of a request as read, for the lifecycle's parse phase: unknown parameters, Accept, stores. */
export function refuseAsRead(req: FastifyRequest, meta: RouteMeta, known: ReadonlySet<string> | undefined, negotiate: boolean): void {
  if (known) refuseUnknownParameters(req.query, known);
  if (negotiate) refuseUnacceptable(req);
  refuseWithoutStores(req, meta);
}

/**
 * The hooks of a route. `lifecycle`: the route runs a verb's lifecycle in its handler, every phase
 * included, so it has none. Otherwise the phases of a route that renders no verb; with costOf
 * 'verb' and a handler of its own (test fixtures), the handler charges through ctx.charge.
 */
export function guards(meta: RouteMeta, costOf: CostOf, known: ReadonlySet<string> | undefined, negotiate: boolean, lifecycle: boolean) {
  if (lifecycle) return {};
  return {
    onRequest: async (req: FastifyRequest, reply: FastifyReply) => {
      await authenticate(req, meta.auth);
      // The request's charges, slots and refunds, from here to the response's end.
      openScope(req, reply);
      if (costOf !== 'verb') killSwitch(req.server.services, meta.feature);
    },
    // After authentication (a request without a key is a 401 first), before admission (never charged).
    preValidation: async (req: FastifyRequest) => {
      if (known) refuseUnknownParameters(req.query, known);
      if (negotiate) refuseUnacceptable(req);
    },
    preHandler: async (req: FastifyRequest) => {
      refuseWithoutStores(req, meta);
      if (req.caller && costOf !== 'verb') {
        const input = { query: req.query, params: req.params, body: req.body } as never;
        await chargeRequest(contextOf(req), costOf ? costOf(input, req.caller) : { kind: 'lookup' });
      }
    },
  };
}
