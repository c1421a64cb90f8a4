// Stripe webhooks → plan changes. Three guarantees:
//  1. Authentic: the raw body's signature is checked with the SDK (constructEvent) against the
//     endpoint secret, with a timestamp tolerance that turns replays of old deliveries away.
//  2. Idempotent: an event id is applied once; the record of it commits in the same transaction
//     as its effect, so a crash cannot leave one without the other.
//  3. Order-tolerant: Stripe does not deliver in order. Each subscription remembers the `created`
//     time of the newest event applied to it; older events are skipped, and a canceled
//     subscription is never resurrected by a late "active" update.
import type Stripe from 'stripe';
import { isPlanId, PLANS, planOf } from '../domain/plans.js';
import type { AccountRow } from '../store/accounts/accounts-repo.js';
import type { SubscriptionRow } from '../store/accounts/billing-repo.js';
import type { AccountsStore, BillingProgram, BillingStep } from '../store/accounts/store.js';
import { stripeSdk } from '../store/accounts/stripe-sdk.js';

export const WEBHOOK_TOLERANCE_SECONDS = 300;

export class WebhookSignatureError extends Error {}

export type WebhookStatus = 'applied' | 'duplicate' | 'stale' | 'ignored';

export interface WebhookOutcome {
  event_id: string;
  type: string;
  status: WebhookStatus;
  account_id: string | null;
  plan: string | null;
}

/** Statuses under which the paid plan is in force (past_due: Stripe is still retrying the card). */
const ENTITLED = new Set(['active', 'trialing', 'past_due']);
const TERMINAL = new Set(['canceled', 'incomplete_expired']);
/** Tie-break for events stamped in the same second: the later lifecycle state wins. */
const LIFECYCLE: Record<string, number> = {
  incomplete: 0,
  trialing: 1,
  active: 1,
  paused: 2,
  past_due: 2,
  unpaid: 3,
  canceled: 4,
  incomplete_expired: 4,
};

// Verification needs no API key; a placeholder lets webhooks work on a server without one. Made on
// the first webhook: the SDK is loaded on first use (stripe-sdk.ts).
let verifier: Stripe | undefined;
function webhookVerifier(): Stripe {
  const Sdk = stripeSdk();
  return (verifier ??= new Sdk('sk_webhook_verification_only'));
}

export function verifyWebhook(rawBody: Buffer | string, signature: string | undefined, secret: string, nowMs: number): Stripe.Event {
  if (!signature) throw new WebhookSignatureError('Missing Stripe-Signature header');
  // Stripe sends exactly one timestamp. With several, the SDK verifies the signature against the
  // last one while anything else reading the header may take another: `t=<now>,t=<far future>,
  // v1=<signature for the future t>` passed the SDK (signed) and a first-t future check (now).
  // There is no timestamp to trust in such a header, so it is refused before the SDK sees it.
  const timestamps = signatureTimestamps(signature);
  if (timestamps.length !== 1) throw new WebhookSignatureError('Expected exactly one timestamp in Stripe-Signature');
  let event: Stripe.Event;
  try {
    // Signature over `${t}.${body}` with the endpoint secret, and t at most the tolerance old.
    event = webhookVerifier().webhooks.constructEvent(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS, undefined, nowMs);
  } catch (e) {
    throw new WebhookSignatureError((e as Error).message);
  }
  // The SDK only refuses timestamps too far in the past; one dated in the future (a signature
  // made with a skewed or tampered clock, replayable for as long as it stays "fresh") is refused
  // past the same tolerance. The one timestamp is the one the SDK verified.
  const t = timestamps[0]!;
  if (!Number.isFinite(t) || t * 1000 > nowMs + WEBHOOK_TOLERANCE_SECONDS * 1000) {
    throw new WebhookSignatureError('Timestamp outside the tolerance zone (in the future)');
  }
  return event;
}

