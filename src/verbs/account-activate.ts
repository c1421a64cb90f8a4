// POST /v1/account/activate — redeem a private-beta invite code (single use, expiring). An
// account that is already active keeps the code unspent. A code may carry a plan; it only ever
// raises the account's plan.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { planOf } from '../domain/plans.js';
import { iso, signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const activateInput = z.strictObject({ code: z.string().trim().min(4).max(64) });

export const accountActivate = defineVerb({
  name: 'account-activate',
  input: activateInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: { code } }): Promise<VerbResult<{ activated: true; activated_at: string; plan: string }>> => {
    const { store, account } = await signedInAccount(ctx);
    if (account.activated_at !== null) {
      return {
        data: { activated: true, activated_at: iso(account.activated_at)!, plan: account.plan },
        meta: { hint: 'Already activated; the code was not used.' },
      };
    }
    const now = ctx.now().getTime();
    const out = await store.activate(account.id, code, now);
    if (!out.ok) {
      if (out.reason === 'unknown') throw new AppError('not-found', 'Invite code not found.');
      throw new AppError('conflict', out.reason === 'used' ? 'This invite code has already been used.' : 'This invite code has expired.');
    }
    const plan = out.plan && planOf(out.plan).rank > planOf(account.plan).rank ? out.plan : account.plan;
    ctx.log.info({ accountId: account.id }, 'account activated');
    return { data: { activated: true, activated_at: new Date(now).toISOString(), plan } };
  },
});
