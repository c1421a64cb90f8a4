// Admission: the three enforced layers, in order concurrency → monthly units → per-minute burst.
// Verbs call it after validation and plan gates (so a gated feature answers 403, never 429) and
// before expensive work, with the cost from src/domain/cost.ts. The transport must call
// releaseAdmission(ctx) when the response ends (any outcome; it is idempotent).
import { AppError } from '../domain/errors.js';
import { rateLimitHeaders, type LimitState } from '../domain/limits/headers.js';
import { minuteStart, MINUTE_MS, periodBounds, periodOf, secondsUntil } from '../domain/limits/windows.js';
import { PLAN_IDS, PLANS, planOf, upgradeUrl, type Plan } from '../domain/plans.js';
import type { AccountsStore } from '../store/accounts/store.js';
import { DASHBOARD_KEY_ID } from './authenticate-dashboard.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

export interface AdmitInput {
  /** Units from costOf(); 0 for boundary requests on plans with access. */
  cost: number;
  /** The request path (`/v1/geographies/state:06`) or tool (`mcp:get_census_data`); becomes the 429 `instance`. */
  instance: string;
  /**
   * What usage is counted under: the route's template (`/v1/geographies/:geo_key`), so "by
   * endpoint" groups requests by route rather than listing every path; the instance when absent.
   */
  route?: string;
  ip?: string | null;
}

export interface Admission {
  units: number;
  /** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers). */
  headers: Record<string, string>;
  release(): void;
  /** Undo the charge: for a request that ended in a 5xx or was cut off (idempotent, never throws). */
  refund(): void;
}

function nextPlan(p: Plan): Plan | undefined {
  return PLAN_IDS.map((id) => PLANS[id]).find((q) => q.rank === p.rank + 1);
}

function limitState(plan: Plan, now: Date, used: { monthly: number; burst: number; inFlight: number }): LimitState {
  const { start, end } = periodBounds(now);
  const minute = minuteStart(now);
  return {
    monthly: {
      quota: plan.limits.monthlyUnits,
      used: used.monthly,
      windowSeconds: Math.round((end.getTime() - start.getTime()) / 1000),
      resetSeconds: secondsUntil(now, end.getTime()),
    },
    burst: {
      quota: plan.limits.burstPerMinute,
      used: used.burst,
      resetSeconds: secondsUntil(now, minute + MINUTE_MS),
    },
    concurrency: { quota: plan.limits.concurrentConnections, inFlight: used.inFlight },
  };
}

export async function admitRequest({ ctx, input }: { ctx: VerbContext; input: AdmitInput }): Promise<VerbResult<Admission>> {
  const store = storeOf(ctx.stores, 'accounts');
  if (!ctx.caller) throw new AppError('missing-api-key', 'Send your API key in the X-API-Key header.');
  const { accountId, keyId } = ctx.caller;
  // Dashboard sessions are not metered: the account pages must work when the API quota is spent,
  // which is exactly when people open them to upgrade.
  if (keyId === DASHBOARD_KEY_ID) return { data: { units: 0, headers: {}, release: () => {}, refund: () => {} } };
  const plan = planOf(ctx.caller.plan);
  const now = ctx.now();
  const cost = Math.max(0, Math.ceil(input.cost));

  const reject = (limitType: 'monthly' | 'burst' | 'concurrency', quota: number, retryAfter: number, state: LimitState, detail: string) => {
    const up = nextPlan(plan);
    return new AppError('rate-limit-exceeded', detail, {
      instance: input.instance,
      extensions: { limit_type: limitType, plan: plan.id, quota, upgrade_url: upgradeUrl(ctx.config.DASHBOARD_URL, up?.id) },
      headers: { 'Retry-After': String(retryAfter), ...rateLimitHeaders(state) },
    });
  };

  const { end } = periodBounds(now);
  const minute = minuteStart(now);
  const period = periodOf(now);
  // Concurrency slot, monthly units and burst window in one step of the store: group-committed
  // with the other admissions of this event-loop turn (one transaction on SQLite, one statement
  // on PostgreSQL), settled after COMMIT. A verb may charge more than once per request (e.g. per
  // expansion step); the request keeps the slot it holds instead of taking another.
  const out = await store.admit({
    accountId,
    keyId,
    period,
    minute,
    cost,
    monthlyQuota: plan.limits.monthlyUnits,
    burstQuota: plan.limits.burstPerMinute,
    route: input.route ?? input.instance,
    ip: input.ip ?? null,
    now: now.getTime(),
    requestId: ctx.requestId,
    maxConcurrent: plan.limits.concurrentConnections,
  });
  const state = limitState(plan, now, { monthly: out.monthlyUsed, burst: out.burstUsed, inFlight: out.inFlight });
  if (!out.ok && out.limit === 'concurrency') {
    const q = plan.limits.concurrentConnections;
    throw reject('concurrency', q, 1, state, `The ${plan.name} plan allows ${q} concurrent requests; wait for one to finish.`);
  }
  if (!out.ok && out.limit === 'monthly') {
    const q = plan.limits.monthlyUnits;
    throw reject(
      'monthly',
      q,
      secondsUntil(now, end.getTime()),
      state,
      `This request costs ${cost} units and ${Math.max(0, q - out.monthlyUsed)} of the ${plan.name} plan's ${q} monthly units are left; the quota resets at ${end.toISOString()}.`,
    );
  }
  if (!out.ok) {
    const q = plan.limits.burstPerMinute;
    throw reject('burst', q, secondsUntil(now, minute + MINUTE_MS), state, `The ${plan.name} plan allows ${q} requests per minute.`);
  }
  let refunded = false;
  const undo = () => {
    if (refunded) return;
    refunded = true;
    store.refund({ accountId, period, logId: out.logId }).catch((err: unknown) => {
      // The database that failed the request may fail the refund too: logged for reconciliation.
      ctx.log.error?.({ err, account_id: accountId, request_log_id: out.logId, units: cost }, 'refund failed');
    });
  };
  return { data: { units: cost, headers: rateLimitHeaders(state), release: out.lease.release, refund: undo } };
}

/** End of response: give the concurrency slot back (no-op when the request held none). */
export function releaseAdmission(ctx: Pick<VerbContext, 'stores' | 'requestId'>): void {
  const s = ctx.stores.accounts as Partial<AccountsStore> | null | undefined;
  if (s && typeof s.releaseRequest === 'function') s.releaseRequest(ctx.requestId);
}

/**
 * Rate-limit headers without charging, for authenticated responses that never reached admission
 * (403 gates, 400s): the spec puts the headers on all authenticated responses. No round trip: on
 * SQLite the counters are read in place; on PostgreSQL they are this replica's last view.
 */
export function currentRateLimitHeaders(ctx: VerbContext): Record<string, string> {
  if (!ctx.caller || ctx.caller.keyId === DASHBOARD_KEY_ID) return {};
  const store = storeOf(ctx.stores, 'accounts');
  const now = ctx.now();
  const p = store.peekUsage(ctx.caller.accountId, periodOf(now), minuteStart(now));
  return rateLimitHeaders(limitState(planOf(ctx.caller.plan), now, { monthly: p.monthlyUnits, burst: p.burst, inFlight: p.inFlight }));
}
