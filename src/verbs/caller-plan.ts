// The plan whose gates and limits apply to an operation. Operations without a caller (the admin
// CLI, trusted tooling) run with the top plan's.
import { planOf, type Plan } from '../domain/plans.js';
import type { VerbContext } from '../context/verb-context.js';

export function callerPlan(ctx: Pick<VerbContext, 'caller'>): Plan {
  return planOf(ctx.caller?.plan ?? 'enterprise');
}
