// POST /v1/account/keys — a new active key; the full key is in this response and nowhere else.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { PLAN_IDS, PLANS, planOf, upgradeUrl } from '../domain/plans.js';
import { KeyLimitError } from '../store/accounts/keys-repo.js';
import { keyPayload, signedInAccount, type KeyPayload } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const keyName = z.string().trim().min(1, 'A key needs a name').max(100);
export const createKeyInput = z.strictObject({ name: keyName });

export type CreatedKey = KeyPayload & { key: string };

export const accountCreateKey = defineVerb({
  name: 'account-create-key',
  input: createKeyInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: { name } }): Promise<VerbResult<CreatedKey>> => {
    const { store, account } = await signedInAccount(ctx);
    if (ctx.config.INVITE_REQUIRED && account.activated_at === null) {
      throw new AppError('forbidden', 'The service is in private beta: activate an invite code before creating keys.', {
        extensions: { activate_url: `${ctx.config.DASHBOARD_URL.replace(/\/$/, '')}/activate` },
      });
    }
    const plan = planOf(account.plan);
    try {
      const { row, rawKey } = await store.createKey(account.id, name, plan.limits.apiKeys, ctx.now().getTime());
      ctx.log.info({ accountId: account.id, keyId: row.id }, 'api key created');
      return { data: { ...keyPayload(row), key: rawKey }, meta: { hint: 'Store this key now: it is shown only once.' } };
    } catch (e) {
      if (!(e instanceof KeyLimitError)) throw e;
      const bigger = PLAN_IDS.map((id) => PLANS[id]).find((p) => p.limits.apiKeys > plan.limits.apiKeys);
      if (!bigger) throw new AppError('conflict', `The ${plan.name} plan allows ${e.limit} active keys; revoke one first.`);
      throw new AppError('feature-requires-upgrade', `The ${plan.name} plan allows ${e.limit} active keys; revoke one or upgrade.`, {
        extensions: {
          plan: plan.id,
          required_plan: bigger.id,
          upgrade_url: upgradeUrl(ctx.config.DASHBOARD_URL, bigger.id),
          key_limit: e.limit,
        },
      });
    }
  },
});
