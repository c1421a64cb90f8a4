// A view asks several requests at once (the map's boundaries and its data); each may be refused
// by a plan gate naming the cheapest plan that unlocks that one request. The page must name the
// lowest plan that unlocks all of them (on Free, a county map needs Pioneer for the county
// boundaries and Pro for the wildcard: the answer is Pro), and say what each refusal was.
// The plans' order and names are the server's (read with the session, `planInfo`), not this page's.
import { ApiError, planInfo } from './api.js';

const rankOf = (e: ApiError) => planInfo(String(e.problem.required_plan)).rank;

/** "Pro": the plan's own name from the server's table. */
export const planName = (id: unknown) => planInfo(String(id)).name;

const isGate = (e: unknown): e is ApiError =>
  e instanceof ApiError &&
  e.problem.status === 403 &&
  typeof e.problem.required_plan === 'string' &&
  typeof e.problem.upgrade_url === 'string';

/** A refusal that an upgrade cures (403 naming the plan that would answer). */
export const isPlanGate = isGate;

/**
 * One error for a view from the refusals of its requests: a refusal that no upgrade cures comes
 * first (it must be fixed whatever the plan); else the plan gates merged into one, naming the
 * dearest plan among them (the lowest that unlocks everything) and listing each refusal's detail.
 */
export function viewError(errors: unknown[]): unknown {
  const other = errors.find((e) => !isGate(e));
  if (other !== undefined) return other;
  const gates = errors as ApiError[];
  if (gates.length === 1) return gates[0];
  const top = gates.reduce((a, b) => (rankOf(b) > rankOf(a) ? b : a));
  const plan = planName(top.problem.required_plan);
  // Each refusal as a sentence of its own (some details end without a full stop).
  const details = [...new Set(gates.map((g) => g.problem.detail?.trim()).filter(Boolean))].map((d) => (/[.!?]$/.test(d!) ? d : `${d}.`));
  return new ApiError({
    ...top.problem,
    detail: `This view needs the ${plan} plan or above. ${details.join(' ')}`,
  });
}

/** Every request's answer, or the view's one error when any was refused. */
export async function allOrViewError<T extends unknown[]>(requests: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(requests);
  const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason as unknown);
  if (refused.length) throw viewError(refused);
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as T;
}
