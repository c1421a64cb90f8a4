// One spec per operation. A data operation is declared once, with everything a transport must obey:
//
//   export const getData = defineVerb({
//     name: 'get-data',
//     input: z.object({ ... }),      // the one input schema: neutral names (`geo`), typed values
//     output: z.array(cellSchema),   // what `data` holds (documentation; REST serializes through it)
//     feature: 'data',               // the DISABLED_FEATURES kill switch
//     formats: ['json', 'csv'],      // csv: the plan's CSV gate and row cap apply
//     gate: ({ input, plan }) => …,  // plan gates that need no store (before any charge)
//     cost: { kind: 'lookup' },      // priced by src/domain/cost.ts; 'expanded': the run charges
//     heavy: (input) => …,           // may expand to a large answer: waits in the heavy queue
//     run: async ({ ctx, input, plan, maxRows, charge }) => …,
//   });
//
// Calling `getData({ ctx, input, format })` runs the one lifecycle (src/verbs/lifecycle/invoke.ts):
// the kill switch, the input parse (a 422/400 AppError with neutral field names), the CSV gate, the
// plan gates, the heavy queue, the charge, the run, and the refund when the run fails on our side. REST derives its query and path schemas from `input` (src/http/verb-route.ts), MCP its tool
// schemas (src/mcp/tools.ts); neither decides a rule of its own.
import type { z } from 'zod';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import type { RequestShape } from '../domain/cost.js';
import type { Plan } from '../domain/plans.js';
import { invoke, type InvokeArgs } from './lifecycle/invoke.js';

export { csvExportGate } from './lifecycle/invoke.js';

/** How the transport will render the answer; `csv` is an export, gated by plan and row cap. */
export type VerbFormat = 'json' | 'csv' | 'compact';

export interface RunArgs<I> {
  ctx: VerbContext;
  /** The parsed input (defaults applied). */
  input: I;
  /** The caller's plan (the top plan without a caller: src/verbs/caller-plan.ts). */
  plan: Plan;
  /** Set when the answer is exported as CSV: the plan's row cap, checked as soon as the row count is known. */
  maxRows: number | undefined;
  /** How the answer will be rendered: a verb may build its data in that shape directly (get-data: compact). */
  format: VerbFormat;
  /** Price a request shape (src/domain/cost.ts) and charge it: for `cost: 'expanded'`, once the size is known. */
  charge: (shape: RequestShape) => Promise<number>;
}

export interface VerbSpec<S extends z.ZodObject, O> {
  /** Stable name, the file's (`get-data`). */
  name: string;
  input: S;
  /** Where the input came from, named in field errors (`body → name`, `path → id`, `option → plan`); unset: the neutral names alone. */
  inputAt?: string;
  output?: z.ZodType;
  feature?: string;
  formats?: readonly VerbFormat[];
  /** Plan gates decided from the input alone; they run before the charge, so a gated request is a 403, never a 429. */
  gate?: (args: { ctx: VerbContext; input: z.output<S>; plan: Plan }) => void;
  /**
   * A fixed shape, a shape from the input, or 'expanded': the run charges once it knows how far the request expands.
   * 'free': the operation never charges units (account, billing and admin operations: they manage the quota, not spend it).
   */
  cost: RequestShape | ((input: z.output<S>) => RequestShape) | 'expanded' | 'free';
  /** Requests that may expand to large answers: they wait in the heavy queue (lifecycle/heavy-gate.ts). */
  heavy?: (input: z.output<S>) => boolean;
  run: (args: RunArgs<z.output<S>>) => Promise<VerbResult<O>>;
}

export interface VerbCall<S extends z.ZodObject> {
  ctx: VerbContext;
  /** As a caller writes it, or already parsed by the verb's own schema: the verb parses it (again). */
  input?: z.input<S> | z.output<S>;
  format?: VerbFormat;
}

export interface Verb<S extends z.ZodObject, O> {
  (args: VerbCall<S>): Promise<VerbResult<O>>;
  /** The same call with input as a transport received it (query values, tool arguments): the verb parses it. */
  invoke(args: InvokeArgs<S>): Promise<VerbResult<O>>;
  readonly spec: VerbSpec<S, O>;
}

export function defineVerb<S extends z.ZodObject, O>(spec: VerbSpec<S, O>): Verb<S, O> {
  const run = (args: InvokeArgs<S>) => invoke(spec, args);
  const verb = (args: VerbCall<S>) => run(args);
  return Object.assign(verb, { invoke: run, spec });
}
