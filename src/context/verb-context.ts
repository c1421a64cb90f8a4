// What every operation receives and returns, shared by the layers that build it (transports), use
// it (src/verbs) and fill it (src/store opens the stores). Every operation is one file in
// src/verbs exporting `async function <verb>({ ctx, input })`; HTTP routes, MCP tools and the
// admin CLI call these and only render results and errors.

import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Stores } from './stores.js';

export type { Stores } from './stores.js';

/** The authenticated caller of a data operation (null for public operations such as health). */
export interface Caller {
  accountId: string;
  keyId: string;
  /** Plan id: 'free' | 'pioneer' | 'pro' | 'business' | 'enterprise'. */
  plan: string;
}

export interface VerbContext {
  requestId: string;
  caller: Caller | null;
  stores: Stores;
  config: Config;
  /** Injectable clock so tests can move time (ToS grace, quotas, retention). */
  now: () => Date;
  log: Logger;
  /** Where the request came from (`/v1/data`, `mcp:get_census_data`, `cli`), for usage records. */
  via: string;
  /**
   * Charge units against the caller's quota (admission: quota, burst, concurrency). Operations whose
   * cost depends on the expanded request (data, compare, timeseries) call it after validation and
   * gates and before fetching data. Transports provide it; absent (CLI, unit tests) = no metering.
   */
  charge?: (units: number) => Promise<void>;
  /**
   * The request's slots and refunds (src/verbs/lifecycle/request-scope.ts): the lifecycle queues
   * heavy requests and gives charges back through it. Absent (CLI, unit tests): no queue, no refund.
   */
  request?: { queueHeavy(): Promise<void>; refundCharges(): number };
}

/** What an operation returns; the transport wraps it in the response envelope. */
export interface VerbResult<T> {
  data: T;
  meta?: {
    source?: { dataset: string; vintage_year: number; reference_period: string | null; census_program: string } | null;
    variable_count?: number | null;
    geography_count?: number | null;
    total_count?: number | null;
    hint?: string | null;
    /** Anything else the operation wants surfaced in meta (documented per operation). */
    [extra: string]: unknown;
  };
  /** Set by paginated operations; the transport turns it into links.next / links.prev. */
  page?: { offset: number; limit: number; total: number };
  /**
   * The `count` items of an array `data` as JSON in UTF-8, `item,item,…` (each exactly
   * JSON.stringify(item), in order, no brackets), in chunks of about `chunkBytes`: a transport may
   * write these instead of serializing the items, and then need not read `data` (withLazyData).
   * `keep`, when set, is the same object for every request with this very answer (a cached one):
   * the transport may keep the bytes it wrote under it and send them again.
   */
  itemsJson?: { count: number; chunks: (chunkBytes: number) => Iterable<Buffer>; keep?: object };
}

/**
 * A result whose `data` is built when first read (reading it, or spreading the result, builds it
 * once): the items of an answer that also carries `itemsJson`, which a transport writing those bytes
 * never reads. On all US counties × 10 variables, building the 32,220 cell objects cost about as
 * much as writing their JSON.
 */
export function withLazyData<T>(result: Omit<VerbResult<T>, 'data'>, build: () => T): VerbResult<T> {
  let data: { built: T } | undefined;
  return Object.defineProperty({ ...result }, 'data', {
    enumerable: true,
    get: () => (data ??= { built: build() }).built,
  }) as VerbResult<T>;
}

export type Verb<I, O> = (args: { ctx: VerbContext; input: I }) => Promise<VerbResult<O>>;
