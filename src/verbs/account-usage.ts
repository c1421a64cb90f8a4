// GET /v1/account/usage — the billing period's units against the quota, with breakdowns by day,
// route and key. Billing periods are calendar months (UTC); `period=YYYY-MM` reads an older one.
import { z } from 'zod';
import { MINUTE_MS, minuteStart, periodBounds } from '../domain/limits/windows.js';
import { planOf } from '../domain/plans.js';
import { signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const usageInput = z.object({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Use YYYY-MM')
    .optional(),
});

export const accountUsage = defineVerb({
  name: 'account-usage',
  input: usageInput,
  inputAt: 'query',
  cost: 'free',
  run: async ({ ctx, input: { period: asked } }): Promise<VerbResult<Record<string, unknown>>> => {
    const { store, account } = await signedInAccount(ctx);
    const now = ctx.now();
    const at = asked ? new Date(`${asked}-01T00:00:00.000Z`) : now;
    const { start, end } = periodBounds(at);
    const period = start.toISOString().slice(0, 7);
    const plan = planOf(account.plan);
    const minute = minuteStart(now);
    const counters = await store.usage(account.id, period, minute);
    const used = counters.monthlyUnits;
    const breakdown = await store.usageBreakdown(account.id, start.getTime(), end.getTime());
    return {
      data: {
        period,
        period_start: start.toISOString(),
        period_end: end.toISOString(),
        plan: plan.id,
        units: { used, quota: plan.limits.monthlyUnits, remaining: Math.max(0, plan.limits.monthlyUnits - used) },
        requests: counters.monthlyRequests,
        burst: {
          per_minute: plan.limits.burstPerMinute,
          used_this_minute: counters.burst,
          resets_at: new Date(minute + MINUTE_MS).toISOString(),
        },
        concurrency: { max: plan.limits.concurrentConnections, in_flight: counters.inFlight },
        by_day: breakdown.byDay.map((r) => ({ date: r.key, units: r.units, requests: r.requests })),
        by_route: breakdown.byRoute.map((r) => ({ route: r.key, units: r.units, requests: r.requests })),
        by_key: breakdown.byKey.map((r) => ({ key_id: r.key || null, units: r.units, requests: r.requests })),
      },
    };
  },
});
