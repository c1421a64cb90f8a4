// What one request (a REST request, one MCP tool call) holds while the lifecycle runs: its charges
// to give back if it is not served, the slots to return when its response ends, and the way to
// charge it. A transport builds one per request with requestScope() and says only how its own
// protocol carries these things (where rate-limit headers go, when the response has ended); the
// admission plumbing — the responseClosed check, the headers, refund registration, slot release —
// is written here once, for verb charges and for routes priced by the transport's cost alike.
import { AppError } from '../../domain/errors.js';
import type { Caller, VerbContext } from '../../context/verb-context.js';
import type { HeavyGate } from './heavy-gate.js';

/**
 * Admission control (quota, burst, concurrency, ToS): throws 429/403 AppErrors, returns the
 * rate-limit headers to put on the response. `release` (optional) is called when the response is
 * finished, so concurrency slots are returned. Production wires it to admitRequest
 * (seams.ts); tests may pass their own.
 */
export type Admission = (args: {
  ctx: VerbContext;
  caller: Caller;
  cost: number;
  ip: string;
  instance: string;
  /** The route's template (fastify's routeOptions.url), under which usage is counted. */
  route?: string;
}) => Promise<{
  headers?: Record<string, string>;
  release?: () => void;
  /** Undo the charge (idempotent): called when the response is a 5xx or is cut off. */
  refund?: () => void;
}>;

export interface ScopeOptions {
  caller: Caller | null;
  /** Absent: nothing is metered (no accounts store wired, unit tests). */
  admit?: Admission;
  /** Absent: heavy requests are not queued (the CLI, unit tests). */
  heavyGate?: HeavyGate;
  ip: string;
  /** The request path or tool (`mcp:get_census_data`): the 429's `instance`. */
  instance: string;
  route?: string;
  /** Put rate-limit headers on the response (the state after the latest charge wins). */
  setHeaders(headers: Record<string, string>): void;
  /** The response has ended (sent, timed out, abandoned): nothing more may be charged or queued. */
  closed(): boolean;
  /** Called once when the response ends, after every slot is returned (seams.release). */
  atEnd?(): void;
}

export interface RequestScope {
  /** Charge `units` (admission), or throw its 429/403; no-op when nothing is metered. */
  charge(ctx: VerbContext, units: number): Promise<void>;
  /** Wait for a slot in the heavy queue (503 when full); held until end(). */
  queueHeavy(): Promise<void>;
  /**
   * Give back every charge taken so far and not given back yet; returns how many. The one refund
   * list: the lifecycle calls it when the run fails on our side, the transport when the response
   * was a 5xx or did not reach its last byte (app.ts; MCP: the deadline).
   */
  refundCharges(): number;
  /** The response has ended: return every slot taken (idempotent). */
  end(): void;
}

const closedError = () => new AppError('dependency-unavailable', 'The request ended before it could be served; retry with backoff.');

export function requestScope(opts: ScopeOptions): RequestScope {
  const releases: Array<() => void> = [];
  const refunds: Array<() => void> = [];
  let ended = false;
  const hold = (release: () => void) => {
    // Granted after the response ended (deadline 503, client gone): nothing will run, give it back.
    if (ended || opts.closed()) release();
    else releases.push(release);
  };
  return {
    async charge(ctx, units) {
      const { admit, caller } = opts;
      if (!admit || !caller) return;
      // A verb still running after its response was closed must not charge for it: nothing would refund it.
      if (ended || opts.closed()) throw closedError();
      const admitted = await admit({ ctx, caller, cost: units, ip: opts.ip, instance: opts.instance, route: opts.route });
      if (admitted.headers) opts.setHeaders(admitted.headers);
      if (admitted.release) hold(admitted.release);
      if (admitted.refund) refunds.push(admitted.refund);
    },
    async queueHeavy() {
      if (!opts.heavyGate) return;
      const release = await opts.heavyGate.acquire();
      hold(release);
      if (ended || opts.closed()) throw closedError();
    },
    refundCharges() {
      const given = refunds.splice(0);
      for (const refund of given) refund();
      return given.length;
    },
    end() {
      if (ended) return;
      ended = true;
      for (const release of releases.splice(0)) release();
      opts.atEnd?.();
    },
  };
}
