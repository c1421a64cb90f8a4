// Admin (CLI): mint a private-beta invite code (single use; shown once, stored hashed).
import { z } from 'zod';
import { PLAN_IDS } from '../domain/plans.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const inviteInput = z.object({
  plan: z.enum(PLAN_IDS).optional(),
  expires_days: z.coerce.number().int().min(1).max(365).default(14),
});

export const inviteCreate = defineVerb({
  name: 'account-invite-create',
  input: inviteInput,
  inputAt: 'option',
  cost: 'free',
  run: async ({ ctx, input: body }): Promise<VerbResult<{ code: string; expires_at: string; plan: string | null }>> => {
    const now = ctx.now().getTime();
    const expiresAt = now + body.expires_days * 86_400_000;
    const code = await storeOf(ctx.stores, 'accounts').createInvite({ plan: body.plan ?? null, expiresAt, now });
    return { data: { code, expires_at: new Date(expiresAt).toISOString(), plan: body.plan ?? null } };
  },
});
