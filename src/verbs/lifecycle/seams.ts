// The production wiring of the auth seams to the accounts verbs. Tests may pass their own seams
// to buildApp; everything else gets these.
import { admitRequest, currentRateLimitHeaders, releaseAdmission } from '../verbs/admit-request.js';
import { authenticate } from '../verbs/authenticate.js';
import { authenticateDashboard } from '../verbs/authenticate-dashboard.js';
import { authenticateSession } from '../verbs/authenticate-session.js';
import type { Seams } from './plugins/context.js';

export function defaultSeams(): Seams {
  return {
    authenticateKey: async (apiKey, ctx) => (await authenticate({ ctx, input: { apiKey } })).data,
    authenticateToken: async (token, ctx) => {
      const { accountId, keyId, plan } = (await authenticateDashboard({ ctx, input: { token } })).data;
      return { accountId, keyId, plan };
    },
    authenticateSession: async (input, ctx) => {
      const { accountId, keyId, plan } = (await authenticateSession({ ctx, input })).data;
      return { accountId, keyId, plan };
    },
    admit: async ({ ctx, cost, ip, instance, route }) => {
      const { headers, release, refund } = (await admitRequest({ ctx, input: { cost, instance, route, ip } })).data;
      return { headers, release, refund };
    },
    rateLimitHeaders: (ctx) => currentRateLimitHeaders(ctx),
    release: (ctx) => releaseAdmission(ctx),
  };
}
