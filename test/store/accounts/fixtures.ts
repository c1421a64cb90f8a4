// Shared fixtures for account tests: a real SQLite file in a temp dir, a context with a
// controllable clock, and a pino logger whose output is captured for leak scans.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig, type Config } from '../../../src/config.js';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import { AccountStore } from '../../../src/store/accounts/index.js';
import type { Caller, Stores, VerbContext } from '../../../src/context/verb-context.js';

export function tempDbPath(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-'));
  return path.join(dir, 'accounts.sqlite');
}

export interface Harness {
  file: string;
  store: AccountStore;
  config: Config;
  clock: { t: number; set(d: string | number): void; advance(ms: number): void };
  logs: string[];
  stores: Stores;
  ctx(caller?: Caller | null, extra?: Partial<VerbContext>): VerbContext;
}

export function harness(opts: { config?: Partial<Config>; start?: string; stores?: Stores } = {}): Harness {
  const file = tempDbPath();
  const store = new AccountStore(openAccountsDb(file));
  const config = loadConfig({ NODE_ENV: 'test' } as NodeJS.ProcessEnv, { DATABASE_PATH: file, ...opts.config });
  const clock = {
    t: Date.parse(opts.start ?? '2026-03-10T12:00:00.000Z'),
    set(d: string | number) {
      this.t = typeof d === 'number' ? d : Date.parse(d);
    },
    advance(ms: number) {
      this.t += ms;
    },
  };
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const log = pino({ level: 'trace' }, sink);
  const stores: Stores = { accounts: store, ...opts.stores };
  let n = 0;
  return {
    file,
    store,
    config,
    clock,
    logs,
    stores,
    ctx: (caller = null, extra = {}) => ({
      requestId: `req-${++n}`,
      caller,
      stores,
      config,
      now: () => new Date(clock.t),
      log,
      via: 'test',
      ...extra,
    }),
  };
}
