// PATCH /v1/account — name and organization. E-mail belongs to the identity provider and plan to
// billing, so neither is writable here.
import { z } from 'zod';
import { parseInput, signedInAccount } from './account-common.js';
import { accountGetProfile } from './account-get-profile.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';

const text = z.string().trim().max(200).nullable().optional();
export const updateProfileInput = z.strictObject({ name: text, organization: text });

export async function accountUpdateProfile({
  ctx,
  input,
}: {
  ctx: VerbContext;
  input: unknown;
}): Promise<VerbResult<Record<string, unknown>>> {
  const body = parseInput(updateProfileInput, input);
  const { store, account } = await signedInAccount(ctx);
  await store.updateProfile(
    account.id,
    { name: body.name === '' ? null : body.name, organization: body.organization === '' ? null : body.organization },
    ctx.now().getTime(),
  );
  return accountGetProfile({ ctx });
}
