// DELETE /v1/account/keys/{id} — revokes at once (the next request with the key gets 401).
// Revoking a revoked key is a no-op that answers the same; revocation is never undone.

import { keyPayload, notFound, signedInAccount, type KeyPayload } from './account-common.js';
import { keyIdInput } from './account-rotate-key.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const accountRevokeKey = defineVerb({
  name: 'account-revoke-key',
  input: keyIdInput,
  inputAt: 'path',
  cost: 'free',
  run: async ({ ctx, input: { id } }): Promise<VerbResult<KeyPayload>> => {
    const { store, account } = await signedInAccount(ctx);
    const out = await store.revokeKey(account.id, id, ctx.now().getTime());
    if (!out) throw notFound('API key');
    if (out.revoked) ctx.log.info({ accountId: account.id, keyId: id }, 'api key revoked');
    return { data: keyPayload(out.row) };
  },
});
