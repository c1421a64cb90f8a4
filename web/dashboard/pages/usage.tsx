// Usage: this month's units against the quota, a daily chart (with the same numbers as a table),
// units per key and per endpoint, and the plan's burst and concurrency limits.
import { api, type Key, type Usage } from '../api.js';
import { Notice, PageTitle, useLoad } from '../components.js';
import { date, num } from '../format.js';
import type { AppState } from '../app-state.js';

function daysOf(u: Usage): { date: string; units: number; requests: number }[] {
  const byDate = new Map(u.by_day.map((d) => [d.date, d]));
  const out = [];
  const end = Math.min(new Date(u.period_end).getTime(), Date.now());
  for (let t = new Date(u.period_start).getTime(); t < end; t += 86_400_000) {
    const iso = new Date(t).toISOString().slice(0, 10);
    const d = byDate.get(iso);
    out.push({ date: iso, units: d?.units ?? 0, requests: d?.requests ?? 0 });
  }
  return out;
}

function DailyChart({ days }: { days: { date: string; units: number }[] }) {
  const max = Math.max(1, ...days.map((d) => d.units));
  const w = 640;
  const h = 160;
  const bw = w / Math.max(days.length, 1);
  return (
    <svg class="chart" viewBox={`0 0 ${w} ${h + 20}`} role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="none">
      <title id="chart-title">Units used per day</title>
      <desc id="chart-desc">Bar chart; the same figures are in the table below it.</desc>
      <line x1="0" y1={h} x2={w} y2={h} class="axis" />
      {days.map((d, i) => {
        const bh = (d.units / max) * (h - 10);
        return (
          <g key={d.date}>
            <rect x={i * bw + 1} y={h - bh} width={Math.max(bw - 2, 1)} height={bh} class="bar">
              <title>
                {d.date}: {num(d.units)} units
              </title>
            </rect>
            {(i === 0 || (i + 1) % 7 === 0) && (
              <text x={i * bw + bw / 2} y={h + 15} text-anchor="middle" class="tick">
                {d.date.slice(8)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/** Requests and units per row (a key, an endpoint): one table shape for every breakdown. */
function CountsTable(props: {
  heading: string;
  rows: { id: string; label: string; requests: number; units: number }[];
  testId?: string;
  mono?: boolean;
}) {
  return (
    <div class="table-wrap">
      <table data-testid={props.testId}>
        <thead>
          <tr>
            <th scope="col">{props.heading}</th>
            <th scope="col" class="num">
              Requests
            </th>
            <th scope="col" class="num">
              Units
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.id}>
              <th scope="row" class={props.mono ? 'mono' : undefined}>
                {r.label}
              </th>
              <td class="num">{num(r.requests)}</td>
              <td class="num">{num(r.units)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function UsagePage({ profile }: AppState) {
  const usage = useLoad(() => api<Usage>('GET', '/v1/account/usage'));
  const keys = useLoad(() => api<Key[]>('GET', '/v1/account/keys'));
  const u = usage.data?.data;
  const names = new Map((keys.data?.data ?? []).map((k) => [k.id, `${k.name} (${k.prefix})`]));
  if (usage.error)
    return (
      <>
        <PageTitle>Usage</PageTitle>
        <Notice kind="error">{usage.error}</Notice>
      </>
    );
  if (!u)
    return (
      <>
        <PageTitle>Usage</PageTitle>
        <p aria-busy="true">Loading…</p>
      </>
    );
  const pct = Math.min(100, (u.units.used / u.units.quota) * 100);
  const days = daysOf(u);
  return (
    <>
      <PageTitle>Usage</PageTitle>
      <p class="lead">
        Billing period {date(u.period_start)} – {date(new Date(new Date(u.period_end).getTime() - 1).toISOString())} (calendar month, UTC).
      </p>
      <section class="panel" aria-labelledby="units-title">
        <h2 id="units-title">Units this month</h2>
        <p class="big-number" data-testid="units-used">
          {num(u.units.used)} <span>of {num(u.units.quota)} units</span>
        </p>
        <div
          class="meter"
          role="progressbar"
          aria-labelledby="units-title"
          aria-valuemin={0}
          aria-valuemax={u.units.quota}
          aria-valuenow={u.units.used}
          aria-valuetext={`${num(u.units.used)} of ${num(u.units.quota)} units`}
        >
          <div style={{ width: `${pct}%` }} class={pct >= 90 ? 'high' : ''} />
        </div>
        <p>
          {num(u.units.remaining)} units left · <span data-testid="requests">{num(u.requests)}</span> requests this month.{' '}
          {pct >= 80 && profile.plan.id !== 'enterprise' && <a href="/dashboard/billing">Upgrade for a larger quota</a>}
        </p>
      </section>
      <section class="panel" aria-labelledby="limits-title">
        <h2 id="limits-title">Rate limits of the {profile.plan.name} plan</h2>
        <dl class="facts">
          <div>
            <dt>Burst</dt>
            <dd>
              {num(u.burst.per_minute)} requests per minute ({num(u.burst.used_this_minute)} used this minute)
            </dd>
          </div>
          <div>
            <dt>Concurrency</dt>
            <dd>
              {num(u.concurrency.max)} requests at once ({num(u.concurrency.in_flight)} in flight now)
            </dd>
          </div>
        </dl>
      </section>
      <section class="panel" aria-labelledby="daily-title">
        <h2 id="daily-title">Daily units</h2>
        <DailyChart days={days} />
        <details>
          <summary>Show daily figures as a table</summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col" class="num">
                    Units
                  </th>
                  <th scope="col" class="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {days.map((d) => (
                  <tr key={d.date}>
                    <th scope="row">{d.date}</th>
                    <td class="num">{num(d.units)}</td>
                    <td class="num">{num(d.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </section>
      <section class="panel" aria-labelledby="bykey-title">
        <h2 id="bykey-title">By key</h2>
        {u.by_key.length === 0 ? (
          <p>No API requests this month yet.</p>
        ) : (
          <CountsTable
            testId="by-key"
            heading="Key"
            rows={u.by_key.map((k) => ({
              id: k.key_id ?? 'none',
              label: k.key_id === 'explorer' ? 'Explorer (signed in)' : k.key_id ? (names.get(k.key_id) ?? k.key_id) : '(no key)',
              requests: k.requests,
              units: k.units,
            }))}
          />
        )}
      </section>
      {u.by_route.length > 0 && (
        <section class="panel" aria-labelledby="byroute-title">
          <h2 id="byroute-title">By endpoint</h2>
          <CountsTable
            heading="Endpoint"
            mono
            rows={u.by_route.map((r) => ({ id: r.route ?? 'none', label: r.route ?? '', requests: r.requests, units: r.units }))}
          />
        </section>
      )}
    </>
  );
}
