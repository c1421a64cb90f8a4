// PATCH /v1/account/keys/{id} — rename. A revoked key is frozen (the spec: any action on a
// revoked key leaves it revoked), so renaming it is a conflict.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { keyPayload, notFound, signedInAccount, type KeyPayload } from './account-common.js';
import { keyName } from './account-create-key.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const renameKeyInput = z.strictObject({ id: z.string().min(1).max(64), name: keyName });

export const accountRenameKey = defineVerb({
  name: 'account-rename-key',
  input: renameKeyInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: { id, name } }): Promise<VerbResult<KeyPayload>> => {
    const { store, account } = await signedInAccount(ctx);
    const key = await store.getKey(account.id, id);
    if (!key) throw notFound('API key');
    if (key.revoked_at !== null) throw new AppError('conflict', 'A revoked key cannot be changed.');
    return { data: keyPayload((await store.renameKey(account.id, id, name))!) };
  },
});
