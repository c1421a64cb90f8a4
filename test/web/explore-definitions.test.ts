// The explorer's reading of /v1/geographies/{key} `definitions` into markers on a series, for the
// kinds of change docs/geographies.md lists (definitions as the test build's API returns them).
import { describe, expect, it } from 'vitest';
import { definitionChanges, definitionText } from '../../web/explore/definitions.js';

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe('definition changes in a series', () => {
  it('marks 2010 → 2020 census tracts', () => {
    const defs = [
      { definition: 'tract-2010', valid_from: 2010, valid_to: 2019 },
      { definition: 'tract-2020', valid_from: 2020, valid_to: null },
    ];
    expect(definitionChanges('tract:48453000101', defs, range(2015, 2023))).toEqual([
      {
        vintage: 2020,
        text: 'Definition changes from 2020: 2020 census tract (2010 census tract before). Values on either side may describe different areas.',
      },
    ]);
    expect(definitionChanges('tract:48453000101', defs, range(2020, 2023))).toEqual([]);
  });

  it('marks a metro as one release published it, both ways', () => {
    const defs = [
      { definition: 'cbsa-2023-07', valid_from: 2005, valid_to: 2016 },
      { definition: 'cbsa-as-published-2017', valid_from: 2017, valid_to: 2017 },
      { definition: 'cbsa-2023-07', valid_from: 2018, valid_to: null },
    ];
    expect(definitionChanges('metro:12420', defs, range(2015, 2019)).map((c) => c.vintage)).toEqual([2017, 2018]);
    expect(definitionText('cbsa-as-published-2017')).toBe('metro as the ACS 2017 release published it');
    expect(definitionText('cbsa-2023-07')).toBe('metro of the July 2023 delineation');
    expect(definitionText('cd118')).toBe('district of the 118th Congress');
  });

  it('marks a county that ends (Connecticut 2022) and one that begins (Oglala Lakota 2015)', () => {
    const ct = definitionChanges('county:09001', [{ definition: 'county', valid_from: 2005, valid_to: 2021 }], [2019, 2021, 2022]);
    expect(ct).toHaveLength(1);
    expect(ct[0]!.vintage).toBe(2022);
    expect(ct[0]!.text).toMatch(/^Not defined from 2022: last defined in 2021/);
    expect(ct[0]!.text).toContain('planning regions');
    const sd = definitionChanges('county:46102', [{ definition: 'county', valid_from: 2015, valid_to: null }], range(2013, 2016));
    expect(sd).toEqual([{ vintage: 2015, text: 'First defined in 2015 (county); it did not exist under earlier definitions.' }]);
  });

  it('marks nothing for a geography with one definition over the range', () => {
    expect(definitionChanges('state:06', [{ definition: 'state', valid_from: 2005, valid_to: null }], range(2005, 2018))).toEqual([]);
  });
});