/** Every `t=` element of a Stripe-Signature header, split as the SDK splits it (`,` then `=`). */
function signatureTimestamps(header: string): number[] {
  return header
    .split(',')
    .map((item) => item.split('='))
    .filter((kv) => kv[0] === 't')
    .map((kv) => Number.parseInt(kv[1] ?? '', 10));
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (v == null ? null : typeof v === 'string' ? v : v.id);

// The logic below is written once as generators of store steps (BillingStep): each store runs a
// program inside one transaction of its own (SQLite: synchronously in BEGIN IMMEDIATE;
// PostgreSQL: awaiting each step in BEGIN … COMMIT), so the effect and the record of the event
// commit together on either.
function* step<T>(s: BillingStep): BillingProgram<T> {
  return (yield s) as T;
}
const getAccount = (id: string) => step<AccountRow | undefined>({ op: 'getAccount', id });

function* accountFor(metadata: Stripe.Metadata | null | undefined, customer: string | null): BillingProgram<string | null> {
  const fromMeta = metadata?.account_id;
  if (fromMeta && (yield* getAccount(fromMeta))) return fromMeta;
  if (customer) return (yield* step<AccountRow | undefined>({ op: 'findAccountByStripeCustomer', customerId: customer }))?.id ?? null;
  return null;
}

/** The plan an account is entitled to by its subscriptions: the best entitled one, else Free. */
function* entitledPlan(accountId: string): BillingProgram<string> {
  let best = PLANS.free.id as string;
  for (const s of yield* step<SubscriptionRow[]>({ op: 'subscriptionsOf', accountId })) {
    if (ENTITLED.has(s.status) && planOf(s.plan).rank > planOf(best).rank) best = s.plan;
  }
  return best;
}

function isStale(stored: SubscriptionRow | undefined, created: number, status: string): boolean {
  if (!stored) return false;
  if (TERMINAL.has(stored.status) && !TERMINAL.has(status)) return true;
  if (created < stored.last_event_created) return true;
  if (created === stored.last_event_created) return (LIFECYCLE[status] ?? 0) < (LIFECYCLE[stored.status] ?? 0);
  return false;
}

function* applySubscription(
  ev: { created: number; now: number },
  s: {
    id: string;
    accountId: string;
    customer: string | null;
    plan: string;
    interval: string | null;
    status: string;
    periodEnd: number | null;
  },
): BillingProgram<'applied' | 'stale'> {
  const stored = yield* step<SubscriptionRow | undefined>({ op: 'getSubscription', id: s.id });
  if (isStale(stored, ev.created, s.status)) return 'stale';
  yield* step({
    op: 'upsertSubscription',
    s: {
      id: s.id,
      account_id: s.accountId,
      customer_id: s.customer,
      plan: s.plan,
      interval: s.interval,
      status: s.status,
      current_period_end: s.periodEnd ?? stored?.current_period_end ?? null,
      last_event_created: ev.created,
      updated_at: ev.now,
    },
  });
  yield* step({ op: 'setPlan', id: s.accountId, plan: yield* entitledPlan(s.accountId), now: ev.now });
  return 'applied';
}

function planFromMetadata(metadata: Stripe.Metadata | null | undefined, fallback?: string): string | null {
  const p = metadata?.plan ?? fallback;
  return p && isPlanId(p) ? p : null;
}

function* dispatch(event: Stripe.Event, now: number): BillingProgram<Omit<WebhookOutcome, 'event_id' | 'type'>> {
  const created = event.created * 1000;
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      if (session.mode !== 'subscription') return { status: 'ignored', account_id: null, plan: null };
      const customer = idOf(session.customer);
      const accountId =
        (yield* accountFor(session.metadata, customer)) ??
        (session.client_reference_id && (yield* getAccount(session.client_reference_id)) ? session.client_reference_id : null);
      const subId = idOf(session.subscription);
      const plan = planFromMetadata(session.metadata);
      if (!accountId || !subId || !plan) return { status: 'ignored', account_id: accountId, plan: null };
      if (customer && !(yield* getAccount(accountId))?.stripe_customer_id)
        yield* step({ op: 'setStripeCustomer', id: accountId, customerId: customer, now });
      // Payment done: treat the subscription as active until its own events say otherwise.
      const status = session.payment_status === 'unpaid' ? 'incomplete' : 'active';
      const interval = session.metadata?.interval ?? null;
      const r = yield* applySubscription({ created, now }, { id: subId, accountId, customer, plan, interval, status, periodEnd: null });
      return { status: r, account_id: accountId, plan: (yield* getAccount(accountId))?.plan ?? null };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.paused':
    case 'customer.subscription.resumed': {
      const sub = event.data.object;
      const customer = idOf(sub.customer);
      const accountId = yield* accountFor(sub.metadata, customer);
      const stored = yield* step<SubscriptionRow | undefined>({ op: 'getSubscription', id: sub.id });
      const plan = planFromMetadata(sub.metadata, stored?.plan);
      if (!accountId || !plan) return { status: 'ignored', account_id: accountId, plan: null };
      const item = sub.items?.data?.[0] as (Stripe.SubscriptionItem & { current_period_end?: number }) | undefined;
      const recurring = item?.price?.recurring?.interval;
      const periodEnd = item?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end ?? null;
      const status = event.type === 'customer.subscription.deleted' ? 'canceled' : sub.status;
      const r = yield* applySubscription(
        { created, now },
        {
          id: sub.id,
          accountId,
          customer,
          plan,
          interval:
            recurring === 'year' ? 'annual' : recurring === 'month' ? 'monthly' : (stored?.interval ?? sub.metadata?.interval ?? null),
          status,
          periodEnd: periodEnd === null ? null : periodEnd * 1000,
        },
      );
      return { status: r, account_id: accountId, plan: (yield* getAccount(accountId))?.plan ?? null };
    }
    default:
      return { status: 'ignored', account_id: null, plan: null };
  }
}

/** Apply one verified event exactly once (one transaction of the accounts store). */
export function applyStripeEvent(store: AccountsStore, event: Stripe.Event, now: number): Promise<WebhookOutcome> {
  return store.runBilling(function* (): BillingProgram<WebhookOutcome> {
    const head = { event_id: event.id, type: event.type };
    if (yield* step<boolean>({ op: 'eventProcessed', id: event.id })) return { ...head, status: 'duplicate', account_id: null, plan: null };
    const out = yield* dispatch(event, now);
    yield* step({
      op: 'recordEvent',
      e: { id: event.id, type: event.type, created: event.created * 1000, accountId: out.account_id, outcome: out.status, now },
    });
    return { ...head, ...out };
  });
}
