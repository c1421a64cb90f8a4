// The Stripe SDK configured from config. STRIPE_API_URL points it at a local stub in tests (the
// SDK's host/port/protocol options); production leaves it unset.
import type Stripe from 'stripe';
import { stripeSdk } from './stripe-sdk.js';
import type { Config } from '../../config.js';

export function createStripe(config: Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL'>): Stripe | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const opts: Stripe.StripeConfig = { maxNetworkRetries: 1, timeout: 15_000 };
  if (config.STRIPE_API_URL) {
    const u = new URL(config.STRIPE_API_URL);
    opts.host = u.hostname;
    opts.port = u.port || (u.protocol === 'https:' ? '443' : '80');
    opts.protocol = u.protocol.replace(':', '') as 'http' | 'https';
  }
  const Sdk = stripeSdk();
  return new Sdk(config.STRIPE_SECRET_KEY, opts);
}
