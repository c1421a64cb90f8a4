// PATCH /v1/account/regions/{name} — rename a saved region (requests must then use the new name).
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { notFound, parseInput, signedInAccount } from './account-common.js';
import { regionName, regionPayload, type RegionPayload } from './account-regions-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

export const renameRegionInput = z.strictObject({ name: regionName, new_name: regionName });

export async function accountRenameRegion({ ctx, input }: { ctx: VerbContext; input: unknown }): Promise<VerbResult<RegionPayload>> {
  const { name, new_name } = parseInput(renameRegionInput, input);
  const { store, account } = await signedInAccount(ctx);
  const r = await store.renameRegion(account.id, name, new_name, ctx.now().getTime());
  if (r.kind === 'not-found') throw notFound('Region');
  if (r.kind === 'exists') throw new AppError('conflict', `You already have a region named "${new_name}".`);
  return { data: regionPayload(r.row) };
}
