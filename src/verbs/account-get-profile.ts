// GET /v1/account — the signed-in account: profile, plan (features and limits), terms status,
// billing summary.

import { iso, planPayload, signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { z } from 'zod';
import { defineVerb } from './define-verb.js';

export const accountGetProfile = defineVerb({
  name: 'account-get-profile',
  input: z.object({}),
  cost: 'free',
  run: async ({ ctx }): Promise<VerbResult<Record<string, unknown>>> => {
    const { store, account } = await signedInAccount(ctx);
    const now = ctx.now().getTime();
    const tos = await store.tosState(ctx.config, account, now);
    const sub = (await store.subscriptionsOf(account.id))[0];
    return {
      data: {
        id: account.id,
        email: account.email,
        name: account.name,
        organization: account.organization,
        plan: planPayload(account.plan),
        activated: account.activated_at !== null,
        activated_at: iso(account.activated_at),
        created_at: iso(account.created_at),
        tos: {
          status: tos.status,
          current_version: tos.status === 'none' ? null : tos.document.version,
          url: tos.status === 'none' ? null : tos.document.url,
          grace_ends_at: tos.status === 'grace' ? iso(tos.graceEndsAt) : null,
        },
        billing: {
          customer: account.stripe_customer_id !== null,
          subscription: sub
            ? { id: sub.id, plan: sub.plan, interval: sub.interval, status: sub.status, current_period_end: iso(sub.current_period_end) }
            : null,
        },
      },
    };
  },
});
