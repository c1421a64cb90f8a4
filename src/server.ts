// Process entry point: configuration, stores, the listening socket and graceful shutdown. All
// request behaviour lives in src/http/app.ts, which knows nothing about processes or ports.
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildApp } from './http/app.js';
import type { Seams } from './http/plugins/context.js';
import { createLogger } from './http/plugins/logging.js';
import type { Stores } from './verbs/context.js';

/** What src/store/open.ts (the store owner's module) provides. */
export interface Runtime {
  stores: Stores;
  seams?: Seams;
  close(): Promise<void>;
}

// Resolved at run time so this file compiles and starts before the store module exists; without
// it the service still serves /health, /openapi.json and answers 503 where a store is needed.
const STORE_MODULE = new URL('./store/open.js', import.meta.url).href;

async function openRuntime(config: Config): Promise<Runtime> {
  let mod: { openStores?: (c: Config) => Promise<Runtime | Stores> };
  try {
    mod = (await import(STORE_MODULE)) as typeof mod;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes('open')) {
      return { stores: {}, close: async () => {} };
    }
    throw e;
  }
  if (!mod.openStores) return { stores: {}, close: async () => {} };
  const opened = await mod.openStores(config);
  if (opened && typeof (opened as Runtime).close === 'function' && 'stores' in opened) return opened as Runtime;
  return { stores: opened as Stores, close: async () => {} };
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
  const logger = createLogger(config);

  // HOOK (lead): when AUTO_BUILD_DATA is on and `${DATA_DIR}/current` is missing, build data from
  // CENSUS_SOURCE_DIR here, before the stores open.

  const runtime = await openRuntime(config);
  const app = await buildApp({ config, stores: runtime.stores, seams: runtime.seams, logger });

  // Socket-level backstops behind the application-level handlerTimeout: a client that trickles
  // its request is cut off, and keep-alive outlives a typical 60 s load-balancer idle timeout so
  // the proxy, not us, closes idle connections (avoids races that surface as 502s).
  app.server.requestTimeout = config.REQUEST_TIMEOUT_MS + 5_000;
  app.server.headersTimeout = Math.min(app.server.requestTimeout, 60_000);
  app.server.keepAliveTimeout = 65_000;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal, grace_ms: config.SHUTDOWN_GRACE_MS }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => {
      app.log.error('grace period elapsed with requests still open: exiting');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS);
    force.unref();
    try {
      await app.close(); // stops accepting, waits for in-flight requests, closes idle keep-alives
      await runtime.close();
      app.log.info('shutdown complete');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    logger.fatal({ err }, 'could not listen');
    await runtime.close().catch(() => {});
    process.exit(1);
  }
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void start();
}
