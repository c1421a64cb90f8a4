// GET /v1/account/usage — the billing period's units against the quota, with breakdowns by day,
// route and key. Billing periods are calendar months (UTC); `period=YYYY-MM` reads an older one.
import { z } from 'zod';
import { MINUTE_MS, minuteStart, periodBounds } from '../domain/limits/windows.js';
import { planOf } from '../domain/plans.js';
import { burstRequests, monthlyRequests, monthlyUnits, usageByDay, usageByKey, usageByRoute } from '../store/accounts/usage-repo.js';
import { parseInput, signedInAccount } from './account-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

export const usageInput = z.object({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Use YYYY-MM')
    .optional(),
});

export async function accountUsage({ ctx, input }: { ctx: VerbContext; input: unknown }): Promise<VerbResult<Record<string, unknown>>> {
  const { period: asked } = parseInput(usageInput, input, 'query');
  const { store, account } = signedInAccount(ctx);
  const now = ctx.now();
  const at = asked ? new Date(`${asked}-01T00:00:00.000Z`) : now;
  const { start, end } = periodBounds(at);
  const period = start.toISOString().slice(0, 7);
  const plan = planOf(account.plan);
  const used = monthlyUnits(store.db, account.id, period);
  const minute = minuteStart(now);
  const rows = (f: typeof usageByDay) => f(store.db, account.id, start.getTime(), end.getTime());
  return {
    data: {
      period,
      period_start: start.toISOString(),
      period_end: end.toISOString(),
      plan: plan.id,
      units: { used, quota: plan.limits.monthlyUnits, remaining: Math.max(0, plan.limits.monthlyUnits - used) },
      requests: monthlyRequests(store.db, account.id, period),
      burst: {
        per_minute: plan.limits.burstPerMinute,
        used_this_minute: burstRequests(store.db, account.id, minute),
        resets_at: new Date(minute + MINUTE_MS).toISOString(),
      },
      concurrency: { max: plan.limits.concurrentConnections, in_flight: store.concurrency.inFlight(account.id) },
      by_day: rows(usageByDay).map((r) => ({ date: r.key, units: r.units, requests: r.requests })),
      by_route: rows(usageByRoute).map((r) => ({ route: r.key, units: r.units, requests: r.requests })),
      by_key: rows(usageByKey).map((r) => ({ key_id: r.key || null, units: r.units, requests: r.requests })),
    },
  };
}
