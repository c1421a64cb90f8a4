// Plan and billing: the current plan, a comparison from the plans table, upgrade through Stripe
// Checkout and everything else through the Stripe Customer Portal. The plan changes when the
// payment processor's webhook arrives, so after a checkout this page polls the account briefly.
import { useEffect, useState } from 'preact/hooks';
import { api, describeError, type PlanInfo } from '../api.js';
import { Notice, PageTitle } from '../components.js';
import { date, num, price } from '../format.js';
import type { AppState } from '../app-state.js';

const yes = (b: unknown) => (b ? 'Yes' : '—');
const ROWS: { label: string; cell: (p: PlanInfo) => string }[] = [
  { label: 'Monthly units', cell: (p) => num(p.limits.monthlyUnits!) },
  { label: 'Requests per minute', cell: (p) => num(p.limits.burstPerMinute!) },
  { label: 'Concurrent requests', cell: (p) => num(p.limits.concurrentConnections!) },
  { label: 'Active API keys', cell: (p) => num(p.limits.apiKeys!) },
  { label: 'Max page size', cell: (p) => num(p.limits.pageSizeMax!) },
  {
    label: 'Wildcards and name expansion',
    cell: (p) => (p.limits.wildcardExpansionMax ? `up to ${num(p.limits.wildcardExpansionMax)}` : '—'),
  },
  { label: 'CSV export', cell: (p) => yes(p.features.csvExport) },
  { label: 'Geometry in answers', cell: (p) => yes(p.features.includeGeometry) },
  { label: 'Boundary levels', cell: (p) => (p.features.boundaryLevels as string[]).join(', ').replace('block_group', 'block group') },
  { label: 'MCP server', cell: (p) => yes(p.features.mcp) },
  { label: 'Priority support', cell: (p) => yes(p.features.prioritySupport) },
];

export function BillingPage({ session, profile, reloadProfile }: AppState) {
  const params = new URLSearchParams(location.search);
  const wanted = params.get('plan');
  const checkout = params.get('checkout');
  const [interval, setInterval_] = useState<'monthly' | 'annual'>('monthly');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const [waiting, setWaiting] = useState(checkout === 'success');
  const startPlan = useState(profile.plan.id)[0];

  // After checkout: poll until the webhook has moved the plan (or give up after ~30 s).
  useEffect(() => {
    if (!waiting) return;
    let n = 0;
    const t = setInterval(async () => {
      n++;
      await reloadProfile().catch(() => {});
      if (n >= 15) setWaiting(false);
    }, 2000);
    return () => clearInterval(t);
  }, [waiting]);
  useEffect(() => {
    if (waiting && (profile.plan.id !== startPlan || profile.billing.subscription)) setWaiting(false);
  }, [profile]);

  const current = session.plans.find((p) => p.id === profile.plan.id);
  const sub = profile.billing.subscription;
  const live = sub && ['active', 'trialing', 'past_due'].includes(sub.status);

  const upgrade = async (plan: string) => {
    setBusy(plan);
    setError(undefined);
    try {
      const r = await api<{ url: string | null }>('POST', '/v1/account/checkout', { plan, interval });
      if (r.data.url) location.assign(r.data.url);
    } catch (e) {
      setError(describeError(e));
      setBusy(undefined);
    }
  };
  const portal = async () => {
    setBusy('portal');
    setError(undefined);
    try {
      location.assign((await api<{ url: string }>('GET', '/v1/account/portal')).data.url);
    } catch (e) {
      setError(describeError(e));
      setBusy(undefined);
    }
  };

  return (
    <>
      <PageTitle>Plan &amp; billing</PageTitle>
      {checkout === 'success' && (
        <Notice kind={waiting ? 'info' : 'success'}>
          {waiting
            ? 'Payment received. Your plan changes as soon as the payment processor confirms it (usually a few seconds)…'
            : `Thank you! You are on the ${profile.plan.name} plan.`}
        </Notice>
      )}
      {checkout === 'cancelled' && <Notice kind="info">Checkout was cancelled; nothing was charged.</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {!session.billing && <Notice kind="warning">Online payment is not configured on this server; plans are set by the operator.</Notice>}
      <section class="panel" aria-labelledby="current-title">
        <h2 id="current-title">Current plan</h2>
        <p class="big-number" data-testid="current-plan">
          {profile.plan.name}
        </p>
        {sub ? (
          <p>
            Subscription: {session.plans.find((p) => p.id === sub.plan)?.name ?? sub.plan}, billed{' '}
            {sub.interval === 'annual' ? 'yearly' : 'monthly'}, status <strong>{sub.status}</strong>
            {sub.current_period_end && `, renews ${date(sub.current_period_end)}`}.
          </p>
        ) : (
          <p>No paid subscription.</p>
        )}
        {profile.billing.customer && (
          <button type="button" class="secondary" onClick={portal} disabled={busy !== undefined || !session.billing}>
            Manage billing, invoices and cancellation
          </button>
        )}
      </section>
      <section aria-labelledby="compare-title">
        <h2 id="compare-title">Compare plans</h2>
        <div class="segmented" role="group" aria-label="Billing interval">
          <button type="button" aria-pressed={interval === 'monthly'} onClick={() => setInterval_('monthly')}>
            Monthly
          </button>
          <button type="button" aria-pressed={interval === 'annual'} onClick={() => setInterval_('annual')}>
            Annual (2 months free)
          </button>
        </div>
        <div class="table-wrap">
          <table class="plans" data-testid="plans-table">
            <thead>
              <tr>
                <th scope="col">
                  <span class="visually-hidden">Feature</span>
                </th>
                {session.plans.map((p) => (
                  <th scope="col" key={p.id} class={[p.id === profile.plan.id ? 'current' : '', p.id === wanted ? 'wanted' : ''].join(' ')}>
                    {p.name}
                    {p.id === profile.plan.id && <span class="tag">Your plan</span>}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Price</th>
                {session.plans.map((p) => (
                  <td key={p.id}>{interval === 'annual' ? price(p.price.annual, 'year') : price(p.price.monthly, 'month')}</td>
                ))}
              </tr>
              {ROWS.map((r) => (
                <tr key={r.label}>
                  <th scope="row">{r.label}</th>
                  {session.plans.map((p) => (
                    <td key={p.id}>{r.cell(p)}</td>
                  ))}
                </tr>
              ))}
              <tr>
                <th scope="row">
                  <span class="visually-hidden">Choose</span>
                </th>
                {session.plans.map((p) => (
                  <td key={p.id}>
                    {p.purchasable && current && p.rank > current.rank && !live && (
                      <button
                        type="button"
                        class="primary small"
                        disabled={busy !== undefined || !session.billing}
                        onClick={() => upgrade(p.id)}
                      >
                        Upgrade to {p.name}
                      </button>
                    )}
                    {p.purchasable && live && p.id !== profile.plan.id && <span class="hint">Change in billing portal</span>}
                    {!p.purchasable && p.price.monthly === null && <a href="mailto:sales@census-data-service.dev">Contact sales</a>}
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
