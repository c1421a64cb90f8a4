// The page's request queue: the plan's concurrency limit read from the RateLimit-Policy header the
// service itself writes (src/domain/limits/headers.ts), and the queue resized to it.
import { describe, expect, it } from 'vitest';
import { rateLimitHeaders } from '../../../src/domain/limits/headers.js';
import { concurrencyOf, FREE_CONCURRENCY, followPolicy, queue } from '../../../web/shared/concurrency.js';

const policyFor = (quota: number) =>
  rateLimitHeaders({
    monthly: { quota: 1000, used: 0, windowSeconds: 2592000, resetSeconds: 100 },
    burst: { quota: 60, used: 0, resetSeconds: 60 },
    concurrency: { quota, inFlight: 1 },
  })['RateLimit-Policy']!;

describe('concurrencyOf', () => {
  it('reads the concurrency quota from the header the service sends, for each plan size', () => {
    for (const q of [2, 4, 10, 50]) expect(concurrencyOf(policyFor(q))).toBe(q);
  });

  it('does not take another policy’s q, and answers null without a concurrency policy', () => {
    expect(concurrencyOf('"monthly";q=1000;w=2592000, "burst";q=60;w=60')).toBeNull();
    expect(concurrencyOf(null)).toBeNull();
    expect(concurrencyOf('"concurrency";qu="concurrent-requests"')).toBeNull();
    expect(concurrencyOf('"concurrency";q=0')).toBeNull();
  });
});

describe('the queue', () => {
  it('starts at the Free plan’s limit, follows the policy, and never runs more than that at once', async () => {
    expect(queue.concurrency).toBe(FREE_CONCURRENCY);
    followPolicy(policyFor(3));
    expect(queue.concurrency).toBe(3);
    followPolicy(null); // an answer without the header (an error before admission) changes nothing
    expect(queue.concurrency).toBe(3);
    let running = 0;
    let most = 0;
    const job = () =>
      queue(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      });
    await Promise.all(Array.from({ length: 12 }, job));
    expect(most).toBe(3);
    followPolicy(policyFor(FREE_CONCURRENCY));
  });
});
