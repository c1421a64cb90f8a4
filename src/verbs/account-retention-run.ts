// The daily retention job (admin CLI `retention run`, or a scheduler calling this verb).
import { type RetentionReport } from '../store/accounts/retention.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { z } from 'zod';
import { defineVerb } from './define-verb.js';

export const retentionRun = defineVerb({
  name: 'account-retention-run',
  input: z.object({}),
  cost: 'free',
  run: async ({ ctx }): Promise<VerbResult<RetentionReport>> => {
    const report = await storeOf(ctx.stores, 'accounts').runRetention(ctx.now().getTime());
    ctx.log.info(report, 'retention run');
    return { data: report };
  },
});
