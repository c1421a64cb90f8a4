// The test build's data stores opened twice: with the result cache on (the default) and off
// (OBSERVATION_CACHE_CELLS=0), for tests that hold an answer equal either way.
import { afterAll, beforeAll } from 'vitest';
import type { Stores } from '../../src/context/verb-context.js';
import { openDataStores } from '../../src/store/open.js';
import { testBuildDir } from './build.js';
import { startService, type Service } from './service.js';

export interface OpenStores {
  stores: Stores;
  close: () => void;
}

export async function cachedAndUncached(): Promise<{ cached: OpenStores; uncached: OpenStores }> {
  const dir = await testBuildDir();
  return {
    cached: await openDataStores(dir, { warn: () => {} }),
    uncached: await openDataStores(dir, { warn: () => {} }, { cacheCells: 0 }),
  };
}

/**
 * Both stores and a service over the test build, opened in beforeAll and closed in afterAll of the
 * calling test file; read them from the returned object inside tests.
 */
export function storesAndService(): { cached: OpenStores; uncached: OpenStores; svc: Service } {
  const env = {} as { cached: OpenStores; uncached: OpenStores; svc: Service };
  beforeAll(async () => {
    Object.assign(env, await cachedAndUncached());
    env.svc = await startService();
  }, 300_000);
  afterAll(async () => {
    env.cached?.close();
    env.uncached?.close();
    await env.svc?.close();
  });
  return env;
}
