// Dashboard sign-out: the server-side session row is deleted, so the cookie is dead even if a copy
// of it survives somewhere.
import { z } from 'zod';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const signOutInput = z.object({ sessionId: z.string() });

export const dashboardSignOut = defineVerb({
  name: 'dashboard-sign-out',
  input: signOutInput,
  cost: 'free',
  run: async ({ ctx, input }): Promise<VerbResult<{ signed_out: true }>> => {
    await storeOf(ctx.stores, 'accounts').deleteSession(input.sessionId);
    return { data: { signed_out: true } };
  },
});
