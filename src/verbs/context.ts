// The transport-agnostic operation layer. Every operation is one file in src/verbs exporting
// `async function <verb>({ ctx, input })`. HTTP routes, MCP tools and the admin CLI call these
// and only render results/errors; no business rule lives in a transport.

import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { BoundaryStore } from '../store/boundaries.js';
import type { CatalogStore } from '../store/catalog.js';
import type { CensusTableStore } from '../store/census-tables.js';
import type { GeographyStore } from '../store/geographies.js';
import type { ObservationStore } from '../store/observations.js';

/** The authenticated caller of a data operation (null for public operations such as health). */
export interface Caller {
  accountId: string;
  keyId: string;
  /** Plan id: 'free' | 'pioneer' | 'pro' | 'business' | 'enterprise'. */
  plan: string;
}

/**
 * Stores are opened once at boot and shared. Each store module adds its own member here; a member
 * is optional where the service can run without it (a missing store yields 503
 * dependency-unavailable from the operations that need it, not a boot failure).
 */
export interface Stores {
  [name: string]: unknown;
  geographies?: GeographyStore;
  catalog?: CatalogStore;
  observations?: ObservationStore;
  /** What the Bureau published per vintage: census codes, labels, tables (raw-code requests, /v1/tables). */
  censusTables?: CensusTableStore;
  boundaries?: BoundaryStore;
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
}

export type Verb<I, O> = (args: { ctx: VerbContext; input: I }) => Promise<VerbResult<O>>;
