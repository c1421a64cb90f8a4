// The one lifecycle of a request, from its credential to its last byte, whatever transport carries
// it. Each phase is a function below, in the order they run; PHASES lists them, and the drawing in
// docs/architecture.md ("A request's lifecycle") names the same phases and functions in the same
// order (test/docs/lifecycle-drawing.test.ts holds the two to one list). A phase that answers ends
// the request there, and nothing after it runs:
//
//   credential    401 / 403            who is calling: the transport reads the credential (its one place), callerOfKey verifies a key
//   kill switch   503                  DISABLED_FEATURES, once, before the input is read
//   parse         400 / 406 / 422      the transport's refusals of the request as read (unknown parameter, Accept, stores),
//                                      then the verb's schema, once, then `normalize` (geo → specifiers, dollars=)
//   gates         403 / 404 / 413 / 400  CSV gate, plan gates, then `resolve`: every check that needs a store
//                                      (unknown variable, no such place, expansion limits) — all before the queue
//   heavy queue   503 + Retry-After    large requests wait for a slot; a full queue refuses
//   charge        429 / 403            the verb's cost, priced from the input and what `resolve` found
//   run           any                  a 5xx or an unexpected error gives every charge back (refund)
//   render        —                    the transport turns the result into bytes (envelope, CSV, Bureau rows, tool text)
//   refund        —                    the request's one refund list, when the answer is a 5xx or is cut off
//   log           —                    one line per request (REST) or tool call (MCP)
//
// A transport adapts to it and does nothing else: REST (src/http/verb-transport.ts, for /v1 verb
// routes and the Census-API route) and MCP (src/mcp/server.ts) hand `serve` a Transport — how
// their protocol carries the credential, the input and the answer — and the end of a response
// calls `refund` (src/http/app.ts, and MCP's deadline). The CLI and tests call a verb directly,
// which runs `invoke`: the same phases from the kill switch to the run.
import type { z } from 'zod';
import type { Caller, VerbContext, VerbResult } from '../../context/verb-context.js';
import { costOf, type RequestShape } from '../../domain/cost.js';
import { AppError, isAppError } from '../../domain/errors.js';
import { requireFeature, type Plan } from '../../domain/plans.js';
import { parseInput } from '../../domain/validation.js';
import { checkRowCap } from '../../domain/row-cap.js';
import { callerPlan } from '../caller-plan.js';
import { assertFeatureEnabled } from '../feature-flags.js';
import type { KeyAuthenticator } from './seams.js';
import type { VerbFormat, VerbSpec } from './verb-spec.js';

/** What a transport tells the lifecycle about one request. */
export interface Transport<O, Out> {
  /** The caller, from the credential the request carried (read in the transport's one place); null: no credential needed. */
  credential(): Promise<Caller | null>;
  /** The request's context once its caller is known, with its scope (request-scope.ts): how its protocol carries charges and slots. */
  open(caller: Caller | null): VerbContext;
  /** The transport's own refusals of the request as read (unknown parameter, Accept, a store it needs): the parse phase's first step. */
  refuse?(): void;
  /** The input as the request carried it (query values, tool arguments). */
  input(): unknown;
  /** The transport's reading of the input when its errors name fields its way (MCP: `arguments → …`, unknown arguments refused). */
  parse?: (input: unknown) => unknown;
  format?: VerbFormat;
  /** The result as the transport's bytes. */
  render(result: VerbResult<O>): Out | Promise<Out>;
}

export interface InvokeArgs<S extends z.ZodObject> {
  ctx: VerbContext;
  /** As the caller wrote it (query values, tool arguments): parsed here, once. */
  input?: unknown;
  format?: VerbFormat;
  /** The transport's own reading of the input (Transport.parse); it must return the verb's parsed input. */
  parse?: (input: unknown) => z.output<S>;
  /** The transport's refusals of the request as read (Transport.refuse), run after the kill switch. */
  refuse?: () => void;
}

// ── credential ──────────────────────────────────────────────────────────────────────────────

/** The credential phase: the transport reads what the request carried and says who is calling. */
export async function credential<O, Out>(t: Transport<O, Out>): Promise<Caller | null> {
  return t.credential();
}

/**
 * An API key → its caller: the one verification step of every transport that takes keys (REST's
 * X-API-Key / api_key / key=, MCP's Bearer). `missing` is the transport's 401 for no key; a 401
 * from verification gets the transport's `challenge` (WWW-Authenticate).
 */
