// POST /v1/account/keys/{id}/rotate — the old key is revoked and a new one (same name) becomes
// active in the same transaction. The new full key is shown once.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { keyPayload, notFound, signedInAccount, type KeyPayload } from './account-common.js';
import type { CreatedKey } from './account-create-key.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const keyIdInput = z.object({ id: z.string().min(1).max(64) });

export const accountRotateKey = defineVerb({
  name: 'account-rotate-key',
  input: keyIdInput,
  inputAt: 'path',
  cost: 'free',
  run: async ({ ctx, input: { id } }): Promise<VerbResult<{ key: CreatedKey; revoked: KeyPayload }>> => {
    const { store, account } = await signedInAccount(ctx);
    const out = await store.rotateKey(account.id, id, ctx.now().getTime());
    if (out.kind === 'not-found') throw notFound('API key');
    if (out.kind === 'revoked')
      throw new AppError('conflict', 'This key is revoked; revocation cannot be undone. Create a new key instead.');
    ctx.log.info({ accountId: account.id, oldKeyId: out.old.id, keyId: out.row.id }, 'api key rotated');
    return {
      data: { key: { ...keyPayload(out.row), key: out.rawKey }, revoked: keyPayload(out.old) },
      meta: { hint: 'Store the new key now: it is shown only once. The old key stopped working.' },
    };
  },
});
