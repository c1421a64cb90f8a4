// The daily retention job (admin CLI `retention run`, or a scheduler calling this verb).
import { accountStoreOf } from '../store/accounts/index.js';
import { runRetention, type RetentionReport } from '../store/accounts/retention.js';
import type { VerbContext, VerbResult } from './context.js';

export async function retentionRun({ ctx }: { ctx: VerbContext; input?: unknown }): Promise<VerbResult<RetentionReport>> {
  const report = runRetention(accountStoreOf(ctx.stores).db, ctx.now().getTime());
  ctx.log.info(report, 'retention run');
  return { data: report };
}
