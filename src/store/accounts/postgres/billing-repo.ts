// Billing records on PostgreSQL: the statement for each step of a billing program
// (src/billing/webhook.ts writes the logic once; see ../store.ts BillingStep).
import type { AccountRow } from '../shared/accounts.js';
import type { SubscriptionRow } from '../shared/billing.js';
import type { BillingStep } from '../store.js';
import { getAccount, findAccountByStripeCustomer, setPlan, setStripeCustomer } from './accounts-repo.js';
import type { Pg } from './connection.js';

export async function subscriptionsOf(c: Pg, accountId: string): Promise<SubscriptionRow[]> {
  return (await c.q<SubscriptionRow>('SELECT * FROM subscriptions WHERE account_id = $1 ORDER BY updated_at DESC', [accountId])).rows;
}

export async function billingStep(c: Pg, s: BillingStep): Promise<unknown> {
  switch (s.op) {
    case 'getAccount':
      return getAccount(c, s.id);
    case 'findAccountByStripeCustomer':
      return findAccountByStripeCustomer(c, s.customerId) as Promise<AccountRow | undefined>;
    case 'setPlan':
      return setPlan(c, s.id, s.plan, s.now);
    case 'setStripeCustomer':
      return setStripeCustomer(c, s.id, s.customerId, s.now);
    case 'eventProcessed':
      return (await c.one('SELECT 1 FROM stripe_events WHERE id = $1', [s.id])) !== undefined;
    case 'recordEvent': {
      const r = await c.q(
        `INSERT INTO stripe_events (id, type, created, account_id, outcome, processed_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO NOTHING`,
        [s.e.id, s.e.type, s.e.created, s.e.accountId, s.e.outcome, s.e.now],
      );
      return r.rowCount === 1;
    }
    case 'getSubscription':
      return c.one<SubscriptionRow>('SELECT * FROM subscriptions WHERE id = $1', [s.id]);
    case 'upsertSubscription': {
      const x = s.s;
      await c.q(
        `INSERT INTO subscriptions (id, account_id, customer_id, plan, interval, status, current_period_end, last_event_created, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, customer_id = excluded.customer_id, plan = excluded.plan,
           interval = excluded.interval, status = excluded.status, current_period_end = excluded.current_period_end,
           last_event_created = excluded.last_event_created, updated_at = excluded.updated_at`,
        [x.id, x.account_id, x.customer_id, x.plan, x.interval, x.status, x.current_period_end, x.last_event_created, x.updated_at],
      );
      return undefined;
    }
    case 'subscriptionsOf':
      return subscriptionsOf(c, s.accountId);
  }
}
