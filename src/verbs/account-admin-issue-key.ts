// Admin (CLI): issue a key for an e-mail, creating the account if needed and setting its plan.
// The operator is trusted, so the per-plan key count does not apply here (the dashboard's
// create-key does enforce it).
import { z } from 'zod';
import { PLAN_IDS } from '../domain/plans.js';
import { keyPayload, type KeyPayload } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const issueKeyInput = z.object({
  email: z.email(),
  plan: z.enum(PLAN_IDS),
  name: z.string().trim().min(1).max(100).default('admin-issued'),
});

export const adminIssueKey = defineVerb({
  name: 'account-admin-issue-key',
  input: issueKeyInput,
  inputAt: 'option',
  cost: 'free',
  run: async ({
    ctx,
    input: { email, plan, name },
  }): Promise<VerbResult<KeyPayload & { key: string; account_id: string; account_created: boolean }>> => {
    const out = await storeOf(ctx.stores, 'accounts').issueKey({ email, plan, name, now: ctx.now().getTime() });
    ctx.log.info({ accountId: out.accountId, keyId: out.row.id, via: ctx.via }, 'api key issued by admin');
    return { data: { ...keyPayload(out.row), key: out.rawKey, account_id: out.accountId, account_created: out.created } };
  },
});
