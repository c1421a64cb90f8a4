// Opening every store at boot. Each store is optional: one that cannot open is logged and left
// out, so the routes that need it answer 503 dependency-unavailable while the rest keep working.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { LiveBuild, Stores } from '../context/stores.js';
import { openAccountStores } from './accounts/index.js';
import { BoundaryStore } from './boundaries.js';
import { CatalogStore } from './catalog.js';
import { CensusTableStore } from './census-tables.js';
import { parseManifest, readManifest, resolveCurrentBuild, resolveLinkedBuild, type Manifest } from './data-dir.js';
import { DuckPool } from './duckdb.js';
import { DamagedFile, FileIntegrity, MANIFEST_FILE, manifestReason } from './file-integrity.js';
import { GeographyStore } from './geographies.js';
import { ObservationStore } from './observations.js';
import { unregisteredPartitions } from '../domain/datasets.js';

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

/**
 * The files each store reads in full when it opens, relative to the build: checked against the
 * manifest's checksums first, so a damaged one leaves its store out (503 on the routes that need
 * it) instead of loading wrong names, codes or partition lists. Files read on demand (Parquet
 * partitions, serving indexes, FlatGeobuf boundaries, the codebook) are checked at first use.
 */
const READ_AT_OPEN = {
  catalog: ['catalog/catalog.json'],
  geographies: ['geo/geographies.json'],
  observations: ['observations/index.json'],
  boundaries: ['boundaries/index.json'],
  censusTables: ['tables/acs1.json', 'tables/acs5.json'],
} as const;

type OpenedAtStart = keyof typeof READ_AT_OPEN;

/** Open the data stores of one build directory (no accounts). Used by the server and tests. */
export async function openDataStores(
  buildDir: string,
  log: Pick<Logger, 'warn'>,
  opts: { cacheCells?: number; /** Hash every partition at start instead of at first use (benchmarks). */ hashAtStart?: boolean } = {},
): Promise<{ stores: Stores; close(): void }> {
  const stores: Stores = {};
  const pool = await DuckPool.open();
  // A manifest that cannot be read or does not hold (its seal differs) leaves every data store out
  // (503 on every data route, /health names it) rather than serving files nothing can check; a
  // /health poll opens them once it is restored, as for any file a store reads at start.
  let manifest: Manifest | undefined;
  let integrity: FileIntegrity;
  try {
    const bytes = fs.readFileSync(path.join(buildDir, MANIFEST_FILE));
    manifest = parseManifest(bytes);
    integrity = new FileIntegrity(buildDir, manifest.files);
    // What the server checks every file against is the manifest as read now; a change to the file
    // on disk afterwards is reported by /health (and refused at the next start).
    await integrity.pin(MANIFEST_FILE, bytes);
  } catch (e) {
    const reason = manifestReason(e);
    log.warn({ buildDir, reason }, 'the build manifest cannot be read: no data is served until it is restored');
    integrity = FileIntegrity.withUnreadableManifest(buildDir, reason, async () => {
      const bytes = fs.readFileSync(path.join(buildDir, MANIFEST_FILE));
      return { files: parseManifest(bytes).files, bytes };
    });
    integrity.deferUntilRepaired('build', [], async () => ({ dir: buildDir, manifest: readManifest(buildDir) }));
  }
  if (!integrity.recorded)
    log.warn({ buildDir }, 'this build records no file checksums: damaged files may go unnoticed (rebuild: npm run etl -- build)');
  let observationsOpened: ObservationStore | undefined;
  const loaders: { [K in OpenedAtStart]: () => Promise<NonNullable<Stores[K]>> } = {
    catalog: async () => CatalogStore.load(buildDir),
    geographies: () => GeographyStore.load(buildDir),
    observations: async () =>
      (observationsOpened = await ObservationStore.open(buildDir, pool, {
        cacheCells: opts.cacheCells,
        integrity,
        hashAtStart: opts.hashAtStart,
        manifest,
      })),
    boundaries: () => BoundaryStore.open(path.join(buildDir, 'boundaries'), integrity),
    censusTables: async () => CensusTableStore.load(buildDir),
  };
  const names = Object.keys(loaders) as OpenedAtStart[];
  const opened = await Promise.all(
    names.map((name) =>
      attempt(log, name, async () => {
        try {
          for (const f of READ_AT_OPEN[name]) await integrity.check(f);
        } catch (e) {
          // Loaded by a /health poll once the file is repaired (FileIntegrity.recover).
          if (e instanceof DamagedFile) integrity.deferUntilRepaired(name, READ_AT_OPEN[name], loaders[name]);
          throw e;
        }
        return loaders[name]();
      }),
    ),
  );
  names.forEach((name, i) => {
    if (opened[i]) (stores as Record<string, unknown>)[name] = opened[i];
  });
  stores.integrity = integrity;
  const unserved = observationsOpened ? unregisteredPartitions(observationsOpened.partitions) : [];
  if (unserved.length)
    log.warn(
      { partitions: unserved },
      'the build holds partitions the dataset registry does not list (src/domain/datasets.ts); they are refused with invalid-vintage until registered',
    );
  if (manifest) stores.build = { dir: buildDir, manifest };
  // The observation store's close also closes its serving-index files and the pool.
  return { stores, close: () => (observationsOpened ? observationsOpened.close() : pool.close()) };
}

export async function openStores(config: Config, log: Pick<Logger, 'warn'>): Promise<Runtime> {
  const closers: Array<() => void | Promise<void>> = [];
  let closeData = () => {};
  const stores: Stores = {};
  // An accounts database that cannot be opened at start is a configuration error (DATABASE_PATH):
  // it throws, and the server stops with the message. Faults after start answer 503 instead.
  const accounts = openAccountStores(config);
  Object.assign(stores, accounts);
  closers.push(() => accounts.accounts.close());
  // A build whose manifest is gone is still the live build: opened, it answers 503 and /health says why.
  const dir = resolveCurrentBuild(config.DATA_DIR) ?? resolveLinkedBuild(config.DATA_DIR);
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
  return {
    stores,
    build,
    closeData: () => closeData(),
    close: async () => {
      for (const c of closers) await c();
    },
  };
}
