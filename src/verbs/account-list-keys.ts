// GET /v1/account/keys — every key of the signed-in account, active and revoked, never the hash
// or the key itself.
import { planOf } from '../domain/plans.js';
import { keyPayload, signedInAccount, type KeyPayload } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { z } from 'zod';
import { defineVerb } from './define-verb.js';

export const accountListKeys = defineVerb({
  name: 'account-list-keys',
  input: z.object({}),
  cost: 'free',
  run: async ({ ctx }): Promise<VerbResult<KeyPayload[]>> => {
    const { store, account } = await signedInAccount(ctx);
    const keys = (await store.listKeys(account.id)).map(keyPayload);
    return {
      data: keys,
      meta: {
        total_count: keys.length,
        active_count: await store.countActiveKeys(account.id),
        key_limit: planOf(account.plan).limits.apiKeys,
      },
    };
  },
});
