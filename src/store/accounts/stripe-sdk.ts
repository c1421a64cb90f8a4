// The Stripe SDK, loaded on first use: about 220 modules (some 110 ms of CPU at start) that a
// server without billing never needs (start-up target 3 s, docs/performance.md).
import { createRequire } from 'node:module';
import type Stripe from 'stripe';

let sdk: typeof Stripe | undefined;

/** The SDK's constructor (its CommonJS build, loaded synchronously the first time). */
export function stripeSdk(): typeof Stripe {
  return (sdk ??= createRequire(import.meta.url)('stripe') as typeof Stripe);
}
