// The explorer reads the public API with a key pasted into the page (kept in this page's memory
// only, never stored) or, when signed in to the dashboard, with the session (metered like a key;
// the CSRF token goes along on every call).
export interface Problem {
  status: number;
  title?: string;
  detail?: string;
  upgrade_url?: string;
  required_plan?: string;
  [k: string]: unknown;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
  }
}

import { followPolicy, queue } from '../shared/concurrency.js';

let apiKey = '';
let csrf = '';

export function useKey(k: string): void {
  apiKey = k.trim();
}
export function hasCredentials(): boolean {
  return apiKey !== '' || csrf !== '';
}

/** A plan as the server's plan table describes it (`/dashboard/session` lists them, cheapest first). */
export interface PlanInfo {
  id: string;
  name: string;
  rank: number;
  features?: Record<string, unknown>;
}
let plans: PlanInfo[] = [];

export async function loadSession(): Promise<{ signed_in: boolean; email?: string | null; plan?: string | null }> {
  const res = await fetch('/dashboard/session', { credentials: 'same-origin' });
  if (!res.ok) return { signed_in: false };
  const s = (await res.json()) as { signed_in: boolean; csrf_token?: string; email?: string | null; plans?: PlanInfo[] };
  if (s.csrf_token) csrf = s.csrf_token;
  if (Array.isArray(s.plans)) plans = s.plans;
  return s;
}

/** "Pro": the cheapest plan with a feature (`csvExport`), from the server's table; null before the session answered. */
export function cheapestPlanWith(feature: string): PlanInfo | null {
  return [...plans].sort((a, b) => a.rank - b.rank).find((p) => p.features?.[feature] === true) ?? null;
}

/** A plan's rank and name from the server's table (read with the session); unknown ids rank lowest and keep their id. */
export function planInfo(id: string): PlanInfo {
  return plans.find((p) => p.id === id) ?? { id, name: id, rank: -1 };
}

function headers(): Record<string, string> {
  return apiKey ? { 'X-API-Key': apiKey } : { 'X-CSRF-Token': csrf };
}

/**
 * A page makes several requests at once (map, series, comparison, names), and a plan admits only so
 * many at a time (Free: 2). Every request waits its turn in one queue sized from the plan's
 * concurrency limit (shared/concurrency.ts), so the page stays under it. A request still refused
 * for that alone (429, limit_type concurrency: another tab or script of the same account was
 * busy) is sent again after a growing wait, a few times; other 429s (burst, monthly) are shown.
 */
const CONCURRENCY_RETRIES = 6;

async function send(path: string): Promise<Response> {
  const res = await fetch(path, { headers: headers(), credentials: apiKey ? 'omit' : 'same-origin' });
  followPolicy(res.headers.get('RateLimit-Policy'));
  return res;
}

async function call(path: string, attempt = 0): Promise<Response> {
  // The body is read inside the queue's turn: the server holds the slot until it has sent it.
  const res = await queue(async () => {
    const r = await send(path);
    return new Response(await r.blob(), { status: r.status, statusText: r.statusText, headers: r.headers });
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status === 429 && body.limit_type === 'concurrency' && attempt < CONCURRENCY_RETRIES) {
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      return call(path, attempt + 1);
    }
    throw new ApiError({ status: res.status, ...body } as Problem);
  }
  return res;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await call(path)).json() as Promise<T>;
}

/** A JSON body sent to the account's API (the session's CSRF token or the key goes along). */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { ...headers(), 'Content-Type': 'application/json' },
    credentials: apiKey ? 'omit' : 'same-origin',
    body: JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new ApiError({ status: res.status, ...json } as Problem);
  return json as T;
}

export async function getBlob(path: string): Promise<Blob> {
  return (await call(path)).blob();
}

/** The request as a shell command; the key stays an environment variable, never printed. */
export function curlFor(path: string): string {
  return `curl -H "X-API-Key: $CENSUS_API_KEY" '${location.origin}${path}'`;
}

