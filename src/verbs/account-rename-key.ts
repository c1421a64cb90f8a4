// PATCH /v1/account/keys/{id} — rename. A revoked key is frozen (the spec: any action on a
// revoked key leaves it revoked), so renaming it is a conflict.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { keyPayload, notFound, parseInput, signedInAccount, type KeyPayload } from './account-common.js';
import { keyName } from './account-create-key.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

export const renameKeyInput = z.strictObject({ id: z.string().min(1).max(64), name: keyName });

export async function accountRenameKey({ ctx, input }: { ctx: VerbContext; input: unknown }): Promise<VerbResult<KeyPayload>> {
  const { id, name } = parseInput(renameKeyInput, input);
  const { store, account } = await signedInAccount(ctx);
  const key = await store.getKey(account.id, id);
  if (!key) throw notFound('API key');
  if (key.revoked_at !== null) throw new AppError('conflict', 'A revoked key cannot be changed.');
  return { data: keyPayload((await store.renameKey(account.id, id, name))!) };
}
