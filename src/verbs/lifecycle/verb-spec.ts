// What an operation declares (src/verbs/define-verb.ts) and what its lifecycle (lifecycle.ts) reads:
// the types both need, here so that neither imports the other (define-verb calls the lifecycle;
// the lifecycle reads the spec).
import type { z } from 'zod';
import type { VerbContext, VerbResult } from '../../context/verb-context.js';
import type { RequestShape } from '../../domain/cost.js';
import type { Plan } from '../../domain/plans.js';

/** How the transport will render the answer; `csv` is an export, gated by plan and row cap. */
export type VerbFormat = 'json' | 'csv' | 'compact';

export interface RunArgs<I, R = undefined> {
  ctx: VerbContext;
  /** The normalized input: the schema's output, read by `normalize` when the verb has one (geo as specifiers). */
  input: I;
  /** The caller's plan (the top plan without a caller: src/verbs/caller-plan.ts). */
  plan: Plan;
  /** Set when the answer is exported as CSV: the plan's row cap, checked as soon as the row count is known. */
  maxRows: number | undefined;
  /** How the answer will be rendered: a verb may build its data in that shape directly (get-data: compact). */
  format: VerbFormat;
  /** What `resolve` found in the stores before the queue (the resolved variables and geographies); undefined without one. */
  resolved: R;
}

/** What `resolve` reads: the normalized input, the plan, and the CSV row cap when the answer is a CSV export. */
export interface ResolveArgs<I> {
  ctx: VerbContext;
  input: I;
  plan: Plan;
  maxRows: number | undefined;
  format: VerbFormat;
}

/**
 * `I`: the verb's normalized input, what every later phase reads (the schema's output unless
 * `normalize` says more). `R`: what `resolve` found in the stores, handed to `cost` and `run`.
 */
export interface VerbSpec<S extends z.ZodObject, O, I = z.output<S>, R = undefined> {
  /** Stable name, the file's (`get-data`). */
  name: string;
  input: S;
  /**
   * The second half of the parse phase: the schema's output read into the normalized input, once
   * (`geo` text → specifiers, the dataset's default applied, `dollars=` checked against the price
   * index). Throws the 4xx of anything the input alone makes unanswerable, so it is refused before
   * the heavy queue and the charge. Absent: the schema's output is the normalized input.
   */
  normalize?: (input: z.output<S>, args: { format: VerbFormat }) => I;
  /** Where the input came from, named in field errors (`body → name`, `path → id`, `option → plan`); unset: the neutral names alone. */
  inputAt?: string;
  output?: z.ZodType;
  feature?: string;
  formats?: readonly VerbFormat[];
  /** Plan gates decided from the input alone; they run before the charge, so a gated request is a 403, never a 429. */
  gate?: (args: { ctx: VerbContext; input: I; plan: Plan }) => void;
  /**
   * The gates that need a store, in the gates phase (before the heavy queue and the charge): the
   * variables bound, the geographies and regions found and expanded, their plan gates and limits,
   * the row cap. Throws the 4xx of a request that names what does not exist or may not be had, so
   * it never waits for a slot; what it returns is handed to `cost` and `run`.
   */
  resolve?: (args: ResolveArgs<I>) => Promise<R> | R;
  /**
   * A fixed shape, or a shape from the input and what `resolve` found (how far the request expands).
   * 'free': the operation never charges units (account, billing and admin operations: they manage the quota, not spend it).
   */
  cost: RequestShape | ((input: I, resolved: R) => RequestShape) | 'free';
  /** Requests that may expand to large answers: they wait in the heavy queue (lifecycle/heavy-gate.ts). */
  heavy?: (input: I) => boolean;
  run: (args: RunArgs<I, R>) => Promise<VerbResult<O>>;
}