export interface Cell {
  geo_key: string;
  geo_name: string;
  variable: string;
  census_code: string | null;
  label: string;
  unit: string;
  vintage: number;
  /** Raw census codes: the table the code belongs to (its title names what the label's path is a part of). */
  table_id?: string | null;
  table_title?: string | null;
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: { code: string; meaning: string } | null;
  moe_annotation: { code: string; meaning: string } | null;
  /** With `dollars=YYYY`: how a value was restated (the CPI-U-RS factor and years), or why it was not. */
  dollars?:
    { adjusted: true; factor: number; source_year: number; target_year: number; index: string } | { adjusted: false; reason: string };
  comparison?: {
    reference_geo_key: string;
    difference: number | null;
    difference_moe: number | null;
    significant: boolean | null;
    not_tested_reason: string | null;
  } | null;
}

/** Coefficient of variation in percent (90% MOE → standard error), or null. */
export function cvOf(c: Cell): number | null {
  if (c.estimate === null || c.moe_numeric === null || c.estimate === 0) return null;
  return (c.moe_numeric / 1.645 / Math.abs(c.estimate)) * 100;
}

export function reliability(cv: number | null): string {
  if (cv === null) return 'unknown';
  return cv <= 12 ? 'high' : cv <= 30 ? 'medium' : 'low';
}

// Intl formatters are costly to create; the map formats thousands of labels at once.
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const points = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/**
 * A value as people write it: the sign before the currency, as a true minus (−$14,648, not
 * $-14,648); no sign on a value that rounds to zero.
 */
export const fmt = (n: number | null | undefined, unit = '') => {
  if (n === null || n === undefined) return '—';
  const digits = (unit === 'percent' ? oneDecimal : whole).format(Math.abs(n));
  const minus = n < 0 && /[1-9]/.test(digits) ? '−' : '';
  return `${minus}${unit === 'dollar' ? '$' : ''}${digits}${unit === 'percent' ? '%' : ''}`;
};

/** A difference (or its MOE): of percentages it is in percentage points ("2.1 pp"), not percent. */
export const fmtDiff = (n: number | null | undefined, unit = '') => {
  if (unit !== 'percent' || n === null || n === undefined) return fmt(n, unit);
  const digits = points.format(Math.abs(n));
  return `${n < 0 && /[1-9]/.test(digits) ? '−' : ''}${digits} pp`;
};

/** A margin of error: of a percentage it is in percentage points ("± 0.2 pp"), as a difference is. */
export const fmtMoe = (n: number | null | undefined, unit = '') => (n === null || n === undefined ? '—' : `± ${fmtDiff(n, unit)}`);

/**
 * A raw census label ("Estimate!!Total:!!Income below poverty level:!!Male:") as a readable path
 * ("Income below poverty level › Male"): the "Estimate" and "Total" segments and the trailing
 * colons go; an empty path is the table's total.
 */
export function cleanLabel(raw: string): string {
  const parts = raw
    .split('!!')
    .map((s) => s.replace(/:\s*$/, '').trim())
    .filter((s) => s !== '' && !/^(estimate|total|margin of error)$/i.test(s));
  return parts.length ? parts.join(' › ') : 'Total';
}

/** A census label straight from the API (a "!!" path or a bare "Total:"), not a catalog description. */
export function isRawLabel(label: string): boolean {
  return label.includes('!!') || /^(estimate|total)\b/i.test(label);
}

/**
 * The name a person reads for a variable: a catalog variable's own label; for a raw census code,
 * the table's title and the cleaned label path (the path alone when it repeats the title).
 */
export function humanLabel(c: Pick<Cell, 'label' | 'table_title'>): string {
  if (!isRawLabel(c.label)) return c.label;
  const path = cleanLabel(c.label);
  const title = c.table_title?.trim();
  if (!title) return path;
  // A one-line table's label repeats its title, sometimes with another year's dollars in it.
  const bare = (t: string) => t.toLowerCase().replace(/[^a-z]+/g, '');
  if (path === 'Total') return title;
  if (bare(title) === bare(path)) return path;
  return `${title}: ${path}`;
}
