// Dashboard sign-in, after the browser came back from the identity provider: the ID token is
// verified by the same operation that verifies Bearer tokens (authenticateDashboard: issuer,
// audience, signature, expiry; first sign-in creates the account), then a server-side session is
// opened. The transport puts the session id in an httpOnly cookie and never shows it to scripts.

import { z } from 'zod';
import { authenticateDashboard } from './authenticate-dashboard.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const signInInput = z.object({ idToken: z.string() });

export interface SignedIn {
  sessionId: string;
  csrfToken: string;
  expiresAt: string;
  accountId: string;
  created: boolean;
}

export const dashboardSignIn = defineVerb({
  name: 'dashboard-sign-in',
  input: signInInput,
  cost: 'free',
  run: async ({ ctx, input }): Promise<VerbResult<SignedIn>> => {
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
  },
});
