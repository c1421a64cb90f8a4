// Accounts for a service process under load: a fresh SQLite accounts database in a temporary
// directory and one Enterprise key per account, minted by the admin verb as an operator would.
// The service is then started with DATABASE_PATH = dbPath, and the load rotates over the keys, so
// admission is real and no per-account limit binds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import type { VerbContext } from '../../src/context/verb-context.js';
import { openAccountStores } from '../../src/store/accounts/index.js';
import { adminIssueKey } from '../../src/verbs/account-admin-issue-key.js';

export interface BenchAccounts {
  /** Temporary directory holding the database (remove it when done). */
  tmp: string;
  dbPath: string;
  keys: string[];
}

export async function enterpriseAccounts(opts: { dataDir: string; count: number; name: string }): Promise<BenchAccounts> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${opts.name}-`));
  const dbPath = path.join(tmp, 'accounts.sqlite');
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent' }, { DATA_DIR: opts.dataDir, DATABASE_PATH: dbPath });
  const accounts = openAccountStores(config);
  const ctx = {
    requestId: 'bench',
    caller: null,
    stores: { ...accounts },
    config,
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    via: 'bench',
  } as unknown as VerbContext;
  const keys: string[] = [];
  try {
    for (let a = 0; a < opts.count; a++)
      keys.push((await adminIssueKey({ ctx, input: { email: `${opts.name}${a}@example.org`, plan: 'enterprise' } })).data.key);
  } finally {
    accounts.accounts.close();
  }
  return { tmp, dbPath, keys };
}
