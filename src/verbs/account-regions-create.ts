// POST /v1/account/regions — save a region under a name; its members are resolved now (names and
// wildcards become keys) and must be of one level.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { signedInAccount } from './account-common.js';
import {
  MAX_SAVED_REGIONS,
  regionMembers,
  regionName,
  regionPayload,
  resolveMembers,
  type RegionPayload,
} from './account-regions-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const createRegionInput = z.strictObject({ name: regionName, members: regionMembers });

export const accountCreateRegion = defineVerb({
  name: 'account-regions-create',
  input: createRegionInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: { name, members } }): Promise<VerbResult<RegionPayload>> => {
    const { store, account } = await signedInAccount(ctx);
    const keys = await resolveMembers(ctx, account, members);
    const r = await store.createRegion(account.id, { name, members: keys, now: ctx.now().getTime() }, MAX_SAVED_REGIONS);
    if (r.kind === 'exists') throw new AppError('conflict', `You already have a region named "${name}"; rename or delete it first.`);
    if (r.kind === 'limit') throw new AppError('conflict', `An account keeps at most ${r.limit} saved regions; delete one first.`);
    return { data: regionPayload(r.row) };
  },
});
