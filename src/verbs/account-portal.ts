// GET /v1/account/portal — a Stripe billing-portal session (change plan, card, invoices, cancel).
import { AppError } from '../domain/errors.js';
import { signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { z } from 'zod';
import { defineVerb } from './define-verb.js';

export const accountPortal = defineVerb({
  name: 'account-portal',
  input: z.object({}),
  cost: 'free',
  run: async ({ ctx }): Promise<VerbResult<{ id: string; url: string }>> => {
    const { account } = await signedInAccount(ctx);
    const stripe = storeOf(ctx.stores, 'stripe');
    if (!account.stripe_customer_id) {
      throw new AppError('conflict', 'There is no billing account yet; start a subscription with POST /v1/account/checkout.');
    }
    try {
      const s = await stripe.billingPortal.sessions.create({
        customer: account.stripe_customer_id,
        return_url: `${ctx.config.DASHBOARD_URL.replace(/\/$/, '')}/billing`,
      });
      return { data: { id: s.id, url: s.url } };
    } catch (e) {
      ctx.log.warn({ err: e }, 'stripe portal failed');
      throw new AppError('dependency-unavailable', 'The payment processor is unavailable; retry with backoff.');
    }
  },
});
