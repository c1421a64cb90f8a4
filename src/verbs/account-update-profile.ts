// PATCH /v1/account — name and organization. E-mail belongs to the identity provider and plan to
// billing, so neither is writable here.
import { z } from 'zod';
import { signedInAccount } from './account-common.js';
import { accountGetProfile } from './account-get-profile.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

const text = z.string().trim().max(200).nullable().optional();
export const updateProfileInput = z.strictObject({ name: text, organization: text });

export const accountUpdateProfile = defineVerb({
  name: 'account-update-profile',
  input: updateProfileInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: body }): Promise<VerbResult<Record<string, unknown>>> => {
    const { store, account } = await signedInAccount(ctx);
    await store.updateProfile(
      account.id,
      { name: body.name === '' ? null : body.name, organization: body.organization === '' ? null : body.organization },
      ctx.now().getTime(),
    );
    return accountGetProfile({ ctx });
  },
});
