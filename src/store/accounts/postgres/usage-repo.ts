// Usage records on PostgreSQL: refunds and the counters an account reads. (Admission, which
// charges, is admission.ts: one batched statement per event-loop turn.)
import type { RefundInput, UsageBreakdownRow } from '../shared/usage.js';
import type { Pg } from './connection.js';

/**
 * Give back what a request was charged when it was not served: deleting its request_log row (the
 * receipt) and returning its units in one statement, so a second refund finds no row. The burst
 * count is not given back (it limits attempts), as on SQLite (usage-repo.ts).
 */
export async function refund(c: Pg, r: RefundInput): Promise<boolean> {
  const out = await c.q(
    `WITH d AS (DELETE FROM request_log WHERE id = $1 AND account_id = $2 RETURNING units)
     UPDATE usage_periods u SET units = greatest(0, u.units - d.units), requests = greatest(0, u.requests - 1)
       FROM d WHERE u.account_id = $2 AND u.period = $3`,
    [r.logId, r.accountId, r.period],
  );
  return out.rowCount === 1;
}

export async function usage(c: Pg, accountId: string, period: string, minute: number, now: number) {
  const r = await c.one<{ units: number; requests: number; burst: number; in_flight: number }>(
    `SELECT coalesce((SELECT units FROM usage_periods WHERE account_id = $1 AND period = $2), 0) AS units,
            coalesce((SELECT requests FROM usage_periods WHERE account_id = $1 AND period = $2), 0) AS requests,
            coalesce((SELECT requests FROM usage_minutes WHERE account_id = $1 AND window_start = $3), 0) AS burst,
            (SELECT count(*)::int FROM concurrency_leases WHERE account_id = $1 AND expires_at > $4) AS in_flight`,
    [accountId, period, minute, now],
  );
  return { monthlyUnits: r!.units, monthlyRequests: r!.requests, burst: r!.burst, inFlight: r!.in_flight };
}

export async function usageBreakdown(c: Pg, accountId: string, from: number, to: number) {
  const p = [accountId, from, to];
  const [byDay, byRoute, byKey] = await Promise.all([
    c.q<UsageBreakdownRow>(
      `SELECT to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS key, sum(units)::bigint AS units, count(*)::bigint AS requests
         FROM request_log WHERE account_id = $1 AND at >= $2 AND at < $3 GROUP BY 1 ORDER BY 1`,
      p,
    ),
    c.q<UsageBreakdownRow>(
      `SELECT route AS key, sum(units)::bigint AS units, count(*)::bigint AS requests
         FROM request_log WHERE account_id = $1 AND at >= $2 AND at < $3 GROUP BY route ORDER BY units DESC, route`,
      p,
    ),
    c.q<UsageBreakdownRow>(
      `SELECT coalesce(key_id, '') AS key, sum(units)::bigint AS units, count(*)::bigint AS requests
         FROM request_log WHERE account_id = $1 AND at >= $2 AND at < $3 GROUP BY key_id ORDER BY units DESC`,
      p,
    ),
  ]);
  return { byDay: byDay.rows, byRoute: byRoute.rows, byKey: byKey.rows };
}
