// What the app knows about itself (config, stores, clock, injected seams) and what each request
// accumulates (caller, rate-limit headers, its lifecycle scope). Routes reach both through
// `contextOf(req)`, which is the only way a handler gets a VerbContext.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Caller, Stores, VerbContext } from '../../context/verb-context.js';
import { requestScope, type RequestScope } from '../../verbs/lifecycle/request-scope.js';
import type { Seams } from '../../verbs/lifecycle/seams.js';

export type { Admission, KeyAuthenticator, SessionAuthenticator, Seams, TokenAuthenticator } from '../../verbs/lifecycle/seams.js';
export interface Services {
  config: Config;
  stores: Stores;
  now: () => Date;
  seams: Seams;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyRequest {
    caller: Caller | null;
    /** Headers (rate limits) every response to an authenticated request carries, errors included. */
    responseHeaders: Record<string, string>;
    /** The lifecycle scopes of this request (one per REST request, one per MCP tool call): app.ts refunds them if it is not served. */
    scopes: RequestScope[];
    /** The response has closed (sent, timed out or abandoned): nothing more may be charged. */
    responseClosed: boolean;
    /** The stores of the build live when the request arrived (app.ts takes the lease). */
    stores: Stores;
  }
}

/** Each guarded request's lifecycle scope (src/verbs/lifecycle/request-scope.ts), opened once it is authenticated. */
const scopes = new WeakMap<FastifyRequest, RequestScope>();

/**
 * Open the request's scope: how HTTP carries what the lifecycle holds — rate-limit headers on the
 * response, refunds run by app.ts when the answer is a 5xx or cut off, slots returned when the
 * response closes ('close' fires on completion and on client abort alike, so none is leaked).
 */
export function openScope(req: FastifyRequest, reply: FastifyReply): RequestScope {
  const { seams } = req.server.services;
  const caller = req.caller;
  const scope = requestScope({
    caller,
    admit: seams.admit,
    heavyGate: req.server.heavyGate,
    ip: req.ip,
    instance: req.url.split('?')[0] ?? req.url,
    // Usage is counted by route template (`/v1/geographies/:geo_key`), not by each path.
    route: req.routeOptions.url,
    setHeaders: (headers) => Object.assign(req.responseHeaders, headers),
    closed: () => req.responseClosed || reply.sent || reply.raw.writableEnded || reply.raw.destroyed,
    atEnd: caller && seams.release ? () => seams.release?.(contextOf(req)) : undefined,
  });
  scopes.set(req, scope);
  req.scopes.push(scope);
  reply.raw.once('close', () => scope.end());
  return scope;
}

export function contextOf(req: FastifyRequest): VerbContext {
  const s = req.server.services;
  const scope = scopes.get(req);
  const ctx: VerbContext = {
    requestId: req.id,
    caller: req.caller,
    stores: req.stores ?? s.stores,
    config: s.config,
    now: s.now,
    log: req.log as VerbContext['log'],
    via: req.routeOptions.url ?? req.url.split('?')[0] ?? '',
    request: scope,
  };
  if (scope && req.caller && s.seams.admit) ctx.charge = (units) => scope.charge(ctx, units);
  return ctx;
}
