// The one lifecycle of an operation, whatever transport calls it. In order, with what each step
// can answer:
//
//   kill switch      503 feature-unavailable  (DISABLED_FEATURES; before the input is read)
//   parse            422 / 400                (the verb's input schema, or the transport's parse; then `normalize`:
//                                             geo → specifiers, dollars= checked: every 4xx the input alone decides)
//   CSV gate         503 / 403                (format=csv: kill switch, then the plan's csv feature)
//   plan gates       403                      (decided from the input alone: never charged)
//   heavy queue      503 + Retry-After        (large requests wait for a slot; a full queue refuses)
//   charge           429 / 403                (a fixed cost here; 'expanded' verbs charge in the run; 'free' never)
//   run              any; a 5xx gives the charges back
//   row cap          413                      (format=csv: rows past the plan's cap, never truncated)
//
// REST (src/http/verb-route.ts), MCP (src/mcp/tools.ts) and the CLI turn a request into `ctx` and
// `input` and the result into bytes; the request's charges, slots and refunds are held by the
// scope the transport built (request-scope.ts) and reached through `ctx.charge` and `ctx.request`.
import type { z } from 'zod';
import type { VerbContext, VerbResult } from '../../context/verb-context.js';
import { costOf, type RequestShape } from '../../domain/cost.js';
import { isAppError } from '../../domain/errors.js';
import { requireFeature, type Plan } from '../../domain/plans.js';
import { parseInput } from '../../domain/validation.js';
import { checkRowCap } from '../../domain/row-cap.js';
import { callerPlan } from '../caller-plan.js';
import { assertFeatureEnabled } from '../feature-flags.js';
import type { VerbFormat, VerbSpec } from './verb-spec.js';

export interface InvokeArgs<S extends z.ZodObject> {
  ctx: VerbContext;
  /** As the caller wrote it (query values, tool arguments): parsed here, once. */
  input?: unknown;
  format?: VerbFormat;
  /**
   * The transport's own reading of the input, when its errors must name fields its way (MCP:
   * `arguments → …`, unknown arguments refused); it must return the verb's parsed input.
   */
  parse?: (input: unknown) => z.output<S>;
}

/** The CSV export gate (kill switch, then plan), returning the plan's row cap. */
export function csvExportGate(ctx: Pick<VerbContext, 'config'>, plan: Plan): number {
  assertFeatureEnabled(ctx.config, 'csv');
  requireFeature(plan, { kind: 'csv' }, ctx.config.DASHBOARD_URL);
  return plan.limits.csvRowCap;
}

async function chargeShape(ctx: VerbContext, plan: Plan, shape: RequestShape): Promise<number> {
  const units = costOf(plan, shape);
  await ctx.charge?.(units);
  return units;
}

/**
 * Charge a request priced by its shape (a lookup, by default) outside a verb: the transport-level
 * admission of routes that render no operation. Through ctx.charge, so it is the same admission.
 */
export async function chargeRequest(ctx: VerbContext, shape: RequestShape | number = { kind: 'lookup' }): Promise<number> {
  if (typeof shape !== 'number') return chargeShape(ctx, callerPlan(ctx), shape);
  // Units already counted (probe routes in tests).
  await ctx.charge?.(shape);
  return shape;
}

/** A failure on our side (5xx, or anything unexpected): the caller is not charged for it. */
const isOurFailure = (e: unknown) => !isAppError(e) || e.status >= 500;

export async function invoke<S extends z.ZodObject, O, I>(
  spec: VerbSpec<S, O, I>,
  { ctx, input, format = 'json', parse }: InvokeArgs<S>,
): Promise<VerbResult<O>> {
  assertFeatureEnabled(ctx.config, spec.feature);
  const schemaOutput = parse ? parse(input) : parseInput(spec.input, input, spec.inputAt);
  // Without normalize the schema's output is the normalized input (VerbSpec's default I).
  const parsed = spec.normalize ? spec.normalize(schemaOutput, { format }) : (schemaOutput as I);
  const plan = callerPlan(ctx);
  if (format !== 'json' && !spec.formats?.includes(format)) throw new Error(`${spec.name}: no ${format} rendering`);
  const maxRows = format === 'csv' ? csvExportGate(ctx, plan) : undefined;
  spec.gate?.({ ctx, input: parsed, plan });
  // CSV is serialized whole before its last byte: every export waits its turn like a wildcard.
  if (format === 'csv' || spec.heavy?.(parsed)) await ctx.request?.queueHeavy();
  try {
    if (typeof spec.cost !== 'string') await chargeShape(ctx, plan, typeof spec.cost === 'function' ? spec.cost(parsed) : spec.cost);
    const result = await spec.run({ ctx, input: parsed, plan, maxRows, format, charge: (shape) => chargeShape(ctx, plan, shape) });
    // The cap holds for every verb with a CSV rendering: those that know their size early refuse
    // before reading any value; for the rest, the rows of the answer are counted here.
    if (maxRows !== undefined && Array.isArray(result.data)) checkRowCap(result.data.length, maxRows);
    return result;
  } catch (e) {
    if (isOurFailure(e)) ctx.request?.refundCharges();
    throw e;
  }
}
