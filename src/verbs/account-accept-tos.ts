// POST /v1/account/accept-tos — records acceptance of the current terms with the audit trail the
// spec asks for (IP, user agent, timestamp, version). `version`, when sent, must be the current
// one: accepting a page the user saw before a newer version took effect would be meaningless.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { iso, signedInAccount } from './account-common.js';
import type { VerbResult } from '../context/verb-context.js';
import { defineVerb } from './define-verb.js';

export const acceptTosInput = z.object({
  version: z.string().min(1).max(64).optional(),
  /** Filled by the transport from the connection, never by the client body. */
  ip: z.string().max(64).nullable().optional(),
  user_agent: z.string().max(512).nullable().optional(),
});

export const accountAcceptTos = defineVerb({
  name: 'account-accept-tos',
  input: acceptTosInput,
  inputAt: 'body',
  cost: 'free',
  run: async ({ ctx, input: body }): Promise<VerbResult<{ version: string; accepted_at: string; status: 'accepted' }>> => {
    const { store, account } = await signedInAccount(ctx);
    const now = ctx.now().getTime();
    const doc = await store.currentTos(ctx.config, now);
    if (!doc) throw new AppError('conflict', 'No terms of service are published yet.');
    if (body.version !== undefined && body.version !== doc.version) {
      throw new AppError('conflict', `Version ${body.version} is not the current terms (${doc.version}); reload and accept again.`, {
        extensions: { current_version: doc.version },
      });
    }
    const a = await store.recordAcceptance({
      accountId: account.id,
      version: doc.version,
      ip: body.ip ?? null,
      userAgent: body.user_agent ?? null,
      now,
    });
    ctx.log.info({ accountId: account.id, version: doc.version }, 'terms accepted');
    return { data: { version: a.version, accepted_at: iso(a.accepted_at)!, status: 'accepted' } };
  },
});
