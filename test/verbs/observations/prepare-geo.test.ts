// `geo` is read once (src/domain/geo/geo-param.ts) and everything in prepare takes the parsed
// specifiers: the default vintage is looked for at the level the specifier names however it is
// spelled (`us` is the nation, `block group` is block_group), as resolution reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../../src/context/verb-context.js';
import { parseGeoParam } from '../../../src/domain/geo/geo-param.js';
import { keySpecifier } from '../../../src/domain/geo/specifier.js';
import { openDataStores } from '../../../src/store/open.js';
import { getData, longFormat } from '../../../src/verbs/get-data.js';
import { testBuildDir } from '../../support/build.js';
import { verbContext } from '../../support/context.js';

let stores: Stores;
let close: () => void;
beforeAll(async () => {
  ({ stores, close } = await openDataStores(await testBuildDir(), { warn: () => {} }));
});
afterAll(() => close?.());

describe('geo, parsed once', () => {
  it('splits regions from specifiers and normalises each specifier', () => {
    const parsed = parseGeoParam(['us;Block Group:060014001001', 'region(county:06001,county:06013),state:06']);
    expect(parsed.specifiers.map((s) => [s.kind, s.type])).toEqual([
      ['key', 'nation'],
      ['key', 'block_group'],
      ['key', 'state'],
    ]);
    expect(parsed.regions).toEqual([
      {
        kind: 'inline',
        raw: 'region(county:06001,county:06013)',
        members: [keySpecifier('county', '06001'), keySpecifier('county', '06013')],
      },
    ]);
  });

  it('the default vintage is the same for the nation however it is written', async () => {
    const answer = async (geo: string) =>
      longFormat(await getData({ ctx: verbContext(stores), input: { variables: 'B19013_001E', geo, dataset: 'acs1' } }));
    const nation = await answer('nation');
    const estimate = nation.data[0]!.estimate;
    expect(estimate).not.toBeNull();
    for (const spelling of ['us', 'US', 'us:1', 'nation:1']) {
      const r = await answer(spelling);
      expect(
        r.data.map((c) => [c.geo_key, c.vintage, c.estimate]),
        spelling,
      ).toEqual([['nation:1', nation.data[0]!.vintage, estimate]]);
    }
  });
});
