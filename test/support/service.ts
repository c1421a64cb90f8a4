// The whole service as a user meets it: the real app over the test build's data stores, a real
// SQLite accounts database in a temp dir, production auth/admission seams and one real key per
// plan, issued by the same admin operation the CLI uses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { PLAN_IDS, type PlanId } from '../../src/domain/plans.js';
import { buildApp } from '../../src/http/app.js';
import { openAccountStores } from '../../src/store/accounts/index.js';
import { openDataStores } from '../../src/store/open.js';
import { adminIssueKey } from '../../src/verbs/account-admin-issue-key.js';
import type { Stores } from '../../src/context/verb-context.js';
import { testBuildDir, TEST_DATA_DIR } from './build.js';
import { verbContext } from './context.js';

export interface Service {
  app: FastifyInstance;
  stores: Stores;
  config: Config;
  keys: Record<PlanId, string>;
  close(): Promise<void>;
}

/** `buildDir`: serve another build (e.g. one of a fixture source tree) instead of the test build. */
export async function startService(opts: { config?: Partial<Config>; now?: () => Date; buildDir?: string } = {}): Promise<Service> {
  const buildDir = opts.buildDir ?? (await testBuildDir());
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-service-'));
  const config = loadConfig(
    { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    { DATA_DIR: TEST_DATA_DIR, DATABASE_PATH: path.join(tmp, 'accounts.sqlite'), ...opts.config },
  );
  const data = await openDataStores(buildDir, { warn: () => {} });
  const accounts = openAccountStores(config);
  const stores: Stores = { ...data.stores, ...accounts };
  const keys = {} as Record<PlanId, string>;
  for (const plan of PLAN_IDS) {
    const r = await adminIssueKey({ ctx: verbContext(stores, { plan: null }), input: { email: `${plan}@example.org`, plan } });
    keys[plan] = r.data.key;
  }
  const app = await buildApp({ config, stores, logger: pino({ level: config.LOG_LEVEL }), now: opts.now });
  await app.ready();
  return {
    app,
    stores,
    config,
    keys,
    close: async () => {
      await app.close();
      accounts.accounts.close();
      data.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
