// How many requests a page may have in flight: the plan's concurrency limit, read from the
// `RateLimit-Policy` header every metered answer carries (draft-ietf-httpapi-ratelimit-headers:
// `"concurrency";q=2;qu="concurrent-requests"`). Until the first answer says, the lowest plan's
// limit (Free admits 2), so a page never starts above what any account is allowed.
import pLimit from 'p-limit';

export const FREE_CONCURRENCY = 2;

/** The `q` of the "concurrency" policy in a RateLimit-Policy field, or null when it has none. */
export function concurrencyOf(policy: string | null): number | null {
  if (!policy) return null;
  const m = /"concurrency"((?:;[^,]*)*)/.exec(policy);
  const q = m ? /;\s*q=(\d+)/.exec(m[1]!) : null;
  const n = q ? Number(q[1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * The page's request queue: requests wait in the order they are asked for (the headline figures
 * first) and at most `concurrency` are in flight; each answer's policy resizes it.
 */
export const queue = pLimit(FREE_CONCURRENCY);

export function followPolicy(policy: string | null): void {
  const n = concurrencyOf(policy);
  if (n !== null && n !== queue.concurrency) queue.concurrency = n;
}
