// POST /v1/billing/webhook — Stripe's deliveries. Unauthenticated at the transport: the
// signature over the raw body is the authentication (src/billing/webhook.ts).
import { z } from 'zod';
import { applyStripeEvent, verifyWebhook, WebhookSignatureError, type WebhookOutcome } from '../billing/webhook.js';
import { AppError } from '../domain/errors.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

/** The raw body exactly as received (the signature covers its bytes) and the Stripe-Signature header. */
export const webhookInput = z.object({
  // No body is a body of no bytes: the signature check refuses it (400), so a sender never sees an internal field name.
  rawBody: z.union([z.instanceof(Buffer), z.string()]).default(''),
  signature: z.string().optional(),
});

export const billingWebhook = defineVerb({
  name: 'account-billing-webhook',
  input: webhookInput,
  cost: 'free',
  run: async ({ ctx, input }): Promise<VerbResult<WebhookOutcome>> => {
    const secret = ctx.config.STRIPE_WEBHOOK_SECRET;
    if (!secret) throw new AppError('dependency-unavailable', 'Billing webhooks are not configured on this server.');
    const store = storeOf(ctx.stores, 'accounts');
    const now = ctx.now().getTime();
    let event;
    try {
      event = verifyWebhook(input.rawBody, input.signature, secret, now);
    } catch (e) {
      if (!(e instanceof WebhookSignatureError)) throw e;
      ctx.log.warn({ reason: e.message }, 'stripe webhook rejected');
      throw new AppError('validation-error', 'Webhook signature verification failed.');
    }
    const out = await applyStripeEvent(store, event, now);
    ctx.log.info(
      { eventId: out.event_id, type: out.type, status: out.status, accountId: out.account_id, plan: out.plan },
      'stripe webhook',
    );
    return { data: out };
  },
});
