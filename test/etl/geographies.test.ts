// The geographies step on the real shared files: every level's membership per vintage is checked
// against the source lists read directly here, not against the step's own logic.
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPEN_VINTAGE } from '../../src/domain/geo/keys.js';
import type { GeoFile } from '../../src/store/geographies/format.js';
import { geoBuildDir, sourceRows, sourceTable } from '../domain/geo/fixture.js';

let dir: string;
let file: GeoFile;

function validKeys(level: keyof GeoFile['levels'], vintage: number): Set<string> {
  const L = file.levels[level];
  const out = new Set<string>();
  L.fips.forEach((f, i) => {
    if (L.valid_from[i]! <= vintage && vintage <= L.valid_to[i]!) out.add(f);
  });
  return out;
}

const STATES_52 = new Set(sourceTable('geo/cenpop/2020/state.csv').map((r) => r.STATEFP!));

beforeAll(async () => {
  dir = await geoBuildDir();
  file = JSON.parse(fs.readFileSync(path.join(dir, 'geo', 'geographies.json'), 'utf8')) as GeoFile;
});

describe('geographies step', () => {
  it('has the 50 states, DC and PR and one nation', () => {
    expect(validKeys('state', 2023)).toEqual(STATES_52);
    expect(STATES_52.size).toBe(52);
    expect([...validKeys('nation', 2010)]).toEqual(['1']);
  });

  it('county universe of ACS 2023 is exactly the ACS 2019–2023 county list (CT planning regions)', () => {
    const acs = new Set(sourceTable('geo/county_names_acs2023.csv.gz').map((r) => r.GEO_ID!.slice(-5)));
    expect(validKeys('county', 2023)).toEqual(acs);
    expect(validKeys('county', 2022)).toEqual(acs);
  });

  it('counties of 2020–2021 are the 2020 Census counties (8 legacy CT counties), of 2010 the 2010 ones', () => {
    const c20 = new Set(sourceTable('geo/cenpop/2020/county.csv.gz').map((r) => r.STATEFP! + r.COUNTYFP!));
    const c10 = new Set(sourceTable('geo/cenpop/2010/county.csv.gz').map((r) => r.STATEFP! + r.COUNTYFP!));
    expect(validKeys('county', 2021)).toEqual(c20);
    expect(validKeys('county', 2020)).toEqual(c20);
    expect(validKeys('county', 2010)).toEqual(c10);
    // Bedford city (51515) is gone from ACS 2013, Shannon County (46113) from ACS 2015.
    expect(validKeys('county', 2012).has('51515')).toBe(true);
    expect(validKeys('county', 2013).has('51515')).toBe(false);
    expect(validKeys('county', 2014).has('46113')).toBe(true);
    expect(validKeys('county', 2014).has('46102')).toBe(false);
    expect(validKeys('county', 2015).has('46102')).toBe(true);
    expect(validKeys('county', 2015).has('46113')).toBe(false);
  });

  it('tracts and block groups of 2010 and 2020 are the census lists; CT is rekeyed to planning regions from 2022', () => {
    for (const [level, rel2010, rel2020] of [
      ['tract', 'geo/cenpop/2010/tract.csv.gz', 'geo/cenpop/2020/tract.csv.gz'],
      ['block_group', 'geo/cenpop/2010/block_group.csv.gz', 'geo/cenpop/2020/block_group.csv.gz'],
    ] as const) {
      const key = (r: Record<string, string>) => r.STATEFP! + r.COUNTYFP! + r.TRACTCE! + (r.BLKGRPCE ?? '');
      const k10 = new Set(sourceTable(rel2010).map(key));
      const k20 = new Set(sourceTable(rel2020).map(key));
      expect(validKeys(level, 2010)).toEqual(k10);
      expect(validKeys(level, 2020)).toEqual(k20);
      expect(validKeys(level, 2021)).toEqual(k20);
      const ct = new Map(sourceTable('geo/ct_tract2020_to_planning_region.csv').map((r) => [r.tract2020_geoid!, r.tract2022_geoid!]));
      const k23 = new Set([...k20].map((k) => (k.startsWith('09') ? ct.get(k.slice(0, 11))! + k.slice(11) : k)));
      expect(validKeys(level, 2023)).toEqual(k23);
      expect([...validKeys(level, 2023)].some((k) => k.startsWith('09001'))).toBe(false);
      // 2016–2019 keep the 2010 tract count: renamed counties change keys, not tracts.
      expect(validKeys(level, 2019).size).toBe(k10.size);
    }
  });

  it('every tract of 2019 lies in a county valid in 2019 (renamed counties carry their tracts)', () => {
    const counties = validKeys('county', 2019);
    const orphans = [...validKeys('tract', 2019)].filter((t) => !counties.has(t.slice(0, 5)));
    expect(orphans).toEqual([]);
    const counties23 = validKeys('county', 2023);
    expect([...validKeys('tract', 2023)].filter((t) => !counties23.has(t.slice(0, 5)))).toEqual([]);
  });

  it('metros are the 935 CBSAs of List 1 2023 with their counties', () => {
    const list1 = sourceTable('geo/cbsa/list1_2023.csv.gz');
    const cbsas = new Set(list1.map((r) => r['CBSA Code']!));
    expect(cbsas.size).toBe(935);
    expect(validKeys('metro', 2023)).toEqual(cbsas);
    const x = file.crosswalks.metro_county;
    const got = new Set(x.cbsa.map((c, i) => `${c}:${x.county[i]}`));
    expect(got).toEqual(new Set(list1.map((r) => `${r['CBSA Code']}:${r['FIPS State Code']}${r['FIPS County Code']}`)));
  });

  it('districts are the 118th Congress list without water-only parts, valid from 2022', () => {
    const cds = sourceTable('geo/cd118/cd118_list.csv')
      .map((r) => r.cd_geoid!)
      .filter((c) => !c.endsWith('ZZ'));
    expect(validKeys('cd', 2023)).toEqual(new Set(cds));
    expect(validKeys('cd', 2021).size).toBe(0);
  });

  it('cd→tract crosswalk keeps every row with its allocation factor', () => {
    const rows = sourceTable('geo/cd118/tract2020_to_cd118.csv.gz');
    expect(file.crosswalks.cd_tract.tract.length).toBe(rows.length);
    const afact = new Map(rows.map((r) => [`${r.tract_geoid}:${r.cd_geoid}`, Number(r.afact)]));
    file.crosswalks.cd_tract.tract.forEach((t, i) =>
      expect(file.crosswalks.cd_tract.afact[i]).toBe(afact.get(`${t}:${file.crosswalks.cd_tract.cd[i]}`)),
    );
  });

  it('populations and points come from the centers-of-population files', () => {
    const travis = sourceTable('geo/cenpop/2020/county.csv.gz').find((r) => r.STATEFP === '48' && r.COUNTYFP === '453')!;
    const C = file.levels.county;
    const i = C.fips.indexOf('48453');
    expect(C.population[i]).toBe(Number(travis.POPULATION));
    expect(C.lat[i]).toBeCloseTo(Number(travis.LATITUDE), 6);
    expect(file.provenance[C.prov[i]!]!.point_kind).toBe('population_center');
    // CT planning regions: population is the sum of their 2020 tracts.
    const ct = sourceTable('geo/ct_tract2020_to_planning_region.csv');
    const tractPop = new Map(
      sourceTable('geo/cenpop/2020/tract.csv.gz').map((r) => [r.STATEFP! + r.COUNTYFP! + r.TRACTCE!, Number(r.POPULATION)]),
    );
    const capitol = ct.filter((r) => r.planning_region_fips === '09110').reduce((a, r) => a + tractPop.get(r.tract2020_geoid!)!, 0);
    expect(C.population[C.fips.indexOf('09110')]).toBe(capitol);
    const M = file.levels.metro;
    expect(M.lat[M.fips.indexOf('12420')]).toBeCloseTo(30.249744, 5);
  });

  it('every source county name is kept (accents included)', () => {
    const C = file.levels.county;
    const byFips = new Map(C.fips.map((f, i) => [f, C.name![i]]));
    for (const r of sourceTable('geo/county_names_acs2023.csv.gz')) expect(byFips.get(r.GEO_ID!.slice(-5))).toBe(r.NAME);
    const nc = sourceRows('geo/national_county_2010.txt', { header: false }) as string[][];
    const shannon = nc.find((r) => r[1] === '46' && r[2] === '113')!;
    expect(byFips.get('46113')).toBe(`${shannon[3]}, South Dakota`);
  });

  it('writes Parquet with the same rows and Census tract names', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const p = path.join(dir, 'geo', 'geographies.parquet');
    const total = Object.values(file.levels).reduce((a, L) => a + L.fips.length, 0);
    const count = await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM '${p}'`);
    expect(count.getRowObjects()[0]!.n).toBe(total);
    const names = await conn.runAndReadAll(
      `SELECT geo_key, name, parent_key FROM '${p}' WHERE geo_key IN ('tract:48453000101', 'tract:01001020100', 'block_group:010010201001') AND (valid_to IS NULL)`,
    );
    const got = Object.fromEntries(names.getRowObjects().map((r) => [r.geo_key, [r.name, r.parent_key]]));
    expect(got).toEqual({
      'tract:48453000101': ['Census Tract 1.01, Travis County, Texas', 'county:48453'],
      'tract:01001020100': ['Census Tract 201, Autauga County, Alabama', 'county:01001'],
      'block_group:010010201001': ['Block Group 1, Census Tract 201, Autauga County, Alabama', 'tract:01001020100'],
    });
    const xw = await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM '${path.join(dir, 'geo', 'crosswalks', 'cd_tract.parquet')}'`);
    expect(xw.getRowObjects()[0]!.n).toBe(file.crosswalks.cd_tract.tract.length);
    conn.closeSync();
    inst.closeSync();
  });

  it('open-ended validity is marked with the sentinel only on current definitions', () => {
    const T = file.levels.tract;
    const i = T.fips.indexOf('48453000101');
    expect(T.valid_from[i]).toBe(2010);
    expect(T.valid_to[i]).toBe(2019);
    expect(T.valid_to[i + 1]).toBe(OPEN_VINTAGE);
  });
});
