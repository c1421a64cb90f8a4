// Rate-limit response headers per draft-ietf-httpapi-ratelimit-headers (-10): two Structured
// Field lists. `RateLimit-Policy` names each quota policy with q (quota), w (window seconds) and qu
// (quota unit); `RateLimit` gives r (remaining) and t (seconds until reset) per policy.
//   RateLimit-Policy: "monthly";q=1000;w=2592000, "burst";q=60;w=60, "concurrency";q=2;qu="concurrent-requests"
//   RateLimit: "monthly";r=993;t=1209600, "burst";r=59;t=42, "concurrency";r=1
// The monthly quota counts cost units, not requests; qu is left out for it because the draft's
// unit registry has no value for an abstract cost unit (docs/plans.md).

export interface LimitState {
  monthly: { quota: number; used: number; windowSeconds: number; resetSeconds: number };
  burst: { quota: number; used: number; resetSeconds: number };
  concurrency: { quota: number; inFlight: number };
}

export function rateLimitHeaders(s: LimitState): Record<string, string> {
  const r = (q: number, used: number) => Math.max(0, q - used);
  return {
    'RateLimit-Policy': [
      `"monthly";q=${s.monthly.quota};w=${s.monthly.windowSeconds}`,
      `"burst";q=${s.burst.quota};w=60`,
      `"concurrency";q=${s.concurrency.quota};qu="concurrent-requests"`,
    ].join(', '),
    RateLimit: [
      `"monthly";r=${r(s.monthly.quota, s.monthly.used)};t=${s.monthly.resetSeconds}`,
      `"burst";r=${r(s.burst.quota, s.burst.used)};t=${s.burst.resetSeconds}`,
      `"concurrency";r=${r(s.concurrency.quota, s.concurrency.inFlight)}`,
    ].join(', '),
  };
}
