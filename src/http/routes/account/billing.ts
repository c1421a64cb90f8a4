// POST /v1/account/checkout, GET /v1/account/portal, and POST /v1/billing/webhook (Stripe).
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { accountCheckout, checkoutInput } from '../../../verbs/account-checkout.js';
import { accountPortal } from '../../../verbs/account-portal.js';
import { billingWebhook } from '../../../verbs/account-billing-webhook.js';
import { defineRawRoute, defineRoute } from '../../route-helpers.js';
import { purchasablePlanIds } from '../../../verbs/describe-plans.js';

const common = { tags: ['account'], auth: 'user-token' as const, needs: ['accounts' as const] };

export function billingRoutes(app: FastifyInstance) {
  defineRoute(app, {
    ...common,
    method: 'POST',
    url: '/v1/account/checkout',
    summary: 'Start a checkout session',
    description: `Payment-processor checkout for \`plan\` (${purchasablePlanIds()}) and \`interval\` (\`monthly\` default, or \`annual\`). Redirect the user to \`url\`.`,
    body: checkoutInput,
    data: z.object({
      id: z.string(),
      url: z.string().nullable(),
      expires_at: z.string().nullable(),
      plan: z.string(),
      interval: z.enum(['monthly', 'annual']),
      amount: z.number().int().describe('US cents per interval'),
      currency: z.literal('usd'),
    }),
    handler: ({ ctx, body }) => accountCheckout({ ctx, input: body }),
  });
  defineRoute(app, {
    ...common,
    url: '/v1/account/portal',
    summary: 'Open the billing portal',
    description: 'Payment-processor customer portal (plan changes, cards, invoices, cancellation). 409 before the first checkout.',
    data: z.object({ id: z.string(), url: z.string() }),
    handler: ({ ctx }) => accountPortal({ ctx }),
  });

  // The signature covers the exact bytes Stripe sent, so this route must see the raw body: its
  // own encapsulated scope replaces the JSON parser with a Buffer passthrough.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    defineRawRoute(scope, {
      method: 'POST',
      url: '/v1/billing/webhook',
      summary: 'Stripe webhook',
      description: 'Signed by Stripe (Stripe-Signature). Idempotent on event id; out-of-order safe.',
      tags: ['billing'],
      auth: 'none',
      needs: ['accounts'],
      hide: true,
      handler: async ({ ctx, req, reply }) => {
        const sig = req.headers['stripe-signature'];
        const out = await billingWebhook({ ctx, input: { rawBody: req.body as Buffer, signature: Array.isArray(sig) ? sig[0] : sig } });
        return reply.code(200).send({ received: true, status: out.data.status });
      },
    });
  });
}
