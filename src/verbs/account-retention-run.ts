// The daily retention job (admin CLI `retention run`, or a scheduler calling this verb).
import { type RetentionReport } from '../store/accounts/retention.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

export async function retentionRun({ ctx }: { ctx: VerbContext; input?: unknown }): Promise<VerbResult<RetentionReport>> {
  const report = await storeOf(ctx.stores, 'accounts').runRetention(ctx.now().getTime());
  ctx.log.info(report, 'retention run');
  return { data: report };
}
