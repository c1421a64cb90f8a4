// What the app knows about itself (config, stores, clock, injected seams) and what each request
// accumulates (caller, rate-limit headers). Routes reach both through `contextOf(req)`, which is
// the only way a handler gets a VerbContext.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { Config } from '../../config.js';
import type { Caller, Stores, VerbContext } from '../../context/verb-context.js';

/** Verifies a raw API key; throws AppError('invalid-api-key') for unknown, malformed or revoked keys. */
export type KeyAuthenticator = (rawKey: string, ctx: VerbContext) => Promise<Caller>;
/** Verifies a dashboard sign-in token (Authorization: Bearer); throws AppError('invalid-token'). */
export type TokenAuthenticator = (token: string, ctx: VerbContext) => Promise<Caller>;
/**
 * Admission control (quota, burst, concurrency, ToS): throws 429/403 AppErrors, returns the
 * rate-limit headers to put on the response. `release` (optional) is called when the response is
 * finished, so concurrency slots are returned.
 */
export type Admission = (args: {
  ctx: VerbContext;
  caller: Caller;
  cost: number;
  ip: string;
  instance: string;
  /** The route's template (fastify's routeOptions.url), under which usage is counted. */
  route?: string;
}) => Promise<{
  headers?: Record<string, string>;
  release?: () => void;
  /** Undo the charge (idempotent): called when the response is a 5xx or is cut off. */
  refund?: () => void;
}>;

/** Verifies a dashboard session cookie (and its CSRF token on state-changing calls). */
export type SessionAuthenticator = (
  session: { sessionId: string; csrfToken?: string; stateChanging: boolean; forData?: boolean },
  ctx: VerbContext,
) => Promise<Caller>;

export interface Seams {
  authenticateKey?: KeyAuthenticator;
  authenticateToken?: TokenAuthenticator;
  authenticateSession?: SessionAuthenticator;
  admit?: Admission;
  /** Current rate-limit headers without charging, for authenticated responses that skipped admission. */
  rateLimitHeaders?: (ctx: VerbContext) => Record<string, string>;
  /** Called when every authenticated response ends; returns a concurrency slot a verb took (idempotent). */
  release?: (ctx: VerbContext) => void;
}

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
    /** Charges of this request to undo if it is not served (app.ts runs them on close). */
    refunds: Array<() => void>;
    /** The response has closed (sent, timed out or abandoned): nothing more may be charged. */
    responseClosed: boolean;
    /** The stores of the build live when the request arrived (app.ts takes the lease). */
    stores: Stores;
  }
}

export function contextOf(req: FastifyRequest): VerbContext {
  const s = req.server.services;
  const caller = req.caller;
  const admit = s.seams.admit;
  return {
    requestId: req.id,
    caller,
    stores: req.stores ?? s.stores,
    config: s.config,
    now: s.now,
    log: req.log as VerbContext['log'],
    via: req.routeOptions.url ?? req.url.split('?')[0] ?? '',
    // Verb-level admission (routes declared with costOf: 'verb'). The concurrency slot it takes is
    // returned by seams.release when the response closes, like transport-level admission.
    charge:
      caller && admit
        ? async (units: number) => {
            // A verb still running after its response was closed (deadline 503, client gone)
            // must not charge for it: nothing would refund the charge.
            if (req.responseClosed)
              throw new AppError('dependency-unavailable', 'The request ended before it could be served; retry with backoff.');
            const admitted = await admit({
              ctx: contextOf(req),
              caller,
              cost: units,
              ip: req.ip,
              instance: req.url.split('?')[0] ?? req.url,
              route: req.routeOptions.url,
            });
            Object.assign(req.responseHeaders, admitted.headers ?? {});
            if (admitted.refund) req.refunds.push(admitted.refund);
          }
        : undefined,
  };
}
