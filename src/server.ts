// Process entry point: configuration, stores, the listening socket and graceful shutdown. All
// request behaviour lives in src/http/app.ts, which knows nothing about processes or ports.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildApp } from './http/app.js';
import { Drainer } from './http/drain.js';
import { createLogger } from './http/plugins/logging.js';
import { openDataStores, openStores } from './store/open.js';
import { BuildFollower } from './store/build-follower.js';
import { LiveStores } from './context/live-stores.js';
import { resolveCurrentBuild } from './store/data-dir.js';
import { checkDataDir, PathSettingError } from './store/fs-check.js';
import { buildDataInChild } from './data-build-child.js';
import { startWarmUp, type WarmUp } from './store/warm-up.js';

/**
 * Exit once the log destination (asynchronous, plugins/logging.ts) has written every line it holds,
 * so the last lines of a shutdown are not lost; bounded, in case stdout itself is stuck.
 */
function exitAfterLogs(logger: Logger, code: number): void {
  setTimeout(() => process.exit(code), 2_000);
  logger.flush(() => process.exit(code));
}

/** A setting that cannot be used: one line naming it on stderr, exit code 2, within seconds. */
function stopOnBadSetting(e: unknown): never {
  process.stderr.write(`Invalid configuration: ${(e as Error).message}\n`);
  process.exit(2);
}

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<FastifyInstance> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  try {
    // A replica pulling from DATA_SOURCE writes its builds into DATA_DIR: created and writable.
    checkDataDir(config.DATA_DIR, config.AUTO_BUILD_DATA || !!config.DATA_SOURCE);
  } catch (e) {
    if (e instanceof PathSettingError) stopOnBadSetting(e);
    throw e;
  }
  const logger = createLogger(config);

  // A replica following DATA_SOURCE pulls and verifies the published build instead of building
  // one (docs/publishing.md); whatever happens, it then serves what DATA_DIR holds.
  const follower = config.DATA_SOURCE
    ? new BuildFollower({
        source: config.DATA_SOURCE,
        dataDir: config.DATA_DIR,
        buildId: config.DATA_BUILD,
        intervalMs: config.DATA_POLL_INTERVAL_MS,
        env,
        log: logger,
        open: (dir) => openDataStores(dir, logger, { cacheCells: config.OBSERVATION_CACHE_CELLS }),
      })
    : undefined;
  await follower?.prepare();

  // A fresh clone has no data/: build it from the configured source tree first (progress on
  // stderr), so `npm start` alone gives a working service on the embedded default data. The build
  // runs in a child process so its memory is not kept by the server (src/data-build-child.ts).
  if (!follower && config.AUTO_BUILD_DATA && !resolveCurrentBuild(config.DATA_DIR)) {
    logger.info(
      { source: config.CENSUS_SOURCE_DIR, dataDir: config.DATA_DIR },
      'no data build found: building it now (a few minutes, once)',
    );
    const started = Date.now();
    try {
      await buildDataInChild({ sourceDir: config.CENSUS_SOURCE_DIR, dataDir: config.DATA_DIR });
      logger.info(
        { build: path.basename(resolveCurrentBuild(config.DATA_DIR) ?? ''), seconds: (Date.now() - started) / 1000 },
        'data build ready',
      );
    } catch (err) {
      // Serve what can be served (health, accounts, docs); data endpoints answer 503.
      logger.error({ err }, 'data build failed: data endpoints will answer 503 until `npm run etl` succeeds');
    }
  }

  // Each store is optional: one that fails to open is logged and its endpoints answer 503.
  let runtime: Awaited<ReturnType<typeof openStores>>;
  try {
    runtime = await openStores(config, logger);
  } catch (e) {
    if (e instanceof PathSettingError) stopOnBadSetting(e);
    throw e;
  }
  if (follower) runtime.stores.buildSource = follower.status;
  const live = new LiveStores(runtime.stores, runtime.closeData);
  const app = await buildApp({ config, stores: runtime.stores, live, logger });
  follower?.start(live);

  // Socket-level backstops behind the application-level handlerTimeout: a client that trickles
  // its request is cut off, and keep-alive outlives a typical 60 s load-balancer idle timeout so
  // the proxy, not us, closes idle connections (avoids races that surface as 502s).
  app.server.requestTimeout = config.REQUEST_TIMEOUT_MS + 5_000;
  app.server.headersTimeout = Math.min(app.server.requestTimeout, 60_000);
  app.server.keepAliveTimeout = 65_000;

  // Clean shutdown (docs/operations.md): stop accepting, close idle keep-alive connections at
  // once, let in-flight responses finish (streams included), exit as soon as the last one is done;
  // at SHUTDOWN_GRACE_MS abort what is left and log the list.
  const drainer = new Drainer(app.server);
  let warmUp: WarmUp | undefined;
  let stopping = false;
  let aborted = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      app.log.warn({ signal, in_flight: drainer.leftovers() }, 'second signal: exiting now');
      exitAfterLogs(logger, 1);
      return;
    }
    stopping = true;
    const started = Date.now();
    app.log.info({ signal, grace_ms: config.SHUTDOWN_GRACE_MS, in_flight: drainer.inFlight }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => {
      aborted = true;
      app.log.error({ aborted: drainer.leftovers() }, 'grace period elapsed with responses still in progress: aborting them');
      drainer.destroyAll();
      // One turn for the aborted responses' close handlers (refunds of what was not served).
      setTimeout(() => exitAfterLogs(logger, 1), 100);
    }, config.SHUTDOWN_GRACE_MS);
    force.unref();
    try {
      await drainer.drain();
      if (aborted) return; // the grace timer owns the exit (code 1)
      // Ended connections send what is still queued before closing; bounded by the grace.
      await drainer.flushed(Math.max(0, config.SHUTDOWN_GRACE_MS - (Date.now() - started)));
      await follower?.stop();
      await warmUp?.stop();
      await app.close();
      live.close();
      await runtime.close();
      app.log.info({ ms: Date.now() - started }, 'shutdown complete');
      exitAfterLogs(logger, 0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      exitAfterLogs(logger, 1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    logger.fatal({ err }, 'could not listen');
    await runtime.close().catch(() => {});
    exitAfterLogs(logger, 1);
    return new Promise<never>(() => {}); // exiting
  }
  // What the first requests read, prepared while the server already answers and whenever no
  // request is in progress (src/store/warm-up.ts).
  if (runtime.stores.observations && config.WARM_UP_BYTES > 0)
    warmUp = startWarmUp(runtime.stores.observations, config.WARM_UP_BYTES, logger, () => drainer.inFlight > 0);
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void start();
}
