// POST /v1/account/checkout — a Stripe Checkout session for a self-service plan. Prices come
// from the plans table (price_data), so no Stripe price ids need configuring; the plan and
// account ride along as metadata on both the session and the subscription, which is how the
// webhook knows what was bought.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { isPurchasable, planOf } from '../domain/plans.js';
import { signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const checkoutInput = z.strictObject({
  plan: z.enum(['pioneer', 'pro', 'business']),
  interval: z.enum(['monthly', 'annual']).default('monthly'),
});

export interface CheckoutSession {
  id: string;
  url: string | null;
  expires_at: string | null;
  plan: string;
  interval: 'monthly' | 'annual';
  amount: number;
  currency: 'usd';
}

export const accountCheckout = defineVerb({
  name: 'account-checkout',
  input: checkoutInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: body }): Promise<VerbResult<CheckoutSession>> => {
    const { store, account } = await signedInAccount(ctx);
    const stripe = storeOf(ctx.stores, 'stripe');
    const plan = planOf(body.plan);
    const amount = body.interval === 'annual' ? plan.price.annual : plan.price.monthly;
    if (!isPurchasable(plan) || amount === null) throw new AppError('validation-error', `The ${plan.name} plan is not sold online.`);
    const live = (await store.subscriptionsOf(account.id)).find((s) => ['active', 'trialing', 'past_due'].includes(s.status));
    if (live) {
      throw new AppError('conflict', `The account already has a ${live.plan} subscription; change plans in the billing portal.`, {
        extensions: { portal: '/v1/account/portal' },
      });
    }
    const dash = ctx.config.DASHBOARD_URL.replace(/\/$/, '');
    const metadata = { account_id: account.id, plan: plan.id, interval: body.interval };
    try {
      let customer = account.stripe_customer_id;
      if (!customer) {
        // The idempotency key makes a double-clicked checkout reuse one customer, not create two.
        const c = await stripe.customers.create(
          { email: account.email ?? undefined, metadata: { account_id: account.id } },
          { idempotencyKey: `customer-${account.id}` },
        );
        customer = c.id;
        await store.setStripeCustomer(account.id, customer, ctx.now().getTime());
      }
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        customer,
        client_reference_id: account.id,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'usd',
              unit_amount: amount,
              recurring: { interval: body.interval === 'annual' ? 'year' : 'month' },
              product_data: { name: `Census Data Service ${plan.name}` },
            },
          },
        ],
        metadata,
        subscription_data: { metadata },
        success_url: `${dash}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${dash}/billing?checkout=cancelled`,
      });
      return {
        data: {
          id: session.id,
          url: session.url ?? null,
          expires_at: session.expires_at ? new Date(session.expires_at * 1000).toISOString() : null,
          plan: plan.id,
          interval: body.interval,
          amount,
          currency: 'usd',
        },
      };
    } catch (e) {
      if (e instanceof AppError) throw e;
      ctx.log.warn({ err: e }, 'stripe checkout failed');
      throw new AppError('dependency-unavailable', 'The payment processor is unavailable; retry with backoff.');
    }
  },
});
