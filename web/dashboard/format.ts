// Display helpers: dates in the reader's locale, numbers with separators, prices from cents.
export const num = (n: number) => n.toLocaleString('en-US');

export function date(iso: string | null | undefined, withTime = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return withTime
    ? d.toLocaleString('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

export function price(cents: number | null, per: string): string {
  if (cents === null) return 'Custom';
  if (cents === 0) return '$0';
  return `$${num(Math.round(cents / 100))} / ${per}`;
}

export function daysUntil(iso: string): number {
  return Math.max(0, Math.ceil((new Date(iso).getTime() - Date.now()) / 86_400_000));
}
