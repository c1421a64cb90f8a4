// withLazyData: a result's `data` built on first read, once, and by whatever reads it (a spread
// too), so a transport that writes the answer's itemsJson never pays for the items.
import { describe, expect, it } from 'vitest';
import { withLazyData } from '../../src/context/verb-context.js';
import { getData } from '../../src/verbs/get-data.js';
import { verbContext } from '../support/context.js';
import { cachedAndUncached } from '../support/data-stores.js';

describe('withLazyData', () => {
  it('builds data on first read only, once, and a spread of the result carries it', () => {
    let builds = 0;
    const r = withLazyData({ meta: { total_count: 2 } }, () => {
      builds++;
      return [1, 2];
    });
    expect(builds).toBe(0);
    expect(r.meta).toEqual({ total_count: 2 });
    expect(r.data).toEqual([1, 2]);
    expect(r.data).toBe(r.data);
    const copy = { ...r };
    expect(builds).toBe(1);
    expect(Object.getOwnPropertyDescriptor(copy, 'data')).toMatchObject({ value: [1, 2], writable: true });
  });

  it("get-data's long format: itemsJson counts the cells data builds, and is their JSON", async () => {
    const { cached, uncached } = await cachedAndUncached();
    try {
      const input = { variables: 'B01003_001E,B25001_001E', geo: 'county:*', dataset: 'acs5' as const, vintage: 2023 };
      for (const s of [cached, uncached]) {
        const r = await getData({ ctx: verbContext(s.stores), input });
        const json = r.itemsJson!;
        const text = Buffer.concat([...json.chunks(65_536)]).toString('utf8');
        const cells = r.data as unknown[];
        expect(json.count).toBe(cells.length);
        expect(JSON.parse(`[${text}]`)).toEqual(JSON.parse(JSON.stringify(cells)));
      }
    } finally {
      cached.close();
      uncached.close();
    }
  }, 120_000);
});