export async function callerOfKey(
  key: string | undefined,
  how: { ctx: VerbContext; verify: KeyAuthenticator | undefined; missing: () => AppError; challenge: string },
): Promise<Caller> {
  if (!key) throw how.missing();
  if (!how.verify) throw new AppError('dependency-unavailable', 'Key verification is unavailable; retry with backoff.');
  try {
    return await how.verify(key, how.ctx);
  } catch (e) {
    if (e instanceof AppError && e.status === 401 && !e.headers['WWW-Authenticate'])
      (e.headers as Record<string, string>)['WWW-Authenticate'] = how.challenge;
    throw e;
  }
}

// ── kill switch ─────────────────────────────────────────────────────────────────────────────

/** The kill switch phase: an operation listed in DISABLED_FEATURES is a 503, before its input is read. */
export function killSwitch(ctx: Pick<VerbContext, 'config'>, feature: string | undefined): void {
  assertFeatureEnabled(ctx.config, feature);
}

// ── parse ───────────────────────────────────────────────────────────────────────────────────

/** What the parse phase reads: a transport's, or a direct call's (invoke). Read in this order: refuse, format, input. */
type ParseSource = Pick<Transport<unknown, unknown>, 'refuse' | 'input' | 'format' | 'parse'>;

/**
 * The parse phase: the transport's refusals of the request as read, then the verb's schema (or
 * the transport's reading of it), once, then `normalize` into what every later phase reads.
 */
export function parse<S extends z.ZodObject, O, I, R>(spec: VerbSpec<S, O, I, R>, source: ParseSource): { input: I; format: VerbFormat } {
  source.refuse?.();
  const format = source.format ?? 'json';
  if (format !== 'json' && !spec.formats?.includes(format)) throw new Error(`${spec.name}: no ${format} rendering`);
  const input = source.input();
  const schemaOutput = source.parse ? (source.parse(input) as z.output<S>) : parseInput(spec.input, input, spec.inputAt);
  // Without normalize the schema's output is the normalized input (VerbSpec's default I).
  return { input: spec.normalize ? spec.normalize(schemaOutput, { format }) : (schemaOutput as I), format };
}

// ── gates ───────────────────────────────────────────────────────────────────────────────────

/** The CSV export gate (kill switch, then plan), returning the plan's row cap. */
export function csvExportGate(ctx: Pick<VerbContext, 'config'>, plan: Plan): number {
  assertFeatureEnabled(ctx.config, 'csv');
  requireFeature(plan, { kind: 'csv' }, ctx.config.DASHBOARD_URL);
  return plan.limits.csvRowCap;
}

/**
 * The gates phase: the CSV gate, the verb's plan gates, then its `resolve` — the checks that read
 * a store (variables known, places found, expansion limits, row caps) — so every 4xx a request
 * can get from what it asks is answered before it waits in the heavy queue or is charged.
 */
export async function gates<S extends z.ZodObject, O, I, R>(
  ctx: VerbContext,
  spec: VerbSpec<S, O, I, R>,
  input: I,
  plan: Plan,
  format: VerbFormat,
): Promise<{ maxRows: number | undefined; resolved: R }> {
  const maxRows = format === 'csv' ? csvExportGate(ctx, plan) : undefined;
  spec.gate?.({ ctx, input, plan });
  const resolved = spec.resolve ? await spec.resolve({ ctx, input, plan, maxRows, format }) : (undefined as R);
  return { maxRows, resolved };
}

// ── heavy queue ─────────────────────────────────────────────────────────────────────────────

/** The heavy queue phase: CSV (serialized whole before its last byte) and what the verb calls heavy wait for a slot. */
export async function heavyQueue<S extends z.ZodObject, O, I, R>(
  ctx: VerbContext,
  spec: VerbSpec<S, O, I, R>,
  input: I,
  format: VerbFormat,
): Promise<void> {
  if (format === 'csv' || spec.heavy?.(input)) await ctx.request?.queueHeavy();
}

// ── charge ──────────────────────────────────────────────────────────────────────────────────

async function chargeShape(ctx: VerbContext, plan: Plan, shape: RequestShape): Promise<number> {
  const units = costOf(plan, shape);
  await ctx.charge?.(units);
  return units;
}

/** The charge phase: the verb's cost, a fixed shape or one priced from its input and what `resolve` found; 'free' never charges. */
export async function charge<S extends z.ZodObject, O, I, R>(
  ctx: VerbContext,
  spec: VerbSpec<S, O, I, R>,
  plan: Plan,
  input: I,
  resolved: R,
): Promise<number> {
  if (spec.cost === 'free') return 0;
  return chargeShape(ctx, plan, typeof spec.cost === 'function' ? spec.cost(input, resolved) : spec.cost);
}

/**
 * The charge phase of a route that renders no operation, priced by its shape (a lookup, by
 * default): through ctx.charge, so it is the same admission.
 */
