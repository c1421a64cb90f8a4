// DELETE /v1/account — soft delete: keys stop working now, rows are purged by the retention job
// 30 days later. Refused while a paid subscription is live, so nobody is billed for a deleted
// account: the user cancels in the billing portal first.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { RETENTION } from '../store/accounts/retention.js';
import { signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const deleteAccountInput = z.strictObject({ confirm: z.literal(true) });
const LIVE = new Set(['active', 'trialing', 'past_due', 'unpaid', 'incomplete']);

export const accountDelete = defineVerb({
  name: 'account-delete',
  input: deleteAccountInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx }): Promise<VerbResult<{ deleted_at: string; purge_after: string }>> => {
    const { store, account } = await signedInAccount(ctx);
    if ((await store.subscriptionsOf(account.id)).some((s) => LIVE.has(s.status))) {
      throw new AppError('conflict', 'Cancel the subscription in the billing portal before deleting the account.');
    }
    const now = ctx.now().getTime();
    await store.softDeleteAccount(account.id, now);
    ctx.log.info({ accountId: account.id }, 'account soft-deleted');
    return {
      data: {
        deleted_at: new Date(now).toISOString(),
        purge_after: new Date(now + RETENTION.deletedAccountDays * 86_400_000).toISOString(),
      },
    };
  },
});
