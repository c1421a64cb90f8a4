// Billing records on SQLite: processed Stripe events (idempotency) and the subscriptions they describe.
import { stmt, type Db } from './db.js';
import type { SubscriptionRow } from './shared/billing.js';

export type { SubscriptionRow } from './shared/billing.js';

export function eventProcessed(db: Db, eventId: string): boolean {
  return stmt(db, 'SELECT 1 FROM stripe_events WHERE id = ?').get(eventId) !== undefined;
}

export function recordEvent(
  db: Db,
  e: { id: string; type: string; created: number; accountId: string | null; outcome: string; now: number },
): boolean {
  return (
    stmt(db, 'INSERT OR IGNORE INTO stripe_events (id, type, created, account_id, outcome, processed_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      e.id,
      e.type,
      e.created,
      e.accountId,
      e.outcome,
      e.now,
    ).changes === 1
  );
}

export function getSubscription(db: Db, id: string): SubscriptionRow | undefined {
  return stmt(db, 'SELECT * FROM subscriptions WHERE id = ?').get(id) as SubscriptionRow | undefined;
}

export function upsertSubscription(db: Db, s: SubscriptionRow): void {
  stmt(
    db,
    `INSERT INTO subscriptions (id, account_id, customer_id, plan, interval, status, current_period_end, last_event_created, updated_at)
     VALUES (@id, @account_id, @customer_id, @plan, @interval, @status, @current_period_end, @last_event_created, @updated_at)
     ON CONFLICT(id) DO UPDATE SET account_id = excluded.account_id, customer_id = excluded.customer_id, plan = excluded.plan,
       interval = excluded.interval, status = excluded.status, current_period_end = excluded.current_period_end,
       last_event_created = excluded.last_event_created, updated_at = excluded.updated_at`,
  ).run(s);
}

export function subscriptionsOf(db: Db, accountId: string): SubscriptionRow[] {
  return stmt(db, 'SELECT * FROM subscriptions WHERE account_id = ? ORDER BY updated_at DESC').all(accountId) as SubscriptionRow[];
}
