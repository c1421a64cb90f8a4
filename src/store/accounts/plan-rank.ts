import { planOf } from '../../domain/plans.js';

/** Plans are ordered; an invite code's plan only ever raises an account's plan. */
export function planRank(planId: string): number {
  return planOf(planId).rank;
}
