// Billing records as both accounts stores hold them: the subscriptions Stripe events describe.
// (The webhook's logic is src/billing/webhook.ts, a program of BillingStep run by each store.)

export interface SubscriptionRow {
  id: string;
  account_id: string;
  customer_id: string | null;
  plan: string;
  interval: string | null;
  status: string;
  current_period_end: number | null;
  last_event_created: number;
  updated_at: number;
}
