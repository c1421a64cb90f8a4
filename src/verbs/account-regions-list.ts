// GET /v1/account/regions — the signed-in account's saved regions.
import { signedInAccount } from './account-common.js';
import { MAX_SAVED_REGIONS, regionPayload, type RegionPayload } from './account-regions-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { z } from 'zod';
import { defineVerb } from './define-verb.js';

export const accountListRegions = defineVerb({
  name: 'account-regions-list',
  input: z.object({}),
  cost: 'free',
  run: async ({ ctx }): Promise<VerbResult<RegionPayload[]>> => {
    const { store, account } = await signedInAccount(ctx);
    const regions = (await store.listRegions(account.id)).map(regionPayload);
    return { data: regions, meta: { total_count: regions.length, region_limit: MAX_SAVED_REGIONS } };
  },
});
