import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { createStripe } from '../../src/store/accounts/stripe-client.js';
import { createAccount, getAccount } from '../../src/store/accounts/accounts-repo.js';
import { upsertSubscription } from '../../src/store/accounts/billing-repo.js';
import { accountCheckout } from '../../src/verbs/account-checkout.js';
import { accountPortal } from '../../src/verbs/account-portal.js';
import { harness } from '../store/accounts/fixtures.js';
import { startStripeStub, type StripeStub } from '../support/stripe-stub.js';
import { failure } from '../support/failure.js';

let stub: StripeStub;
let stripe: Stripe;
beforeAll(async () => {
  stub = await startStripeStub();
  stripe = createStripe({ STRIPE_SECRET_KEY: 'sk_test_stub', STRIPE_API_URL: stub.url })!;
});
afterAll(async () => {
  await stub.close();
});

function setup(plan = 'free') {
  const h = harness({ stores: { stripe } });
  const a = createAccount(h.store.db, { email: 'buyer@example.com', plan, now: h.clock.t });
  return { h, a, ctx: () => h.ctx({ accountId: a.id, keyId: 'dashboard', plan }) };
}

describe('checkout', () => {
  it('monthly by default: creates the customer once, then a subscription session priced from the plans table', async () => {
    const { h, a, ctx } = setup();
    stub.requests.length = 0;
    const r = await accountCheckout({ ctx: ctx(), input: { plan: 'pro' } });
    expect(r.data).toMatchObject({ plan: 'pro', interval: 'monthly', amount: 4900, currency: 'usd' });
    expect(r.data.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const [cust, sess] = stub.requests;
    expect(cust).toMatchObject({
      method: 'POST',
      path: '/v1/customers',
      form: { email: 'buyer@example.com', 'metadata[account_id]': a.id },
    });
    expect(cust!.headers['idempotency-key']).toBe(`customer-${a.id}`);
    expect(sess!.path).toBe('/v1/checkout/sessions');
    expect(sess!.form).toMatchObject({
      mode: 'subscription',
      client_reference_id: a.id,
      'line_items[0][price_data][unit_amount]': '4900',
      'line_items[0][price_data][recurring][interval]': 'month',
      'metadata[plan]': 'pro',
      'subscription_data[metadata][account_id]': a.id,
    });
    expect(getAccount(h.store.db, a.id)?.stripe_customer_id).toBe(cust!.form.customer ?? sess!.form.customer);
    // Second checkout reuses the stored customer.
    stub.requests.length = 0;
    const annual = await accountCheckout({ ctx: ctx(), input: { plan: 'pioneer', interval: 'annual' } });
    expect(annual.data.amount).toBe(19000);
    expect(stub.requests.map((q) => q.path)).toEqual(['/v1/checkout/sessions']);
    expect(stub.requests[0]!.form['line_items[0][price_data][recurring][interval]']).toBe('year');
  });

  it('rejects enterprise/free and bad intervals (422), and a second live subscription (409)', async () => {
    const { h, a, ctx } = setup();
    expect((await failure(accountCheckout.invoke({ ctx: ctx(), input: { plan: 'enterprise' } }))).status).toBe(422);
    expect((await failure(accountCheckout.invoke({ ctx: ctx(), input: { plan: 'pro', interval: 'weekly' } }))).status).toBe(422);
    upsertSubscription(h.store.db, {
      id: 'sub_1',
      account_id: a.id,
      customer_id: 'cus_1',
      plan: 'pro',
      interval: 'monthly',
      status: 'active',
      current_period_end: null,
      last_event_created: 1,
      updated_at: 1,
    });
    expect((await failure(accountCheckout({ ctx: ctx(), input: { plan: 'business' } }))).status).toBe(409);
  });

  it('a Stripe outage is 503 dependency-unavailable', async () => {
    const { ctx } = setup();
    stub.failNext(10);
    const e = await failure(accountCheckout({ ctx: ctx(), input: { plan: 'pro' } }));
    stub.failNext(0);
    expect(e.code).toBe('dependency-unavailable');
  });

  it('no Stripe configured → 503', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'x@example.com', plan: 'free', now: h.clock.t });
    expect(
      (await failure(accountCheckout({ ctx: h.ctx({ accountId: a.id, keyId: 'dashboard', plan: 'free' }), input: { plan: 'pro' } })))
        .status,
    ).toBe(503);
  });
});

describe('portal', () => {
  it('needs a billing customer (409), then returns a portal session for it', async () => {
    const { ctx } = setup();
    expect((await failure(accountPortal({ ctx: ctx() }))).status).toBe(409);
    await accountCheckout({ ctx: ctx(), input: { plan: 'pro' } });
    stub.requests.length = 0;
    const p = await accountPortal({ ctx: ctx() });
    expect(p.data.url).toMatch(/^https:\/\/billing\.stripe\.com\//);
    expect(stub.requests[0]).toMatchObject({
      path: '/v1/billing_portal/sessions',
      form: { return_url: 'http://localhost:8080/dashboard/billing' },
    });
  });
});
