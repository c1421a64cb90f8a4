// Admin (CLI): set an account's plan by e-mail or id (e.g. an Enterprise contract). A later
// Stripe subscription event for the account recomputes the plan from its subscriptions.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { PLAN_IDS } from '../domain/plans.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const setPlanInput = z.object({ account: z.string().min(1), plan: z.enum(PLAN_IDS) });

export const adminSetPlan = defineVerb({
  name: 'account-admin-set-plan',
  input: setPlanInput,
  inputAt: 'option',
  cost: 'free',
  run: async ({ ctx, input: { account: ref, plan } }): Promise<VerbResult<{ account_id: string; plan: string; previous_plan: string }>> => {
    const store = storeOf(ctx.stores, 'accounts');
    const account = ref.includes('@') ? await store.findAccountByEmail(ref) : await store.getAccount(ref);
    if (!account) throw new AppError('not-found', `No account ${ref}.`);
    await store.setPlan(account.id, plan, ctx.now().getTime());
    ctx.log.info({ accountId: account.id, plan, previous: account.plan }, 'plan set by admin');
    return { data: { account_id: account.id, plan, previous_plan: account.plan } };
  },
});
