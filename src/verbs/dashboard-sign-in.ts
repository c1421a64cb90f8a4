// Dashboard sign-in, after the browser came back from the identity provider: the ID token is
// verified by the same operation that verifies Bearer tokens (authenticateDashboard: issuer,
// audience, signature, expiry; first sign-in creates the account), then a server-side session is
// opened. The transport puts the session id in an httpOnly cookie and never shows it to scripts.

import { authenticateDashboard } from './authenticate-dashboard.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

export interface SignedIn {
  sessionId: string;
  csrfToken: string;
  expiresAt: string;
  accountId: string;
  created: boolean;
}

export async function dashboardSignIn({ ctx, input }: { ctx: VerbContext; input: { idToken: string } }): Promise<VerbResult<SignedIn>> {
  const who = (await authenticateDashboard({ ctx, input: { token: input.idToken } })).data;
  const store = storeOf(ctx.stores, 'accounts');
  const { id, row } = await store.createSession(who.accountId, ctx.now().getTime(), ctx.config.DASHBOARD_SESSION_HOURS * 3_600_000);
  ctx.log.info({ accountId: who.accountId }, 'dashboard sign-in');
  return {
    data: {
      sessionId: id,
      csrfToken: row.csrf_token,
      expiresAt: new Date(row.expires_at).toISOString(),
      accountId: who.accountId,
      created: who.created,
    },
  };
}
