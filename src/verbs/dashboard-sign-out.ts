// Dashboard sign-out: the server-side session row is deleted, so the cookie is dead even if a copy
// of it survives somewhere.

import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

export async function dashboardSignOut({
  ctx,
  input,
}: {
  ctx: VerbContext;
  input: { sessionId: string };
}): Promise<VerbResult<{ signed_out: true }>> {
  await storeOf(ctx.stores, 'accounts').deleteSession(input.sessionId);
  return { data: { signed_out: true } };
}
