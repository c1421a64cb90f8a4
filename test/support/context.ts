import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import type { Stores, VerbContext } from '../../src/context/verb-context.js';

/** A VerbContext as a transport would build it, for calling operations directly in tests. */
export function verbContext(stores: Stores, opts: { plan?: string | null; charges?: number[]; now?: Date } = {}): VerbContext {
  const plan = opts.plan === undefined ? 'pro' : opts.plan;
  return {
    requestId: '00000000-0000-4000-8000-000000000000',
    caller: plan === null ? null : { accountId: 'acct_test', keyId: 'key_test', plan },
    stores,
    config: loadConfig({ NODE_ENV: 'test' }),
    now: () => opts.now ?? new Date(),
    log: pino({ level: 'silent' }),
    via: 'test',
    charge: opts.charges ? async (u) => void opts.charges!.push(u) : undefined,
  };
}
