// One spec per operation. A data operation is declared once, with everything a transport must obey:
//
//   export const getData = defineVerb({
//     name: 'get-data',
//     input: z.object({ ... }),      // the one input schema: neutral names (`geo`), typed values
//     output: z.array(cellSchema),   // what `data` holds (documentation; REST serializes through it)
//     feature: 'data',               // the DISABLED_FEATURES kill switch
//     formats: ['json', 'csv'],      // csv: the plan's CSV gate and row cap apply
//     gate: ({ input, plan }) => …,  // plan gates that need no store (before any charge)
//     resolve: async ({ ctx, input, plan }) => …, // the checks that need a store, before the queue
//     cost: { kind: 'lookup' },      // priced by src/domain/cost.ts; or (input, resolved) => shape
//     normalize: (input) => …,       // the schema's output read once into what every phase reads (geo → specifiers)
//     heavy: (input) => …,           // may expand to a large answer: waits in the heavy queue
//     run: async ({ ctx, input, plan, maxRows, resolved }) => …,
//   });
//
// Calling `getData({ ctx, input, format })` runs the operation's part of the one lifecycle
// (src/verbs/lifecycle/lifecycle.ts): the kill switch, the parse (a 422/400 AppError with neutral
// field names) and normalization, the gates (CSV, plan, `resolve`), the heavy queue, the charge,
// the run, and the refund when the run fails on our side. REST derives its query and path schemas
// from `input` (src/http/verb-route.ts), MCP its tool schemas (src/mcp/tools.ts); neither decides
// a rule of its own.
import type { z } from 'zod';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { invoke, type InvokeArgs } from './lifecycle/lifecycle.js';
import type { VerbFormat, VerbSpec } from './lifecycle/verb-spec.js';

export { csvExportGate } from './lifecycle/lifecycle.js';
export type { ResolveArgs, RunArgs, VerbFormat, VerbSpec } from './lifecycle/verb-spec.js';

export interface VerbCall<S extends z.ZodObject> {
  ctx: VerbContext;
  /** As a caller writes it, or already parsed by the verb's own schema: the verb parses it (again). */
  input?: z.input<S> | z.output<S>;
  format?: VerbFormat;
}

/**
 * The normalized input is the verb's own business (only its lifecycle hands it from phase to
 * phase), so a Verb's type does not carry it: a transport taking any `Verb<S, O>` reads the
 * declaration (schema, feature, formats, output).
 */
type AnyNormalized = any;

export interface Verb<S extends z.ZodObject, O> {
  (args: VerbCall<S>): Promise<VerbResult<O>>;
  /** The same call with input as a transport received it (query values, tool arguments): the verb parses it. */
  invoke(args: InvokeArgs<S>): Promise<VerbResult<O>>;
  readonly spec: VerbSpec<S, O, AnyNormalized, AnyNormalized>;
}

export function defineVerb<S extends z.ZodObject, O, I = z.output<S>, R = undefined>(spec: VerbSpec<S, O, I, R>): Verb<S, O> {
  const run = (args: InvokeArgs<S>) => invoke(spec, args);
  const verb = (args: VerbCall<S>) => run(args);
  return Object.assign(verb, { invoke: run, spec });
}
