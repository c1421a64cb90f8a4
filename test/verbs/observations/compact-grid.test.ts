// The data verb builds format=compact straight from the engine's grid (src/verbs/observations/
// compact.ts, compactGrid) instead of from cell objects. It must be exactly what compacting the
// long format's cells gives (compactCells, the definition): same geographies, variables, values,
// annotations and key order, byte for byte, with the result cache on and off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../../src/context/verb-context.js';
import { openDataStores } from '../../../src/store/open.js';
import { getData, longFormat } from '../../../src/verbs/get-data.js';
import { isSharedCompact } from '../../../src/verbs/observations/answer-cache.js';
import { compactCells, isCompactData } from '../../../src/verbs/observations/compact.js';
import { testBuildDir } from '../../support/build.js';
import { verbContext } from '../../support/context.js';

let cached: { stores: Stores; close: () => void };
let uncached: { stores: Stores; close: () => void };
beforeAll(async () => {
  const dir = await testBuildDir();
  cached = await openDataStores(dir, { warn: () => {} });
  uncached = await openDataStores(dir, { warn: () => {} }, { cacheCells: 0 });
}, 300_000);
afterAll(() => {
  cached?.close();
  uncached?.close();
});

const TEN = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E,B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E';

const REQUESTS = [
  // Every state: published values, jam values as annotated nulls.
  { variables: TEN, geo: 'state:*', dataset: 'acs1' as const, vintage: 2018 },
  // Catalog variables (one derived from a formula) beside a census code.
  {
    variables: 'core_median_household_income,core_total_population,B01002_001E',
    geo: 'state:06,state:48,state:11',
    dataset: 'acs1' as const,
    vintage: 2017,
  },
  // Several levels in one answer: states, counties (some below the acs1 threshold) and a tract (no acs1 rows).
  {
    variables: 'B19013_001E,B25077_001E',
    geo: 'state:06,county:06001,county:48301,tract:06001400100',
    dataset: 'acs1' as const,
    vintage: 2018,
  },
  // A vintage the build holds nothing for: every cell null with its reason.
  { variables: 'B19013_001E', geo: 'state:06,state:48', dataset: 'acs5' as const, vintage: 2012 },
];

describe('format=compact from the grid', () => {
  for (const [i, input] of REQUESTS.entries()) {
    it(`request ${i + 1} (${input.geo} × ${input.variables.split(',').length}): equals compacting the long format's cells, byte for byte`, async () => {
      for (const data of [cached, uncached]) {
        const ctx = verbContext(data.stores);
        const compact = await getData({ ctx, input, format: 'compact' });
        const long = longFormat(await getData({ ctx, input }));
        expect(isCompactData(compact.data)).toBe(true);
        const expected = compactCells(long.data, { dataset: input.dataset, vintage: input.vintage });
        expect(JSON.stringify(compact.data)).toBe(JSON.stringify(expected));
        expect(long.data.length).toBeGreaterThan(0);
        expect(compact.meta).toEqual(long.meta);
      }
    });
  }

  it('is kept beside the cached answer, and nothing is kept with the result cache off', async () => {
    const input = REQUESTS[0]!;
    const a = await getData({ ctx: verbContext(cached.stores), input, format: 'compact' });
    const b = await getData({ ctx: verbContext(cached.stores), input, format: 'compact' });
    expect(b.data).toBe(a.data);
    expect(isSharedCompact(a.data as object)).toBe(true);
    const c = await getData({ ctx: verbContext(uncached.stores), input, format: 'compact' });
    const d = await getData({ ctx: verbContext(uncached.stores), input, format: 'compact' });
    expect(d.data).not.toBe(c.data);
    expect(isSharedCompact(c.data as object)).toBe(false);
    expect(JSON.stringify(c.data)).toBe(JSON.stringify(a.data));
  });
});
