// /v1/variables?search= answers are kept per catalog + census-tables stores: a cached page must be
// the page the uncached path builds (pages above the cache's item bound are always built), for word
// searches, code prefixes, topics and every page position, including past the end.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../src/context/verb-context.js';
import { answerCacheOf } from '../../src/store/answer-cache.js';
import { CatalogStore } from '../../src/store/catalog.js';
import { CensusTableStore } from '../../src/store/census-tables.js';
import { SEARCH_CACHE_ANSWERS, searchVariables } from '../../src/verbs/catalog.js';
import { AppError } from '../../src/domain/errors.js';
import { testBuildDir } from '../support/build.js';
import { verbContext } from '../support/context.js';

let stores: Stores;
beforeAll(async () => {
  const dir = await testBuildDir();
  stores = { catalog: CatalogStore.load(dir), censusTables: CensusTableStore.load(dir) };
});

const SEARCHES = [
  'median income',
  'median household income',
  'poverty',
  'rent',
  'B19013',
  'b19013_001',
  'B07009',
  'B07009_025E',
  'B25077_001M',
  'B01001',
  'xyzzy nothing',
  undefined,
];
const TOPICS = [undefined, 'economics', 'housing'];

describe('variable search answer cache', () => {
  it('serves every page as the uncached path builds it, first time and cached', async () => {
    const ctx = verbContext(stores, { plan: 'enterprise' });
    let compared = 0;
    for (const search of SEARCHES)
      for (const topic of TOPICS) {
        // limit 5,000 is above the cache's item bound: built on every call, the reference.
        const whole = await searchVariables({ ctx, input: { search, topic, limit: 5_000 } });
        const total = whole.page!.total;
        for (const [offset, limit] of [
          [0, 50],
          [0, 5],
          [3, 2],
          [Math.max(0, total - 1), 10],
          [total, 10],
          [total + 1_000, 50],
        ] as const) {
          for (const pass of ['first', 'cached']) {
            const r = await searchVariables({ ctx, input: { search, topic, offset, limit } });
            expect(r.data, `${search} ${topic} ${offset} ${limit} ${pass}`).toEqual(whole.data.slice(offset, offset + limit));
            expect(r.page).toEqual({ offset, limit, total });
            expect(r.meta!.matching_tables).toEqual(whole.meta!.matching_tables);
            if (r.data.length) expect(r.meta!.hint).toBe(whole.meta!.hint);
            compared++;
          }
        }
      }
    expect(compared).toBe(SEARCHES.length * TOPICS.length * 12);
  });

  it('keys on the plan-limited page size, and freezes what it keeps', async () => {
    const free = await searchVariables({ ctx: verbContext(stores, { plan: 'free' }), input: { search: 'income', limit: 1_000 } });
    const ent = await searchVariables({ ctx: verbContext(stores, { plan: 'enterprise' }), input: { search: 'income', limit: 150 } });
    expect(free.page!.limit).toBe(100);
    expect(ent.page!.limit).toBe(150);
    expect(ent.data.slice(0, 100)).toEqual(free.data);
    expect(Object.isFrozen(free.data) && Object.isFrozen(free.data[0])).toBe(true);
    expect(() => (free.data as unknown[]).push(1)).toThrow(TypeError);
  });

  it('still refuses an unknown topic, and starts empty for a new build', async () => {
    const ctx = verbContext(stores);
    await expect(searchVariables({ ctx, input: { search: 'income', topic: 'nope' } })).rejects.toBeInstanceOf(AppError);
    const dir = await testBuildDir();
    const fresh = CatalogStore.load(dir);
    expect(answerCacheOf('variable-search', SEARCH_CACHE_ANSWERS, [fresh, stores.censusTables]).size).toBe(0);
    expect(answerCacheOf('variable-search', SEARCH_CACHE_ANSWERS, [stores.catalog, stores.censusTables]).size).toBeGreaterThan(0);
  });
});
