// Dashboard session check for the account endpoints when the browser sends the session cookie
// instead of a Bearer token. State-changing calls must also carry the session's CSRF token
// (X-CSRF-Token): the cookie alone proves only that the browser sent it, not that our page did.
import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { getAccount } from '../store/accounts/accounts-repo.js';
import { deleteSession, extendSession, findSession } from '../store/accounts/sessions-repo.js';
import { accountStoreOf } from '../store/accounts/index.js';
import { invalidToken } from './account-common.js';
import { DASHBOARD_KEY_ID } from './authenticate-dashboard.js';
import type { Caller, VerbContext, VerbResult } from './context.js';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function authenticateSession({
  ctx,
  input,
}: {
  ctx: VerbContext;
  input: { sessionId: string; csrfToken?: string; stateChanging: boolean };
}): Promise<VerbResult<Caller & { csrfToken: string; email: string | null }>> {
  const store = accountStoreOf(ctx.stores);
  const now = ctx.now().getTime();
  const session = findSession(store.db, input.sessionId, now);
  if (!session) throw invalidToken('Your dashboard session has ended; sign in again.', false);
  const account = getAccount(store.db, session.account_id);
  if (!account) {
    deleteSession(store.db, input.sessionId);
    throw invalidToken('The account for this sign-in no longer exists.', false);
  }
  if (input.stateChanging && !(input.csrfToken && sameSecret(input.csrfToken, session.csrf_token))) {
    throw new AppError('forbidden', 'Missing or wrong X-CSRF-Token for this session; reload the dashboard and retry.');
  }
  extendSession(store.db, session, now, ctx.config.DASHBOARD_SESSION_HOURS * 3_600_000);
  return { data: { accountId: account.id, keyId: DASHBOARD_KEY_ID, plan: account.plan, csrfToken: session.csrf_token, email: account.email } };
}
