// Opening every store at boot. Each store is optional: one that cannot open is logged and left
// out, so the routes that need it answer 503 dependency-unavailable while the rest keep working.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { LiveBuild, Stores } from '../context/stores.js';
import { openAccountStores } from './accounts/index.js';
import { BoundaryStore } from './boundaries.js';
import { CatalogStore } from './catalog.js';
import { CensusTableStore } from './census-tables.js';
import { readManifest, resolveCurrentBuild } from './data-dir.js';
import { DuckPool } from './duckdb.js';
import { GeographyStore } from './geographies.js';
import { ObservationStore } from './observations.js';

/** The live build the data stores were opened on (stores.build). */
export type BuildInfo = LiveBuild;

export interface Runtime {
  stores: Stores;
  build: BuildInfo | null;
  /** Closes the data stores only (idempotent); a switch to another build closes them this way. */
  closeData(): void;
  close(): Promise<void>;
}

async function attempt<T>(log: Pick<Logger, 'warn'>, what: string, fn: () => Promise<T> | T): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    log.warn({ err }, `${what} unavailable`);
    return undefined;
  }
}

/** Open the data stores of one build directory (no accounts). Used by the server and tests. */
export async function openDataStores(
  buildDir: string,
  log: Pick<Logger, 'warn'>,
  opts: { cacheCells?: number } = {},
): Promise<{ stores: Stores; close(): void }> {
  const stores: Stores = {};
  const pool = await DuckPool.open();
  const [catalog, geographies, observations, boundaries, censusTables] = await Promise.all([
    attempt(log, 'catalog', () => CatalogStore.load(buildDir)),
    attempt(log, 'geographies', () => GeographyStore.load(buildDir)),
    attempt(log, 'observations', () => ObservationStore.open(buildDir, pool, { cacheCells: opts.cacheCells })),
    attempt(log, 'boundaries', () => BoundaryStore.open(path.join(buildDir, 'boundaries'))),
    attempt(log, 'census tables', () => CensusTableStore.load(buildDir)),
  ]);
  if (catalog) stores.catalog = catalog;
  if (geographies) stores.geographies = geographies;
  if (observations) stores.observations = observations;
  if (boundaries) stores.boundaries = boundaries;
  if (censusTables) stores.censusTables = censusTables;
  const manifest = await attempt(log, 'build manifest', () => readManifest(buildDir));
  if (manifest) stores.build = { dir: buildDir, manifest };
  // The observation store's close also closes its serving-index files and the pool.
  return { stores, close: () => (observations ? observations.close() : pool.close()) };
}

export async function openStores(config: Config, log: Pick<Logger, 'warn'>): Promise<Runtime> {
  const closers: Array<() => void> = [];
  let closeData = () => {};
  const stores: Stores = {};
  // An accounts database that cannot be opened at start is a configuration error (DATABASE_PATH):
  // it throws, and the server stops with the message. Faults after start answer 503 instead.
  const accounts = openAccountStores(config);
  Object.assign(stores, accounts);
  closers.push(() => accounts.accounts.close());
  const dir = resolveCurrentBuild(config.DATA_DIR);
  let build: BuildInfo | null = null;
  if (dir) {
    const data = await openDataStores(dir, log, { cacheCells: config.OBSERVATION_CACHE_CELLS });
    Object.assign(stores, data.stores);
    build = data.stores.build ?? null;
    closeData = data.close;
    closers.push(data.close);
  } else {
    log.warn({ dataDir: config.DATA_DIR }, 'no data build found: data endpoints answer 503 until one is built');
  }
  return { stores, build, closeData: () => closeData(), close: async () => closers.forEach((c) => c()) };
}
