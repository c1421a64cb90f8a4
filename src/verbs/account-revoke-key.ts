// DELETE /v1/account/keys/{id} — revokes at once (the next request with the key gets 401).
// Revoking a revoked key is a no-op that answers the same; revocation is never undone.

import { keyPayload, notFound, parseInput, signedInAccount, type KeyPayload } from './account-common.js';
import { keyIdInput } from './account-rotate-key.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

export async function accountRevokeKey({ ctx, input }: { ctx: VerbContext; input: unknown }): Promise<VerbResult<KeyPayload>> {
  const { id } = parseInput(keyIdInput, input, 'path');
  const { store, account } = await signedInAccount(ctx);
  const out = await store.revokeKey(account.id, id, ctx.now().getTime());
  if (!out) throw notFound('API key');
  if (out.revoked) ctx.log.info({ accountId: account.id, keyId: id }, 'api key revoked');
  return { data: keyPayload(out.row) };
}
