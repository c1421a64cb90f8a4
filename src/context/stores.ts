// The typed store registry: every store the service can hold, by name, and the one accessor that
// hands an operation the store it needs or answers 503 dependency-unavailable when it is not
// loaded. Stores are opened once at boot (src/store/open.ts) on one live build and shared; any of
// them may be missing without stopping the service.
import type Stripe from 'stripe';
import { AppError } from '../domain/errors.js';
import type { AccountsStore } from '../store/accounts/store.js';
import type { IdentityVerifier } from '../store/accounts/identity.js';
import type { BoundaryStore } from '../store/boundaries.js';
import type { CatalogStore } from '../store/catalog.js';
import type { CensusTableStore } from '../store/census-tables.js';
import type { BuildSourceStatus } from '../store/build-source-status.js';
import type { Manifest } from '../store/data-dir.js';
import type { GeographyStore } from '../store/geographies.js';
import type { ObservationStore } from '../store/observations.js';
import type { FileIntegrity } from '../store/file-integrity.js';

/** The data build the stores were opened on: the one idea of "the live build" while serving. */
export interface LiveBuild {
  dir: string;
  manifest: Manifest;
}

export interface StoreRegistry {
  catalog: CatalogStore;
  geographies: GeographyStore;
  observations: ObservationStore;
  /** What the Bureau published per vintage: census codes, labels, tables (raw-code requests, /v1/tables). */
  censusTables: CensusTableStore;
  boundaries: BoundaryStore;
  accounts: AccountsStore;
  /** Dashboard sign-in tokens; absent when OIDC is not configured. */
  identity: IdentityVerifier;
  /** Billing; absent when Stripe is not configured. */
  stripe: Stripe;
  build: LiveBuild;
  /** The build's files checked against its manifest's checksums (damaged ones are listed by /health). */
  integrity: FileIntegrity;
  /** Where builds are pulled from (DATA_SOURCE) and how the last check went; absent without one. */
  buildSource: BuildSourceStatus;
}

export type StoreName = keyof StoreRegistry;

/** What is open right now: any member may be missing (null: tried and failed). */
export type Stores = { [K in StoreName]?: StoreRegistry[K] | null };

/** Said to the client; which store failed and why is logged for the operator. */
const UNAVAILABLE: Record<StoreName, string> = {
  catalog: 'The variable catalog is not loaded yet; retry with backoff.',
  geographies: 'The geography reference is not loaded; retry shortly.',
  observations: 'The data store is not available; retry with backoff.',
  censusTables: 'The census table reference is not loaded; retry with backoff.',
  boundaries: 'Boundary data is not loaded; retry with backoff.',
  accounts: 'The accounts database is not available.',
  identity: 'Sign-in is not configured on this server.',
  stripe: 'Billing is not configured on this server.',
  build: 'No data build is loaded; retry with backoff.',
  integrity: 'No data build is loaded; retry with backoff.',
  buildSource: 'This server does not pull builds from an object store.',
};

/** The store `name`, or 503 dependency-unavailable. The only way operations reach a store. */
export function storeOf<K extends StoreName>(stores: Stores, name: K): StoreRegistry[K] {
  const s = stores[name];
  if (s === undefined || s === null) throw new AppError('dependency-unavailable', UNAVAILABLE[name]);
  return s as StoreRegistry[K];
}

/** The store `name` when it is open (for optional enrichments that degrade gracefully). */
export function storeIfOpen<K extends StoreName>(stores: Stores, name: K): StoreRegistry[K] | undefined {
  return stores[name] ?? undefined;
}
