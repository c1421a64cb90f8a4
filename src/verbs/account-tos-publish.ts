// Admin (CLI): publish a terms-of-service version. It becomes current at `effective_at` (default
// now); accounts that have not accepted it get 30 days of grace from then.
import { z } from 'zod';
import { iso } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const publishTosInput = z.object({
  version: z.string().trim().min(1).max(64),
  effective_at: z.iso.datetime({ offset: true }).optional(),
  url: z.url().optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

export const tosPublish = defineVerb({
  name: 'account-tos-publish',
  input: publishTosInput,
  inputAt: 'option',
  cost: 'free',
  run: async ({ ctx, input: body }): Promise<VerbResult<{ version: string; effective_at: string; url: string | null }>> => {
    const now = ctx.now().getTime();
    const doc = await storeOf(ctx.stores, 'accounts').publishTos({
      version: body.version,
      effectiveAt: body.effective_at ? Date.parse(body.effective_at) : now,
      url: body.url ?? null,
      sha256: body.sha256 ?? null,
      now,
    });
    return { data: { version: doc.version, effective_at: iso(doc.effective_at)!, url: doc.url } };
  },
});
