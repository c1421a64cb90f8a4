// The middle baseline of bench/http-load.ts (BENCH_FLOOR=1), in its own process: the service's own
// application (buildApp with the production configuration, logger, hooks, CORS, error handling,
// request ids) with one extra route, GET /bench/constant/<i>, answering the i-th body of a JSON
// array file as bytes, like the bare process, but with no authentication, charge or operation.
// Between the bare process and the service it splits what a request costs into the framework as the
// service configures it, and what authenticating, charging and answering add on top. Started with
// the service's environment (DATA_DIR, DATABASE_PATH, NODE_ENV=production). Its stdout is the
// request log, discarded as the service's is, so it prints its port on file descriptor 3.
import fs from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/http/plugins/logging.js';
import { openStores } from '../../src/store/open.js';

const bodies = (JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as string[]).map((b) => Buffer.from(b));
const config = loadConfig(process.env);
const logger = createLogger(config);
const runtime = await openStores(config, logger);
const app = await buildApp({
  config,
  stores: runtime.stores,
  logger,
  extraRoutes: (a) => {
    a.get('/bench/constant/:i', async (req, reply) => reply.type('application/json').send(bodies[Number((req.params as { i: string }).i)]));
  },
});
await app.listen({ port: 0, host: '127.0.0.1' });
fs.writeSync(3, `${(app.server.address() as { port: number }).port}\n`);
process.on(
  'SIGTERM',
  () =>
    void app.close().then(async () => {
      await runtime.close();
      process.exit(0);
    }),
);
