// The overlay of published geographies on reference rows (etl/steps/geographies/published.ts),
// on small hand-made rows: renames are cut to their vintage, a complete acs5 universe removes what
// it does not publish (only within the area it covers), acs1 never removes, codes only the data
// knows are added, and untouched rows merge back.
import { describe, expect, it } from 'vitest';
import { OPEN_VINTAGE } from '../../src/domain/geo/keys.js';
import type { GeoProvenance } from '../../src/store/geographies/format.js';
import { overlayPublished, publishedByLevel, type Row } from '../../etl/steps/geographies/published.js';

function context(type: Parameters<typeof overlayPublished>[2]['type']) {
  const prov: GeoProvenance[] = [
    { population_source: 'ref', point_kind: 'internal_point', point_source: 'ref', definition: 'cbsa-2023-07' },
  ];
  return {
    prov,
    ctx: {
      type,
      provId: (p: GeoProvenance) => {
        const i = prov.findIndex((q) => JSON.stringify(q) === JSON.stringify(p));
        return i >= 0 ? i : prov.push(p) - 1;
      },
      provOf: (i: number) => prov[i]!,
      abbrToFips: new Map([
        ['TX', '48'],
        ['IA', '19'],
      ]),
      fallbackName: (f: string) => `CBSA ${f}`,
    },
  };
}
const ref = (fips: string, name: string, extra: Partial<Row> = {}): Row => ({
  fips,
  name,
  from: 2005,
  to: OPEN_VINTAGE,
  population: 1000,
  lat: 30,
  lon: -97,
  prov: 0,
  states: '48',
  kind: 'metro',
  short_name: 'x',
  ...extra,
});
const span = (rows: Row[]) => rows.map((r) => `${r.fips} ${r.from}-${r.to === OPEN_VINTAGE ? '' : r.to} ${r.name}`);

describe('overlayPublished', () => {
  it('metros: renames for the published vintage only, removes unpublished ones there, adds data-only codes', () => {
    const { ctx, prov } = context('metro');
    const published = publishedByLevel({
      'acs5/2017/metro': [
        ['metro:12420', 'Austin-Round Rock, TX Metro Area'],
        ['metro:32220', 'Marshall, TX Micro Area'],
      ],
    });
    const r = overlayPublished(
      [ref('12420', 'Austin-Round Rock-San Marcos, TX Metro Area'), ref('10480', 'Alamosa, CO Micro Area')],
      published.metro,
      ctx,
    );
    expect(span(r.rows)).toEqual([
      '10480 2005-2016 Alamosa, CO Micro Area',
      '10480 2018- Alamosa, CO Micro Area',
      '12420 2005-2016 Austin-Round Rock-San Marcos, TX Metro Area',
      '12420 2017-2017 Austin-Round Rock, TX Metro Area',
      '12420 2018- Austin-Round Rock-San Marcos, TX Metro Area',
      '32220 2017-2017 Marshall, TX Micro Area',
    ]);
    const marshall = r.rows.find((x) => x.fips === '32220')!;
    expect(marshall).toMatchObject({ population: null, lat: null, states: '48', kind: 'micro', short_name: 'Marshall, TX' });
    expect(prov[r.rows.find((x) => x.fips === '12420' && x.from === 2017)!.prov]!.definition).toBe('cbsa-as-published-2017');
    expect(r.publishedVintages).toEqual([2017]);
  });

  it('acs1 files rename and add but never remove (they publish areas of 65,000+ only)', () => {
    const { ctx } = context('metro');
    const published = publishedByLevel({ 'acs1/2019/metro': [['metro:12420', 'Austin-Round Rock-Georgetown, TX Metro Area']] });
    const r = overlayPublished(
      [ref('12420', 'Austin-Round Rock-San Marcos, TX Metro Area'), ref('10480', 'Alamosa, CO Micro Area')],
      published.metro,
      ctx,
    );
    expect(span(r.rows)).toContain('10480 2005- Alamosa, CO Micro Area');
    expect(span(r.rows)).toContain('12420 2019-2019 Austin-Round Rock-Georgetown, TX Metro Area');
    expect(r.publishedVintages).toEqual([]);
  });

  it('counties: an acs5 file removes only within the states it covers, and same names merge back', () => {
    const { ctx } = context('county');
    const rows = [
      ref('09001', 'Fairfield County, Connecticut', { to: 2021 }),
      ref('09003', 'Hartford County, Connecticut', { to: 2021 }),
      ref('46113', 'Shannon County, South Dakota', { to: 2014 }),
    ];
    const published = publishedByLevel({ 'acs5/2019/county': [['county:09001', 'Fairfield County, Connecticut']] });
    const r = overlayPublished(rows, published.county, ctx);
    expect(span(r.rows)).toEqual([
      '09001 2005-2021 Fairfield County, Connecticut',
      '09003 2005-2018 Hartford County, Connecticut',
      '09003 2020-2021 Hartford County, Connecticut',
      '46113 2005-2014 Shannon County, South Dakota',
    ]);
  });

  it('states are never removed, and a file without NAME keeps the reference name', () => {
    const { ctx } = context('state');
    const published = publishedByLevel({ 'acs5/2019/state': [['state:06', null]] });
    const r = overlayPublished([ref('06', 'California'), ref('48', 'Texas')], published.state, ctx);
    expect(span(r.rows)).toEqual(['06 2005- California', '48 2005- Texas']);
  });
});