export async function chargeRequest(ctx: VerbContext, shape: RequestShape | number = { kind: 'lookup' }): Promise<number> {
  if (typeof shape !== 'number') return chargeShape(ctx, callerPlan(ctx), shape);
  // Units already counted (probe routes in tests).
  await ctx.charge?.(shape);
  return shape;
}

// ── run ─────────────────────────────────────────────────────────────────────────────────────

/** A failure on our side (5xx, or anything unexpected): the caller is not charged for it. */
const isOurFailure = (e: unknown) => !isAppError(e) || e.status >= 500;

/** The run phase: the verb's work, then the CSV row cap; a failure on our side gives the charges back (refund). */
export async function run<S extends z.ZodObject, O, I, R>(
  ctx: VerbContext,
  spec: VerbSpec<S, O, I, R>,
  args: { input: I; plan: Plan; maxRows: number | undefined; format: VerbFormat; resolved: R },
): Promise<VerbResult<O>> {
  try {
    const result = await spec.run({ ctx, ...args });
    // The cap holds for every verb with a CSV rendering: those that know their size early refuse
    // in `resolve`; for the rest, the rows of the answer are counted here.
    if (args.maxRows !== undefined && Array.isArray(result.data)) checkRowCap(result.data.length, args.maxRows);
    return result;
  } catch (e) {
    if (isOurFailure(e) && ctx.request) refund([ctx.request]);
    throw e;
  }
}

// ── render ──────────────────────────────────────────────────────────────────────────────────

/** The render phase: the transport's bytes for the result. */
export function render<O, Out>(t: Transport<O, Out>, result: VerbResult<O>): Out | Promise<Out> {
  return t.render(result);
}

// ── refund ──────────────────────────────────────────────────────────────────────────────────

/**
 * The refund phase: give back every charge the request's scopes took and did not give back yet
 * (request-scope.ts holds the one list); returns how many. Called by `run` when it fails on our
 * side, by REST when a response was a 5xx or cut off (app.ts), by MCP when its deadline answered.
 */
export function refund(scopes: Iterable<{ refundCharges(): number }>): number {
  let n = 0;
  for (const scope of scopes) n += scope.refundCharges();
  return n;
}

// ── log ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The log phase: one line per request (REST: the request line, written when the response ends,
 * plugins/logging.ts) or per tool call (MCP). The logger redacts credentials from every line
 * (src/presentation/credentials.ts, applied by the transport's logger).
 */
export function log(logger: Pick<VerbContext['log'], 'info' | 'error'>, line: Record<string, unknown>, msg: string, error?: unknown): void {
  if (error) logger.error({ ...line, err: error }, msg);
  else logger.info(line, msg);
}

// ── the sequence ────────────────────────────────────────────────────────────────────────────

/** The phases in the order they run: the drawing in docs/architecture.md lists the same. */
export const PHASES = [
  { phase: 'credential', fn: credential },
  { phase: 'kill switch', fn: killSwitch },
  { phase: 'parse', fn: parse },
  { phase: 'gates', fn: gates },
  { phase: 'heavy queue', fn: heavyQueue },
  { phase: 'charge', fn: charge },
  { phase: 'run', fn: run },
  { phase: 'render', fn: render },
  { phase: 'refund', fn: refund },
  { phase: 'log', fn: log },
] as const;

/** The phases from the kill switch to the run, on a context whose caller is known. */
async function operation<S extends z.ZodObject, O, I, R>(
  ctx: VerbContext,
  spec: VerbSpec<S, O, I, R>,
  source: ParseSource,
): Promise<VerbResult<O>> {
  killSwitch(ctx, spec.feature);
  const { input, format } = parse(spec, source);
  const plan = callerPlan(ctx);
  const { maxRows, resolved } = await gates(ctx, spec, input, plan, format);
  await heavyQueue(ctx, spec, input, format);
  await charge(ctx, spec, plan, input, resolved);
  return run(ctx, spec, { input, plan, maxRows, format, resolved });
}

/** A direct call of an operation (the CLI, tests, a verb calling a verb): its lifecycle from the kill switch to the run. */
export function invoke<S extends z.ZodObject, O, I, R>(
  spec: VerbSpec<S, O, I, R>,
  { ctx, input, format, parse: own, refuse }: InvokeArgs<S>,
): Promise<VerbResult<O>> {
  return operation(ctx, spec, { refuse, input: () => input, format, parse: own });
}

/**
 * One request of a transport, credential to render; the refund and log phases run when its
 * response ends (the transport's end of response calls them).
 */
export async function serve<S extends z.ZodObject, O, I, R, Out>(t: Transport<O, Out>, spec: VerbSpec<S, O, I, R>): Promise<Out> {
  const caller = await credential(t);
  const ctx = t.open(caller);
  return render(t, await operation(ctx, spec, t));
}
