// GeographyStore over the real build: lookups per vintage, children through containment and the
// crosswalks, hierarchy and search. Expected sets are read from the source files here.
import { beforeAll, describe, expect, it } from 'vitest';
import { GeographyStore } from '../../src/store/geographies.js';
import { geoBuildDir, sourceTable } from '../domain/geo/fixture.js';

let store: GeographyStore;
const tractKey = (r: Record<string, string>) => r.STATEFP! + r.COUNTYFP! + r.TRACTCE!;

beforeAll(async () => {
  store = await GeographyStore.load(await geoBuildDir());
});

describe('GeographyStore', () => {
  it('loads 600k+ tract and block group rows well under the boot budget', async () => {
    const again = await GeographyStore.load(await geoBuildDir());
    expect(again.tables.tract.size + again.tables.block_group.size).toBeGreaterThan(600_000);
    expect(again.loadMs).toBeLessThan(3000);
  });

  it('get() answers per vintage: Connecticut legacy counties end in 2021, planning regions start in 2022', () => {
    expect(store.get('county:09001', 2021)?.name).toBe('Fairfield County, Connecticut');
    expect(store.get('county:09001', 2022)).toBeNull();
    expect(store.get('county:09190', 2021)).toBeNull();
    expect(store.get('county:09190', 2022)?.name).toBe('Western Connecticut Planning Region, Connecticut');
    expect(store.get('state:6')).toBeNull();
    expect(store.get('tx')).toBeNull();
  });

  it('tract 2010 and 2020 definitions of the same key carry their own census population', () => {
    const t10 = sourceTable('geo/cenpop/2010/tract.csv.gz').find((r) => tractKey(r) === '48453000101')!;
    const t20 = sourceTable('geo/cenpop/2020/tract.csv.gz').find((r) => tractKey(r) === '48453000101')!;
    expect(store.get('tract:48453000101', 2015)?.population).toBe(Number(t10.POPULATION));
    expect(store.get('tract:48453000101', 2023)?.population).toBe(Number(t20.POPULATION));
    expect(store.get('tract:48453000101')?.definition).toBe('tract-2020');
    expect(store.versions('tract:48453000101').map((v) => [v.valid_from, v.valid_to])).toEqual([
      [2010, 2019],
      [2020, null],
    ]);
  });

  it('tracts of Travis County, TX follow the definition of the vintage', () => {
    for (const [vintage, rel] of [
      [2019, 'geo/cenpop/2010/tract.csv.gz'],
      [2023, 'geo/cenpop/2020/tract.csv.gz'],
    ] as const) {
      const expected = sourceTable(rel)
        .filter((r) => r.STATEFP === '48' && r.COUNTYFP === '453')
        .map((r) => `tract:${tractKey(r)}`)
        .sort();
      const got = store
        .children('county:48453', 'tract', vintage)
        .map((r) => r.key)
        .sort();
      expect(got).toEqual(expected);
    }
    expect(store.children('county:48453', 'tract', 2019)).toHaveLength(218);
    expect(store.children('county:48453', 'tract', 2023)).toHaveLength(290);
  });

  it('block groups of a county and of a tract', () => {
    const bgs = sourceTable('geo/cenpop/2020/block_group.csv.gz').filter((r) => r.STATEFP === '48' && r.COUNTYFP === '453');
    expect(store.members('county:48453', 'block_group', 2023).keys.sort()).toEqual(
      bgs.map((r) => `block_group:${tractKey(r)}${r.BLKGRPCE}`).sort(),
    );
    const inTract = bgs.filter((r) => r.TRACTCE === '000101').length;
    expect(store.children('tract:48453000101', 'block_group', 2023)).toHaveLength(inTract);
  });

  it('metro children come from the July 2023 delineation', () => {
    const expected = sourceTable('geo/cbsa/list1_2023.csv.gz')
      .filter((r) => r['CBSA Code'] === '12420')
      .map((r) => `county:${r['FIPS State Code']}${r['FIPS County Code']}`)
      .sort();
    expect(store.members('metro:12420', 'county', 2023).keys.sort()).toEqual(expected);
    expect(expected).toHaveLength(5);
  });

  it('a Connecticut metro before 2022 maps its planning regions onto the legacy counties holding their tracts', () => {
    const regions = new Set(
      sourceTable('geo/cbsa/list1_2023.csv.gz')
        .filter((r) => r['CBSA Code'] === '14860')
        .map((r) => r['FIPS State Code']! + r['FIPS County Code']!),
    );
    const ct = sourceTable('geo/ct_tract2020_to_planning_region.csv').filter((r) => regions.has(r.planning_region_fips!));
    const legacy = [...new Set(ct.map((r) => `county:${r.old_county_fips}`))].sort();
    expect(store.members('metro:14860', 'county', 2021).keys.sort()).toEqual(legacy);
    expect(store.members('metro:14860', 'county', 2023).keys.sort()).toEqual([...regions].map((r) => `county:${r}`).sort());
    const tracts2021 = ct.map((r) => `tract:${r.tract2020_geoid}`).sort();
    expect(store.members('metro:14860', 'tract', 2021).keys.sort()).toEqual(tracts2021);
    expect(store.members('metro:14860', 'tract', 2023).keys.sort()).toEqual(ct.map((r) => `tract:${r.tract2022_geoid}`).sort());
  });

  it('district tracts follow the crosswalk; a split tract is listed in every district it touches', () => {
    const rows = sourceTable('geo/cd118/tract2020_to_cd118.csv.gz');
    const byTract = new Map<string, string[]>();
    for (const r of rows) byTract.set(r.tract_geoid!, [...(byTract.get(r.tract_geoid!) ?? []), r.cd_geoid!]);
    const split = rows.find((r) => r.cd_geoid === '4835' && Number(r.afact) < 1)!;
    const [a, b] = byTract.get(split.tract_geoid!)!;
    for (const cd of [a!, b!]) {
      const expected = rows
        .filter((r) => r.cd_geoid === cd)
        .map((r) => `tract:${r.tract_geoid}`)
        .sort();
      const m = store.members(`cd:${cd}`, 'tract', 2023);
      expect(m.keys.slice().sort()).toEqual(expected);
      expect(m.keys).toContain(`tract:${split.tract_geoid}`);
      const share = rows.find((r) => r.cd_geoid === cd && r.tract_geoid === split.tract_geoid)!;
      expect(m.afact?.get(`tract:${split.tract_geoid}`)).toBe(Number(share.afact));
    }
  });

  it('district block groups: whole tracts plus the assigned block groups of split tracts', () => {
    const bgRows = sourceTable('geo/cd118/bg2020_to_cd118.csv.gz').filter((r) => r.cd_geoid === '4835');
    expect(store.members('cd:4835', 'block_group', 2023).keys.sort()).toEqual(bgRows.map((r) => `block_group:${r.bg_geoid}`).sort());
  });

  it('hierarchy climbs from a block group to the nation', () => {
    expect(store.hierarchy('block_group:484530011011', 2023).map((r) => r.key)).toEqual([
      'tract:48453001101',
      'county:48453',
      'state:48',
      'nation:1',
    ]);
    expect(store.hierarchy('block_group:484530011001', 2023)).toEqual([]); // tract 0011.00 was split in 2020
    // A metro's states are the principal states of its title, in title order.
    const title = sourceTable('geo/cbsa/list1_2023.csv.gz').find((r) => r['CBSA Code'] === '35620')!['CBSA Title']!;
    const fipsOf = new Map(sourceTable('geo/state.txt', '|').map((r) => [r.STUSAB!, r.STATE!]));
    const expected = title
      .split(', ')[1]!
      .split('-')
      .map((a) => `state:${fipsOf.get(a)}`);
    expect(expected.length).toBeGreaterThan(1);
    expect(store.get('metro:35620')?.state_keys).toEqual(expected);
  });

  it('search ranks exact and prefix names first', () => {
    expect(store.search('Travis County', { limit: 3 }).matches[0]?.key).toBe('county:48453');
    expect(store.search('doña ana', { limit: 3 }).matches[0]?.key).toBe('county:35013');
    expect(store.search('austin', { type: 'metro', limit: 5 }).matches.map((r) => r.key)).toContain('metro:12420');
  });

  it('records are fresh objects per call: mutating one never leaks into the next (per-row caches hold strings only)', () => {
    const key = store.keysByPrefix('tract', '48453', 2023)[0]!;
    const a = store.get(key, 2023)!;
    const name = a.name;
    a.name = 'changed';
    a.state_keys.push('state:99');
    a.point!.lat = 0;
    const b = store.get(key, 2023)!;
    expect(b).not.toBe(a);
    expect(b.name).toBe(name);
    expect(b.state_keys).toEqual(['state:48']);
    expect(b.point!.lat).not.toBe(0);
    const [r1] = store.byPrefix('tract', b.fips, 2023);
    expect(r1).toEqual(b);
    expect(r1).not.toBe(b);
  });

  it('prefix records, keys and per-key lookups agree row for row', () => {
    for (const [type, prefix, vintage] of [
      ['tract', '09', 2021],
      ['tract', '09', 2023],
      ['block_group', '48453', 2019],
      ['metro', '', 2023],
    ] as const) {
      const recs = store.byPrefix(type, prefix, vintage);
      expect(recs.length).toBeGreaterThan(0);
      expect(store.keysByPrefix(type, prefix, vintage)).toEqual(recs.map((r) => r.key));
      expect(recs.map((r) => store.get(r.key, vintage))).toEqual(recs);
    }
  });
});
