// API-key authentication for data operations (the key as each transport's one reader found it: HTTP apiKeyOf, MCP Bearer). Returns the
// Caller; unknown, malformed, revoked and deleted-account keys all get the same 401 so a probe
// learns nothing about which keys exist. Also enforces the terms-of-service grace period.
import { AppError } from '../domain/errors.js';
import { hashApiKey, isWellFormedKey } from '../domain/keys.js';
import { LAST_USED_RESOLUTION_MS } from '../store/accounts/keys-repo.js';
import type { Caller, VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

export async function authenticate({ ctx, input }: { ctx: VerbContext; input: { apiKey: string } }): Promise<VerbResult<Caller>> {
  const store = storeOf(ctx.stores, 'accounts');
  const raw = input.apiKey.trim();
  const invalid = () =>
    new AppError('invalid-api-key', 'The API key is not valid or has been revoked. Create or rotate a key in the dashboard.');
  if (!isWellFormedKey(raw)) throw invalid();
  const now = ctx.now().getTime();
  // Cached per process, revalidated on every request by a generation counter that every
  // revocation, plan change or terms change bumps (store/accounts/key-cache.ts).
  const hash = hashApiKey(raw);
  const found = await store.authenticateKey(hash, ctx.config, now);
  if (!found) throw invalid();
  const { row, tos } = found;
  if (row.revoked_at !== null || row.deleted_at !== null) throw invalid();
  // Checked here first: even a no-op UPDATE takes SQLite's write lock, which every request
  // would then contend for across processes.
  if (row.last_used_at === null || row.last_used_at < now - LAST_USED_RESOLUTION_MS) {
    await store.touchKey(hash, row.key_id, now);
  }
  if (tos.status === 'required') {
    throw new AppError(
      'tos-acceptance-required',
      `The terms of service changed (version ${tos.document.version}) and the 30-day grace period has ended. Accept them in the dashboard to continue.`,
      { extensions: { tos_version: tos.document.version, accept_url: `${ctx.config.DASHBOARD_URL.replace(/\/$/, '')}/terms` } },
    );
  }
  return {
    data: { accountId: row.account_id, keyId: row.key_id, plan: row.plan },
    meta: tos.status === 'grace' ? { tos_grace_ends_at: new Date(tos.graceEndsAt).toISOString(), tos_version: tos.document.version } : {},
  };
}
