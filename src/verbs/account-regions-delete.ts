// DELETE /v1/account/regions/{name} — delete a saved region.
import { z } from 'zod';
import { notFound, parseInput, signedInAccount } from './account-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

export const regionNameInput = z.strictObject({ name: z.string().min(1).max(63) });

export async function accountDeleteRegion({ ctx, input }: { ctx: VerbContext; input: unknown }): Promise<VerbResult<{ deleted: string }>> {
  const { name } = parseInput(regionNameInput, input, 'path');
  const { store, account } = await signedInAccount(ctx);
  if (!(await store.deleteRegion(account.id, name))) throw notFound('Region');
  return { data: { deleted: name } };
}
