import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowGroupSizeFor } from '../../etl/steps/observations.js';
import { DuckPool } from '../../src/store/duckdb.js';
import { ObservationStore } from '../../src/store/observations.js';
import { testBuildDir } from '../support/build.js';

let pool: DuckPool;
let cached: ObservationStore;
let uncached: ObservationStore;

beforeAll(async () => {
  const dir = await testBuildDir();
  pool = await DuckPool.open({ connections: 2 });
  cached = await ObservationStore.open(dir, pool, { cacheCells: 400 });
  uncached = await ObservationStore.open(dir, pool, { cacheCells: 0 });
});
afterAll(() => pool?.close());

describe('rowGroupSizeFor', () => {
  it('aims at about 64 groups per file, between 8,192 and 122,880 rows', () => {
    expect(rowGroupSizeFor(100)).toBe(8_192);
    expect(rowGroupSizeFor(1_037_777)).toBe(16_384);
    expect(rowGroupSizeFor(45_000_000)).toBe(122_880);
  });
});

describe('ObservationStore result cache', () => {
  const q = {
    dataset: 'acs1',
    vintages: [2017, 2018],
    level: 'state',
    geoKeys: ['state:06', 'state:48'],
    codes: ['B19013_001E', 'B01002_001E'],
  };

  it('answers exactly what DuckDB answers, whatever the order of keys and codes', async () => {
    const direct = await uncached.fetch(q);
    const first = await cached.fetch(q);
    const again = await cached.fetch({ ...q, geoKeys: [...q.geoKeys].reverse(), codes: [...q.codes].reverse() });
    expect(again).toBe(first); // served from the cache
    expect(new Map(first)).toEqual(new Map(direct));
    expect(direct.get('2018|state:06|B19013_001E')).toMatchObject({ estimate: 75277, moe: 317 });
  });

  it('stays within its bound: an answer larger than a quarter of it (100 cells) is not kept', async () => {
    const big = {
      dataset: 'acs1',
      vintages: [2018],
      level: 'state',
      geoKeys: 'all' as const,
      codes: ['B19013_001E', 'B01002_001E', 'B19301_001E', 'B25077_001E', 'B25064_001E'],
    };
    const a = await cached.fetch(big);
    expect(a.size).toBeGreaterThan(100);
    expect(await cached.fetch(big)).not.toBe(a);
  });
});
