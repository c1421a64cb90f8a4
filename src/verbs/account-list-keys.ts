// GET /v1/account/keys — every key of the signed-in account, active and revoked, never the hash
// or the key itself.
import { planOf } from '../domain/plans.js';
import { keyPayload, signedInAccount, type KeyPayload } from './account-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

export async function accountListKeys({ ctx }: { ctx: VerbContext; input?: unknown }): Promise<VerbResult<KeyPayload[]>> {
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
}
