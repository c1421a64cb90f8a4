// Calls to this server from the dashboard page. The session is an httpOnly cookie the script never
// sees; state-changing calls add the session's CSRF token, which /dashboard/session hands out.
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  errors?: { loc?: string[]; msg?: string }[] | null;
  [k: string]: unknown;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
  }
  get status(): number {
    return this.problem.status;
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => {};

export function setCsrfToken(t: string): void {
  csrfToken = t;
}
export function whenSignedOut(f: () => void): void {
  onSignedOut = f;
}

export async function api<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ data: T; meta?: Record<string, unknown> }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) {
    const problem = { status: res.status, ...(json ?? {}) } as Problem;
    if (res.status === 401) onSignedOut();
    throw new ApiError(problem);
  }
  return json as { data: T; meta?: Record<string, unknown> };
}

/** One readable sentence for an error, with field messages when the server sent them. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    const fields = (e.problem.errors ?? []).map((f) => f.msg).filter(Boolean);
    return [e.message, ...fields].join(' ');
  }
  return e instanceof Error ? e.message : String(e);
}

export interface PlanInfo {
  id: string;
  name: string;
  rank: number;
  price: { monthly: number | null; annual: number | null };
  purchasable: boolean;
  limits: Record<string, number>;
  features: Record<string, unknown>;
}

export interface Session {
  signed_in: boolean;
  csrf_token?: string;
  email?: string | null;
  sign_in: 'external' | 'dev' | 'none';
  invite_required: boolean;
  billing: boolean;
  api_base_url: string;
  mcp_url: string;
  plans: PlanInfo[];
}

export interface Profile {
  id: string;
  email: string | null;
  name: string | null;
  organization: string | null;
  plan: { id: string; name: string; features: Record<string, unknown>; limits: Record<string, number> };
  activated: boolean;
  created_at: string;
  tos: {
    status: 'none' | 'accepted' | 'grace' | 'required';
    current_version: string | null;
    url: string | null;
    grace_ends_at: string | null;
  };
  billing: {
    customer: boolean;
    subscription: { id: string; plan: string; interval: string | null; status: string; current_period_end: string | null } | null;
  };
}

export interface Key {
  id: string;
  name: string;
  prefix: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  replaced_by: string | null;
}

export type CreatedKey = Key & { key: string };

export interface Usage {
  period: string;
  period_start: string;
  period_end: string;
  plan: string;
  units: { used: number; quota: number; remaining: number };
  requests: number;
  burst: { per_minute: number; used_this_minute: number; resets_at: string };
  concurrency: { max: number; in_flight: number };
  by_day: { date: string | null; units: number; requests: number }[];
  by_route: { route: string | null; units: number; requests: number }[];
  by_key: { key_id: string | null; units: number; requests: number }[];
}

export async function loadSession(): Promise<Session> {
  const res = await fetch('/dashboard/session', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`The dashboard could not start (HTTP ${res.status}).`);
  const s = (await res.json()) as Session;
  if (s.csrf_token) setCsrfToken(s.csrf_token);
  return s;
}

export async function signOut(): Promise<void> {
  await fetch('/dashboard/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrfToken }, credentials: 'same-origin' });
}
