// Quota windows. Billing periods are calendar months in UTC for every plan (a subscriber's Stripe
// cycle may start mid-month; aligning quotas to the calendar keeps them explainable and lets one
// counter row serve every account). Bursts use fixed one-minute windows.

export function periodOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

export function periodBounds(at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

export const MINUTE_MS = 60_000;

export function minuteStart(at: Date): number {
  return Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS;
}

/** Whole seconds until `until`, never less than 1 (a Retry-After of 0 invites a hot loop). */
export function secondsUntil(now: Date, until: number): number {
  return Math.max(1, Math.ceil((until - now.getTime()) / 1000));
}
