// GET /v1/account/keys — every key of the signed-in account, active and revoked, never the hash
// or the key itself.
import { planOf } from '../domain/plans.js';
import { countActiveKeys, listKeys } from '../store/accounts/keys-repo.js';
import { keyPayload, signedInAccount, type KeyPayload } from './account-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

export async function accountListKeys({ ctx }: { ctx: VerbContext; input?: unknown }): Promise<VerbResult<KeyPayload[]>> {
  const { store, account } = signedInAccount(ctx);
  const keys = listKeys(store.db, account.id).map(keyPayload);
  return {
    data: keys,
    meta: { total_count: keys.length, active_count: countActiveKeys(store.db, account.id), key_limit: planOf(account.plan).limits.apiKeys },
  };
}
