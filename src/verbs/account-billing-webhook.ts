// POST /v1/billing/webhook — Stripe's deliveries. Unauthenticated at the transport: the
// signature over the raw body is the authentication (src/billing/webhook.ts).
import { applyStripeEvent, verifyWebhook, WebhookSignatureError, type WebhookOutcome } from '../billing/webhook.js';
import { AppError } from '../domain/errors.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { SqliteAccountStore } from '../store/accounts/sqlite-store.js';
import { storeOf } from '../context/stores.js';

export async function billingWebhook({
  ctx,
  input,
}: {
  ctx: VerbContext;
  input: { rawBody: Buffer | string; signature: string | undefined };
}): Promise<VerbResult<WebhookOutcome>> {
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
  // Applying an event is one synchronous SQLite transaction (src/billing/webhook.ts); the
  // PostgreSQL store does not carry billing yet (docs/replicas.md, "Left to do").
  if (!(store instanceof SqliteAccountStore)) {
    throw new AppError('dependency-unavailable', 'Billing webhooks are not available with the PostgreSQL accounts store yet.');
  }
  const out = applyStripeEvent(store.db, event, now);
  ctx.log.info({ eventId: out.event_id, type: out.type, status: out.status, accountId: out.account_id, plan: out.plan }, 'stripe webhook');
  return { data: out };
}
