// PATCH /v1/account/regions/{name} — rename a saved region (requests must then use the new name).
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { notFound, signedInAccount } from './account-common.js';
import { regionName, regionPayload, type RegionPayload } from './account-regions-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const renameRegionInput = z.strictObject({ name: regionName, new_name: regionName });

export const accountRenameRegion = defineVerb({
  name: 'account-regions-rename',
  input: renameRegionInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: { name, new_name } }): Promise<VerbResult<RegionPayload>> => {
    const { store, account } = await signedInAccount(ctx);
    const r = await store.renameRegion(account.id, name, new_name, ctx.now().getTime());
    if (r.kind === 'not-found') throw notFound('Region');
    if (r.kind === 'exists') throw new AppError('conflict', `You already have a region named "${new_name}".`);
    return { data: regionPayload(r.row) };
  },
});
