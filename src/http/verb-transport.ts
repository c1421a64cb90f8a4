// How HTTP carries one request through the lifecycle (src/verbs/lifecycle/lifecycle.ts): the
// credential as plugins/auth.ts reads it, the request scope (plugins/context.ts), HTTP's own
// refusals of the request as read (route-guards.ts: unknown parameter, Accept, a store the route
// needs), the input and the rendering the route gives. Used by the /v1 verb routes (verb-route.ts)
// and the Census-API route (routes/census-api/data.ts); nothing here decides a rule.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerbResult } from '../context/verb-context.js';
import type { Transport } from '../verbs/lifecycle/lifecycle.js';
import type { VerbFormat } from '../verbs/lifecycle/verb-spec.js';
import { authenticate } from './plugins/auth.js';
import { contextOf, openScope } from './plugins/context.js';

export interface HttpTransportSpec<O, Out> {
  /** HTTP's refusals of the request as read (route-guards.ts refuseAsRead), and the route's own. */
  refuse: () => void;
  input: () => unknown;
  format?: VerbFormat;
  render: (result: VerbResult<O>) => Out | Promise<Out>;
}

export function httpTransport<O, Out>(req: FastifyRequest, reply: FastifyReply, spec: HttpTransportSpec<O, Out>): Transport<O, Out> {
  return {
    credential: async () => {
      // The route's auth mode (route-meta.ts), as its declaration gave it.
      await authenticate(req, req.routeOptions.config.meta?.auth ?? 'api-key');
      return req.caller;
    },
    open: (caller) => {
      req.caller = caller;
      // The request's charges, slots and refunds, from here to the response's end.
      openScope(req, reply);
      return contextOf(req);
    },
    refuse: spec.refuse,
    input: spec.input,
    // Read by the parse phase after `refuse` (verb-route.ts reads format= there).
    get format() {
      return spec.format;
    },
    render: spec.render,
  };
}
