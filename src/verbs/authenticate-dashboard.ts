// Dashboard sign-in: verifies the identity provider's token (issuer, audience, expiry, signature
// via JWKS) and maps it to an account. First sign-in creates a Free account. An account made
// earlier by the admin CLI for the same e-mail is linked instead, but only when the provider says
// the e-mail is verified — otherwise anyone could claim an account by typing its address.
import { AppError } from '../domain/errors.js';
import { TokenRejected } from '../store/accounts/identity.js';
import { invalidToken } from './account-common.js';
import type { Caller, VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

/** keyId of dashboard callers: they act through a sign-in session, not an API key. */
export const DASHBOARD_KEY_ID = 'dashboard';

export async function authenticateDashboard({
  ctx,
  input,
}: {
  ctx: VerbContext;
  input: { token: string };
}): Promise<VerbResult<Caller & { created: boolean }>> {
  const store = storeOf(ctx.stores, 'accounts');
  const identity = storeOf(ctx.stores, 'identity');
  let claims;
  try {
    claims = await identity.verify(input.token, ctx.now());
  } catch (e) {
    if (e instanceof TokenRejected) {
      // The reason is logged for operators; the client only learns the token was refused.
      ctx.log.info({ reason: e.message }, 'dashboard token rejected');
      throw invalidToken('The sign-in token is invalid or expired; sign in again.');
    }
    ctx.log.warn({ err: e }, 'identity provider unavailable');
    throw new AppError('dependency-unavailable', 'The sign-in provider is unavailable; retry with backoff.');
  }
  const { account, created } = await store.resolveSignIn(claims, ctx.now().getTime());
  if (created) ctx.log.info({ accountId: account.id }, 'account created on first sign-in');
  return { data: { accountId: account.id, keyId: DASHBOARD_KEY_ID, plan: account.plan, created } };
}
