// Admin (CLI): revoke a key by id or by the full key (support hands over a leaked key).
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { hashApiKey } from '../domain/keys.js';
import { stmt } from '../store/accounts/db.js';
import { revokeKey } from '../store/accounts/keys-repo.js';
import { keyPayload, parseInput, type KeyPayload } from './account-common.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

export const adminRevokeInput = z.object({ key: z.string().min(1) });

export async function adminRevokeKey({ ctx, input }: { ctx: VerbContext; input: unknown }): Promise<VerbResult<KeyPayload>> {
  const { key } = parseInput(adminRevokeInput, input, 'argument');
  const db = storeOf(ctx.stores, 'accounts').db;
  const row = (
    key.startsWith('svc_live_')
      ? stmt(db, 'SELECT id, account_id FROM api_keys WHERE key_hash = ?').get(hashApiKey(key))
      : stmt(db, 'SELECT id, account_id FROM api_keys WHERE id = ?').get(key)
  ) as { id: string; account_id: string } | undefined;
  if (!row) throw new AppError('not-found', 'No such key.');
  const out = revokeKey(db, row.account_id, row.id, ctx.now().getTime())!;
  ctx.log.info({ keyId: row.id, accountId: row.account_id }, 'api key revoked by admin');
  return { data: keyPayload(out.row) };
}
