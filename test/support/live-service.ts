// The service on a real loopback port, as a browser meets it: the development identity provider
// (in process, e-mail sign-in), billing against the local Stripe stub whose checkout page sends
// signed webhooks back, and the front end freshly built by the project's own build script.
import type { Config } from '../../src/config.js';
import { publishTos } from '../../src/store/accounts/tos-repo.js';
import { AccountStore } from '../../src/store/accounts/index.js';
import { buildWeb } from '../../web/build.js';
import { freePort } from './browser.js';
import { startService, type Service } from './service.js';
import { startStripeStub, type StripeStub } from './stripe-stub.js';

export interface LiveService extends Service {
  base: string;
  stripe: StripeStub;
  publishTerms(version: string, effectiveAt?: number): void;
}

export const WEBHOOK_SECRET = 'whsec_dashboard_browser_tests';

export async function startLiveService(opts: { config?: Partial<Config> } = {}): Promise<LiveService> {
  await buildWeb();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const stripe = await startStripeStub({ checkout: { webhookUrl: () => `${base}/v1/billing/webhook`, webhookSecret: WEBHOOK_SECRET } });
  const svc = await startService({
    config: {
      PORT: port,
      BASE_URL: base,
      DEV_IDP: true,
      STRIPE_SECRET_KEY: 'sk_test_dashboard',
      STRIPE_API_URL: stripe.url,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      ...opts.config,
    },
  });
  await svc.app.listen({ port, host: '127.0.0.1' });
  const db = (svc.stores.accounts as AccountStore).db;
  return {
    ...svc,
    base,
    stripe,
    publishTerms: (version, effectiveAt = Date.now() - 86_400_000) =>
      void publishTos(db, { version, effectiveAt, url: `${base}/terms/${version}`, now: Date.now() }),
    close: async () => {
      await svc.close();
      await stripe.close();
    },
  };
}
