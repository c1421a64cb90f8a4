// Child process for the cross-process admission test: opens its own connection to the shared
// SQLite file and fires admissions as fast as it can. Prints {admitted, rejected} as JSON.
import pino from 'pino';
import { loadConfig } from '../../../src/config.js';
import { AppError } from '../../../src/domain/errors.js';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import { AccountStore } from '../../../src/store/accounts/index.js';
import { admitRequest } from '../../../src/verbs/admit-request.js';

const [file, accountId, plan, nStr, costStr, nowStr] = process.argv.slice(2);
const store = new AccountStore(openAccountsDb(file!));
const config = loadConfig({ NODE_ENV: 'test' } as NodeJS.ProcessEnv, { DATABASE_PATH: file! });
const now = new Date(Number(nowStr));
const rejected: Record<string, number> = {};
let admitted = 0;
for (let i = 0; i < Number(nStr); i++) {
  const ctx = {
    requestId: `${process.pid}-${i}`,
    caller: { accountId: accountId!, keyId: 'key_worker', plan: plan! },
    stores: { accounts: store },
    config,
    now: () => now,
    log: pino({ level: 'silent' }),
    via: 'test',
  };
  try {
    const r = await admitRequest({ ctx, input: { cost: Number(costStr), instance: '/v1/data', ip: '203.0.113.9' } });
    admitted++;
    r.data.release();
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const t = String(e.extensions.limit_type);
    rejected[t] = (rejected[t] ?? 0) + 1;
  }
}
process.stdout.write(JSON.stringify({ admitted, rejected }));
store.close();
