// Admin (CLI): revoke a key by id or by the full key (support hands over a leaked key).
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { hashApiKey } from '../domain/keys.js';
import { keyPayload, type KeyPayload } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';

export const adminRevokeInput = z.object({ key: z.string().min(1) });

export const adminRevokeKey = defineVerb({
  name: 'account-admin-revoke-key',
  input: adminRevokeInput,
  inputAt: 'argument',
  cost: 'free',
  run: async ({ ctx, input: { key } }): Promise<VerbResult<KeyPayload>> => {
    const store = storeOf(ctx.stores, 'accounts');
    const row = await store.findKeyOwner(key.startsWith('svc_live_') ? { hash: hashApiKey(key) } : { id: key });
    if (!row) throw new AppError('not-found', 'No such key.');
    const out = (await store.revokeKey(row.account_id, row.id, ctx.now().getTime()))!;
    ctx.log.info({ keyId: row.id, accountId: row.account_id }, 'api key revoked by admin');
    return { data: keyPayload(out.row) };
  },
});
