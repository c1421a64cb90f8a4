// Dashboard session check for the account endpoints when the browser sends the session cookie
// instead of a Bearer token. State-changing calls must also carry the session's CSRF token
// (X-CSRF-Token): the cookie alone proves only that the browser sent it, not that our page did.
import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { invalidToken } from './account-common.js';
import { DASHBOARD_KEY_ID } from './authenticate-dashboard.js';
import type { Caller, VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

/** keyId of data requests made by the explorer page with the dashboard session: metered. */
export const EXPLORER_KEY_ID = 'explorer';

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
  /** forData: the session reads data endpoints (the explorer), so the terms apply as for a key. */
  input: { sessionId: string; csrfToken?: string; stateChanging: boolean; forData?: boolean };
}): Promise<VerbResult<Caller & { csrfToken: string; email: string | null }>> {
  const store = storeOf(ctx.stores, 'accounts');
  const now = ctx.now().getTime();
  const session = await store.findSession(input.sessionId, now);
  if (!session) throw invalidToken('Your dashboard session has ended; sign in again.', false);
  const account = await store.getAccount(session.account_id);
  if (!account) {
    await store.deleteSession(input.sessionId);
    throw invalidToken('The account for this sign-in no longer exists.', false);
  }
  if (input.stateChanging && !(input.csrfToken && sameSecret(input.csrfToken, session.csrf_token))) {
    throw new AppError('forbidden', 'Missing or wrong X-CSRF-Token for this session; reload the dashboard and retry.');
  }
  if (input.forData) {
    const tos = await store.tosState(ctx.config, account, now);
    if (tos.status === 'required') {
      throw new AppError(
        'tos-acceptance-required',
        `The terms of service changed (version ${tos.document.version}) and the 30-day grace period has ended. Accept them in the dashboard to continue.`,
        {
          extensions: { tos_version: tos.document.version, accept_url: `${ctx.config.DASHBOARD_URL.replace(/\/$/, '')}/terms` },
        },
      );
    }
  }
  await store.extendSession(session, now, ctx.config.DASHBOARD_SESSION_HOURS * 3_600_000);
  // Data read through the explorer is metered like a key (usage shows it as "explorer").
  return {
    data: {
      accountId: account.id,
      keyId: input.forData ? EXPLORER_KEY_ID : DASHBOARD_KEY_ID,
      plan: account.plan,
      csrfToken: session.csrf_token,
      email: account.email,
    },
  };
}
