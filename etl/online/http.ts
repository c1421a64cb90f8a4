// HTTP with bounded retries. census.gov answers bursts with 429/503 and occasionally drops
// connections mid-body, so every failure that can be transient is retried with exponential
// backoff and full jitter; Retry-After, when the server sends one, overrides the backoff.
import type { StepLogger } from '../step.js';

export interface RetryOptions {
  /** Retries after the first try (so `retries + 1` tries in all). */
  retries: number;
  /** First backoff step; try n waits up to `baseDelayMs * 2^n` (full jitter). */
  baseDelayMs: number;
  /** Cap on any single wait, Retry-After included. */
  maxDelayMs: number;
  fetchImpl: typeof fetch;
  log: StepLogger;
  /** Strings never to appear in messages (the API key). */
  secrets: string[];
  /** Checked between tries so an aborted run stops waiting. */
  signal?: AbortSignal;
}

export type Attempt<T> =
  | { ok: true; value: T }
  /** `retry: false` = a definite answer (e.g. 400 unknown variable): fail without more tries. */
  | { ok: false; retry: boolean; reason: string; retryAfterMs?: number };

/** Thrown after the last try; the message names the URL (redacted) and the last reason. */
export class FetchError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
    readonly tries: number,
    /** HTTP status of the last answer, when there was one. */
    readonly status?: number,
  ) {
    super(`${url}: ${reason}${tries > 1 ? ` (after ${tries} tries)` : ''}`);
    this.name = 'FetchError';
  }
}

export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('***');
  // Also an encoded key, and any key= parameter however it got there.
  return out.replace(/([?&]key=)[^&\s"']*/gi, '$1***');
}

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unparseable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function backoffMs(tryIndex: number, base: number, max: number, random = Math.random): number {
  return Math.min(max, Math.floor(random() * base * 2 ** tryIndex));
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** What one HTTP exchange produced: the full body or why there is none. */
export interface Response200 {
  status: number;
  body: Buffer;
  contentType: string;
  headers: Headers;
}

/**
 * GET `url` and hand each complete answer to `accept`, which decides: value, retry or give up.
 * Network errors (refused, reset, body cut off) and 429/5xx are retried here; `accept` sees
 * every other status.
 */
export async function getWithRetry<T>(url: string, accept: (res: Response200) => Attempt<T>, opts: RetryOptions): Promise<T> {
  const shown = redact(url, opts.secrets);
  let last: { reason: string; status?: number } = { reason: 'not tried' };
  for (let tryIndex = 0; tryIndex <= opts.retries; tryIndex++) {
    if (opts.signal?.aborted) throw new FetchError(shown, 'run aborted', tryIndex);
    let attempt: Attempt<T> = { ok: false, retry: true, reason: 'no answer' };
    let status: number | undefined;
    let res: Response200 | undefined;
    try {
      const r = await opts.fetchImpl(url, { signal: opts.signal, redirect: 'follow' });
      status = r.status;
      // Reading the whole body inside the try: a connection cut mid-body throws here.
      const body = Buffer.from(await r.arrayBuffer());
      res = { status: r.status, body, contentType: r.headers.get('content-type') ?? '', headers: r.headers };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const detail = e.cause?.code ?? e.cause?.message;
      attempt = { ok: false, retry: true, reason: `network error: ${e.message}${detail ? ` (${detail})` : ''}` };
    }
    if (res) {
      // Outside the try: an exception from `accept` is a verdict, not a network error.
      attempt =
        res.status === 429 || res.status >= 500
          ? {
              ok: false,
              retry: true,
              reason: `HTTP ${res.status}${snippet(res.body)}`,
              retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
            }
          : accept(res);
    }
    if (attempt.ok) return attempt.value;
    last = { reason: redact(attempt.reason, opts.secrets), status };
    if (!attempt.retry || tryIndex === opts.retries) throw new FetchError(shown, last.reason, tryIndex + 1, status);
    const wait = Math.min(opts.maxDelayMs, attempt.retryAfterMs ?? backoffMs(tryIndex, opts.baseDelayMs, opts.maxDelayMs));
    opts.log.warn(`${shown}: ${last.reason}; retry ${tryIndex + 1}/${opts.retries} in ${wait} ms`);
    await sleep(wait, opts.signal);
  }
  throw new FetchError(shown, last.reason, opts.retries + 1, last.status);
}

/** The start of an error body, for messages (the API explains 400s in plain text). */
export function snippet(body: Buffer): string {
  const text = body.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ').trim();
  return text ? `: ${text.slice(0, 200)}` : '';
}
