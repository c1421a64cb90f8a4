// DELETE /v1/account/regions/{name} — delete a saved region.
import { z } from 'zod';
import { notFound, signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const regionNameInput = z.strictObject({ name: z.string().min(1).max(63) });

export const accountDeleteRegion = defineVerb({
  name: 'account-regions-delete',
  input: regionNameInput,
  inputAt: 'path',
  cost: 'free',
  run: async ({ ctx, input: { name } }): Promise<VerbResult<{ deleted: string }>> => {
    const { store, account } = await signedInAccount(ctx);
    if (!(await store.deleteRegion(account.id, name))) throw notFound('Region');
    return { data: { deleted: name } };
  },
});
