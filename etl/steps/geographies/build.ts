// Turns the reference files into the columnar geography file: all seven levels with validity
// ranges in ACS vintages, plus the crosswalks used for name resolution and children.
import { FIRST_VINTAGE, GEO_TYPES, OPEN_VINTAGE, type GeoType } from '../../../src/domain/geo/keys.js';
import type { GeoCrosswalks, GeoFile, GeoProvenance, LevelColumns } from '../../../src/store/geographies/format.js';
import { GEO_FORMAT_VERSION } from '../../../src/store/geographies/format.js';
import { InputError, type StepLogger } from '../../step.js';
import { COUNTY_CHANGES, TRACT_REKEY_EXTRA } from './county-changes.js';
import { chooseGeoSources, coord, intOrNull, readNationalCounty2010, readTable, type GeoAlternative } from './sources.js';
import {
  cbsaShortName,
  readCdRelationship,
  readCtRelationship,
  readGazetteerCbsaPoints,
  readGazetteerCountyNames,
  readList1Xlsx,
} from './bureau.js';
import { overlayPublished, publishedByLevel, type Row } from './published.js';
import type { PublishedGeographies } from '../observations/published-geographies.js';

/** First ACS vintage tabulated on 2010 tracts/block groups (ACS 2006–2010 5-year). */
const TRACT_2010_FIRST = 2010;
const TRACT_2020_FIRST = 2020;
const CT_REGIONS_FIRST = 2022;

class ProvenanceTable {
  readonly list: GeoProvenance[] = [];
  id(p: GeoProvenance): number {
    const i = this.list.findIndex((q) => JSON.stringify(q) === JSON.stringify(p));
    if (i >= 0) return i;
    this.list.push(p);
    return this.list.length - 1;
  }
}

function toColumns(rows: Row[], withName: boolean, metro = false): LevelColumns {
  rows.sort((a, b) => (a.fips < b.fips ? -1 : a.fips > b.fips ? 1 : a.from - b.from));
  const cols: LevelColumns = {
    fips: rows.map((r) => r.fips),
    valid_from: rows.map((r) => r.from),
    valid_to: rows.map((r) => r.to),
    population: rows.map((r) => r.population),
    lat: rows.map((r) => r.lat),
    lon: rows.map((r) => r.lon),
    prov: rows.map((r) => r.prov),
  };
  if (withName) cols.name = rows.map((r) => r.name ?? '');
  if (metro) {
    cols.states = rows.map((r) => r.states ?? '');
    cols.kind = rows.map((r) => r.kind ?? '');
    cols.short_name = rows.map((r) => r.short_name ?? '');
  }
  return cols;
}

/** Population-weighted mean of points: how a containing area's centre of population composes. */
function weightedCentre(parts: { pop: number; lat: number | null; lon: number | null }[]): { lat: number | null; lon: number | null } {
  let w = 0,
    la = 0,
    lo = 0;
  for (const p of parts) {
    if (p.lat === null || p.lon === null || p.pop <= 0) continue;
    w += p.pop;
    la += p.pop * p.lat;
    lo += p.pop * p.lon;
  }
  if (w === 0) return { lat: null, lon: null };
  return { lat: Math.round((la / w) * 1e6) / 1e6, lon: Math.round((lo / w) * 1e6) / 1e6 };
}

type Centre = { pop: number; lat: number | null; lon: number | null };

/** The states (the 50, DC and Puerto Rico: ACS publishes no island-area estimates) and the lookups built from them. */
async function readStates(sourceDir: string, prov: ProvenanceTable) {
  const stateTxt = await readTable(sourceDir, 'geo/state.txt', ['STATE', 'STUSAB', 'STATE_NAME'], '|');
  const cenState20 = await readTable(sourceDir, 'geo/cenpop/2020/state.csv', ['STATEFP', 'POPULATION', 'LATITUDE', 'LONGITUDE']);
  const stateInfo = new Map(stateTxt.map((r) => [r.STATE!, { abbr: r.STUSAB!, name: r.STATE_NAME! }]));
  const abbrToFips = new Map(stateTxt.map((r) => [r.STUSAB!, r.STATE!]));
  const stateProv = prov.id({
    population_source: 'Census 2020 (centers of population file)',
    point_kind: 'population_center',
    point_source: 'Census 2020 center of population',
    definition: 'state',
  });
  const states: Row[] = cenState20.map((r) => {
    const info = stateInfo.get(r.STATEFP!);
    if (!info) throw new InputError('geo/cenpop/2020/state.csv', `state ${r.STATEFP} is not in geo/state.txt`);
    return {
      fips: r.STATEFP!,
      name: info.name,
      from: FIRST_VINTAGE,
      to: OPEN_VINTAGE,
      population: intOrNull(r.POPULATION),
      lat: coord(r.LATITUDE),
      lon: coord(r.LONGITUDE),
      prov: stateProv,
    };
  });
  const stateName = (fips: string): string => stateInfo.get(fips)?.name ?? fips;
  return { states, abbrToFips, stateName, stateCentre: new Map(states.map((s) => [s.fips, s])) };
}

/** The nation: the 50 states and DC (Puerto Rico excluded, as in ACS national totals). */
function nationRows(states: Row[], prov: ProvenanceTable): Row[] {
  const us = states.filter((s) => s.fips !== '72');
  const usCentre = weightedCentre(us.map((s) => ({ pop: s.population ?? 0, lat: s.lat, lon: s.lon })));
  return [
    {
      fips: '1',
      name: 'United States',
      from: FIRST_VINTAGE,
      to: OPEN_VINTAGE,
      population: us.reduce((a, s) => a + (s.population ?? 0), 0),
      ...usCentre,
      prov: prov.id({
        population_source: 'Census 2020, 50 states and DC (Puerto Rico excluded, as in ACS national totals)',
        point_kind: 'derived_population_center',
        point_source: 'population-weighted mean of the 2020 state centers of population',
        definition: 'nation',
      }),
    },
  ];
}

type Bureau = Record<GeoAlternative, boolean>;

async function readCtTracts(sourceDir: string, bureau: Bureau) {
  if (bureau.ctRegions) return readCtRelationship(sourceDir);
  return readTable(sourceDir, 'geo/ct_tract2020_to_planning_region.csv', ['tract2020_geoid', 'planning_region_fips', 'tract2022_geoid']);
}

/**
 * Tracts and block groups of both definition sets: 2010 tracts re-keyed where counties changed,
 * Connecticut's 2020 tracts re-keyed to planning regions from 2022. Also the parts of each CT
 * planning region (its 2020 tracts), from which the region gets its population and centre.
 */
async function readTractsAndBlockGroups(
  sourceDir: string,
  log: StepLogger,
  prov: ProvenanceTable,
  ctRows: Awaited<ReturnType<typeof readCtTracts>>,
) {
  const ctRegionOf = new Map(ctRows.map((r) => [r.tract2020_geoid!, { region: r.planning_region_fips!, tract2022: r.tract2022_geoid! }]));
  const rekeys = [
    ...COUNTY_CHANGES.filter((c) => c.rekeysTracts).map((c) => ({ from: c.retired[0]!, to: c.added[0]!, lastVintage: c.lastVintage })),
    ...TRACT_REKEY_EXTRA,
  ];
  const tracts: Row[] = [];
  const bgs: Row[] = [];
  const ctRegionParts = new Map<string, Centre[]>();
  for (const [year, file, level] of [
    [2010, 'geo/cenpop/2010/tract.csv.gz', 'tract'],
    [2020, 'geo/cenpop/2020/tract.csv.gz', 'tract'],
    [2010, 'geo/cenpop/2010/block_group.csv.gz', 'block_group'],
    [2020, 'geo/cenpop/2020/block_group.csv.gz', 'block_group'],
  ] as const) {
    const isBg = level === 'block_group';
    const cols = ['STATEFP', 'COUNTYFP', 'TRACTCE', 'POPULATION', 'LATITUDE', 'LONGITUDE', ...(isBg ? ['BLKGRPCE'] : [])];
    const src = await readTable(sourceDir, file, cols);
    const p = prov.id({
      population_source: `Census ${year} (centers of population file)`,
      point_kind: 'population_center',
      point_source: `Census ${year} center of population`,
      definition: `${level}-${year}`,
    });
    const out = isBg ? bgs : tracts;
    const bar = log.progress(`${level} ${year}`, src.length);
    for (const r of src) {
      const county = r.STATEFP! + r.COUNTYFP!;
      const tractGeoid = county + r.TRACTCE!;
      const fips = isBg ? tractGeoid + r.BLKGRPCE! : tractGeoid;
      const base = { population: intOrNull(r.POPULATION), lat: coord(r.LATITUDE), lon: coord(r.LONGITUDE), prov: p };
      if (year === 2010) {
        const rk = rekeys.find((x) => x.from === county);
        if (rk) {
          out.push({ ...base, fips, from: TRACT_2010_FIRST, to: rk.lastVintage });
          out.push({ ...base, fips: rk.to + fips.slice(5), from: rk.lastVintage + 1, to: TRACT_2020_FIRST - 1 });
        } else {
          out.push({ ...base, fips, from: TRACT_2010_FIRST, to: TRACT_2020_FIRST - 1 });
        }
      } else if (r.STATEFP === '09') {
        const ct = ctRegionOf.get(tractGeoid);
        if (!ct) throw new InputError('geo/ct_tract2020_to_planning_region.csv', `2020 tract ${tractGeoid} has no planning region`);
        out.push({ ...base, fips, from: TRACT_2020_FIRST, to: CT_REGIONS_FIRST - 1 });
        out.push({ ...base, fips: ct.tract2022 + fips.slice(11), from: CT_REGIONS_FIRST, to: OPEN_VINTAGE });
        if (!isBg) {
          const parts = ctRegionParts.get(ct.region) ?? [];
          parts.push({ pop: base.population ?? 0, lat: base.lat, lon: base.lon });
          ctRegionParts.set(ct.region, parts);
        }
      } else {
        out.push({ ...base, fips, from: TRACT_2020_FIRST, to: OPEN_VINTAGE });
      }
      bar.increment();
    }
    bar.stop();
  }

  return { tracts, bgs, ctRegionParts };
}

/** Counties: the 2010 list and the ACS 2023 universe, with validity from the change table. */
async function readCounties(
  sourceDir: string,
  log: StepLogger,
  prov: ProvenanceTable,
  notes: string[],
  st: { states: Row[]; stateName: (fips: string) => string },
  ctRegionParts: Map<string, Centre[]>,
  bureau: Bureau,
): Promise<Row[]> {
  const { states, stateName } = st;
  const nc2010 = await readNationalCounty2010(sourceDir);
  const acs2023 = bureau.countyNames
    ? await readGazetteerCountyNames(sourceDir, stateName)
    : await readTable(sourceDir, 'geo/county_names_acs2023.csv.gz', ['GEO_ID', 'NAME']);
  const cen10 = await readTable(sourceDir, 'geo/cenpop/2010/county.csv.gz', ['STATEFP', 'COUNTYFP', 'POPULATION', 'LATITUDE', 'LONGITUDE']);
  const cen20 = await readTable(sourceDir, 'geo/cenpop/2020/county.csv.gz', ['STATEFP', 'COUNTYFP', 'POPULATION', 'LATITUDE', 'LONGITUDE']);
  const c10 = new Map(cen10.map((r) => [r.STATEFP! + r.COUNTYFP!, r]));
  const c20 = new Map(cen20.map((r) => [r.STATEFP! + r.COUNTYFP!, r]));
  const name2023 = new Map(acs2023.map((r) => [r.GEO_ID!.slice(-5), r.NAME!]));
  const stateSet = new Set(states.map((s) => s.fips));
  const name2010 = new Map(
    nc2010.filter((r) => stateSet.has(r.fips.slice(0, 2))).map((r) => [r.fips, `${r.name}, ${stateName(r.fips.slice(0, 2))}`]),
  );

  const retiredLast = new Map<string, number>();
  const addedFirst = new Map<string, number>();
  for (const ch of COUNTY_CHANGES) {
    for (const f of ch.retired) retiredLast.set(f, ch.lastVintage);
    for (const f of ch.added) addedFirst.set(f, ch.lastVintage + 1);
  }
  const provCounty20 = prov.id({
    population_source: 'Census 2020 (centers of population file)',
    point_kind: 'population_center',
    point_source: 'Census 2020 center of population',
    definition: 'county',
  });
  const provCounty10 = prov.id({
    population_source: 'Census 2010 (centers of population file)',
    point_kind: 'population_center',
    point_source: 'Census 2010 center of population',
    definition: 'county',
  });
  const provRegion = prov.id({
    population_source: 'Census 2020, sum of the 2020 tracts placed in the planning region',
    point_kind: 'derived_population_center',
    point_source: 'population-weighted mean of the 2020 tract centers of population',
    definition: 'county',
  });
  const counties: Row[] = [];
  for (const fips of new Set([...name2010.keys(), ...name2023.keys()])) {
    const in10 = name2010.has(fips);
    const in23 = name2023.has(fips);
    let from = FIRST_VINTAGE;
    let to = OPEN_VINTAGE;
    if (in10 && !in23) {
      const last = retiredLast.get(fips);
      if (last === undefined) {
        log.warn(`county ${fips} is in the 2010 list only and not in the change table; assuming last vintage 2019`);
        notes.push(`county ${fips}: unexplained retirement, assumed last vintage 2019`);
      }
      to = last ?? 2019;
    } else if (!in10 && in23) {
      const first = addedFirst.get(fips);
      if (first === undefined) {
        log.warn(`county ${fips} is in the 2023 universe only and not in the change table; assuming first vintage 2020`);
        notes.push(`county ${fips}: unexplained addition, assumed first vintage 2020`);
      }
      from = first ?? 2020;
    }
    const name = name2023.get(fips) ?? name2010.get(fips)!;
    const cp = c20.get(fips) ?? c10.get(fips);
    if (cp) {
      counties.push({
        fips,
        name,
        from,
        to,
        population: intOrNull(cp.POPULATION),
        lat: coord(cp.LATITUDE),
        lon: coord(cp.LONGITUDE),
        prov: c20.has(fips) ? provCounty20 : provCounty10,
      });
    } else {
      const parts = ctRegionParts.get(fips);
      if (!parts) throw new InputError('geo/county_names_acs2023.csv.gz', `county ${fips} has no center of population and no tracts`);
      counties.push({ fips, name, from, to, population: parts.reduce((a, p) => a + p.pop, 0), ...weightedCentre(parts), prov: provRegion });
    }
  }
  return counties;
}

/** Metros: the July 2023 delineation (List 1) with Gazetteer internal points, and the metro→county crosswalk. */
async function readMetros(
  sourceDir: string,
  prov: ProvenanceTable,
  countyPop: Map<string, number>,
  abbrToFips: Map<string, string>,
  bureau: Bureau,
) {
  // OMB's List 1 workbook as census.gov publishes it (both trees hold it).
  const list1 = await readList1Xlsx(sourceDir);
  const gaz = bureau.cbsaPoints
    ? await readGazetteerCbsaPoints(sourceDir)
    : new Map(
        (await readTable(sourceDir, 'geo/gazetteer2023/cbsa.csv.gz', ['GEOID', 'Latitude', 'Longitude'])).map((r) => [
          r.GEOID!,
          { lat: r.Latitude!, lon: r.Longitude! },
        ]),
      );
  const metroProv = prov.id({
    population_source: 'Census 2020, sum of the member counties (July 2023 delineation)',
    point_kind: 'internal_point',
    point_source: bureau.cbsaPoints ? 'Gazetteer 2023 CBSA internal point' : 'Gazetteer 2025 CBSA internal point (us_geo build)',
    definition: 'cbsa-2023-07',
  });
  const metroMap = new Map<string, Row>();
  const xwMetro: GeoCrosswalks['metro_county'] = { cbsa: [], county: [], central: [] };
  for (const r of list1) {
    const code = r['CBSA Code']!;
    const county = r['FIPS State Code']! + r['FIPS County Code']!;
    xwMetro.cbsa.push(code);
    xwMetro.county.push(county);
    xwMetro.central.push(r['Central/Outlying County'] === 'Central');
    if (!countyPop.has(county))
      throw new InputError('geo/cbsa/list1_2023.xlsx', `county ${county} of CBSA ${code} is not a current county`);
    let m = metroMap.get(code);
    if (!m) {
      const title = r['CBSA Title']!;
      const kind = r['Metropolitan/Micropolitan Statistical Area']!.startsWith('Metropolitan') ? 'metro' : 'micro';
      const abbrs = title.slice(title.lastIndexOf(', ') + 2).split('-');
      const stFips = abbrs.map((a) => {
        const f = abbrToFips.get(a);
        if (!f) throw new InputError('geo/cbsa/list1_2023.xlsx', `CBSA ${code} title "${title}" names unknown state ${a}`);
        return f;
      });
      const g = gaz.get(code);
      if (!g)
        throw new InputError(
          bureau.cbsaPoints ? 'geo/gazetteer/2023_Gaz_cbsa_national.zip' : 'geo/gazetteer2023/cbsa.csv.gz',
          `CBSA ${code} is missing`,
        );
      m = {
        fips: code,
        name: `${title} ${kind === 'metro' ? 'Metro' : 'Micro'} Area`,
        from: FIRST_VINTAGE,
        to: OPEN_VINTAGE,
        population: 0,
        lat: coord(g.lat),
        lon: coord(g.lon),
        prov: metroProv,
        states: stFips.join(';'),
        kind,
        short_name: cbsaShortName(title),
      };
      metroMap.set(code, m);
    }
    m.population = (m.population ?? 0) + (countyPop.get(county) ?? 0);
  }
  const metros = [...metroMap.values()];
  return { metros, xwMetro };
}

/** The district list and the district→tract shares, from the Bureau's relationship file or the shared tree's derived files. */
async function readDistrictSources(
  sourceDir: string,
  bureau: Bureau,
  ctx: { stateName: (fips: string) => string; tracts: Row[]; bgs: Row[] },
): Promise<{
  list: { cd_geoid: string; state_fips: string; acs2023_name: string; intptlat: string; intptlon: string; pop: number | null }[];
  xwCd: GeoCrosswalks['cd_tract'];
  xwBg: GeoCrosswalks['cd_bg_split'];
  populationSource: string;
}> {
  if (bureau.districts) {
    const tractPop2020 = new Map(ctx.tracts.filter((t) => t.from === TRACT_2020_FIRST).map((t) => [t.fips, t.population]));
    const bgsOfTract = new Map<string, string[]>();
    for (const b of ctx.bgs) {
      if (b.from !== TRACT_2020_FIRST) continue;
      const list = bgsOfTract.get(b.fips.slice(0, 11)) ?? [];
      list.push(b.fips);
      bgsOfTract.set(b.fips.slice(0, 11), list);
    }
    const r = await readCdRelationship(sourceDir, { stateName: ctx.stateName, tractPop2020, bgsOfTract });
    return {
      list: r.districts.map((d) => ({ ...d, pop: d.pop2020 })),
      xwCd: { tract: r.tract, cd: r.cd, afact: r.afact },
      xwBg: r.splitBgs,
      populationSource: 'Census 2020 tract populations shared by land area (118th Congress relationship file; docs/sources.md)',
    };
  }
  const cdList = await readTable(sourceDir, 'geo/cd118/cd118_list.csv', [
    'cd_geoid',
    'state_fips',
    'acs2023_name',
    'intptlat',
    'intptlon',
    'pop2020_bg_approx',
  ]);
  const { xwCd, xwBg } = await readDistrictCrosswalks(sourceDir);
  return {
    list: cdList.map((r) => ({
      cd_geoid: r.cd_geoid!,
      state_fips: r.state_fips!,
      acs2023_name: r.acs2023_name!,
      intptlat: r.intptlat!,
      intptlon: r.intptlon!,
      pop: intOrNull(r.pop2020_bg_approx),
    })),
    xwCd,
    xwBg,
    populationSource: 'Census 2020, block groups assigned by their center of population (approximate; README §3c)',
  };
}

/** Congressional districts of the 118th Congress (water-only ZZ parts are not geographies). */
function readDistricts(
  cdList: Awaited<ReturnType<typeof readDistrictSources>>['list'],
  populationSource: string,
  prov: ProvenanceTable,
  stateCentre: Map<string, Row>,
  stateName: (fips: string) => string,
): Row[] {
  const cdProv = prov.id({
    population_source: populationSource,
    point_kind: 'internal_point',
    point_source: 'TIGER/Line 2022 internal point',
    definition: 'cd118',
  });
  const cdProvState = prov.id({
    population_source: populationSource,
    point_kind: 'population_center',
    point_source: 'Census 2020 state center of population (single-district jurisdiction)',
    definition: 'cd118',
  });
  const cds: Row[] = [];
  for (const r of cdList) {
    if (!/^\d{4}$/.test(r.cd_geoid)) continue;
    const lat = coord(r.intptlat);
    const st = stateCentre.get(r.state_fips);
    const name = r.acs2023_name || `Resident Commissioner District (at Large) (118th Congress), ${stateName(r.state_fips)}`;
    cds.push({
      fips: r.cd_geoid,
      name,
      // 118th Congress districts are the ACS tabulation districts for vintages 2022 and later.
      from: 2022,
      to: OPEN_VINTAGE,
      population: r.pop,
      lat: lat ?? st?.lat ?? null,
      lon: lat === null ? (st?.lon ?? null) : coord(r.intptlon),
      prov: lat === null ? cdProvState : cdProv,
    });
  }
  return cds;
}

/** District→tract shares, and the block groups of the tracts that districts split (the shared tree's derived files). */
async function readDistrictCrosswalks(sourceDir: string) {
  const cdTract = await readTable(sourceDir, 'geo/cd118/tract2020_to_cd118.csv.gz', ['tract_geoid', 'cd_geoid', 'afact']);
  const xwCd: GeoCrosswalks['cd_tract'] = { tract: [], cd: [], afact: [] };
  const splitTracts = new Set<string>();
  const seen = new Set<string>();
  for (const r of cdTract) {
    xwCd.tract.push(r.tract_geoid!);
    xwCd.cd.push(r.cd_geoid!);
    xwCd.afact.push(Number(r.afact));
    if (seen.has(r.tract_geoid!)) splitTracts.add(r.tract_geoid!);
    seen.add(r.tract_geoid!);
  }
  const cdBg = await readTable(sourceDir, 'geo/cd118/bg2020_to_cd118.csv.gz', ['bg_geoid', 'tract_geoid', 'cd_geoid']);
  const xwBg: GeoCrosswalks['cd_bg_split'] = { bg: [], cd: [] };
  for (const r of cdBg) {
    if (splitTracts.has(r.tract_geoid!)) {
      xwBg.bg.push(r.bg_geoid!);
      xwBg.cd.push(r.cd_geoid!);
    }
  }
  return { xwCd, xwBg };
}

/** The data's own geographies per vintage, over the reference definitions (rows replaced in `levelRows`). */
function overlayPublishedLevels(
  levelRows: Record<GeoType, Row[]>,
  published: PublishedGeographies | undefined,
  ctx: { prov: ProvenanceTable; abbrToFips: Map<string, string>; stateName: (fips: string) => string; log: StepLogger; notes: string[] },
): Partial<Record<GeoType, number[]>> {
  const { prov, abbrToFips, stateName, log, notes } = ctx;
  const publishedVintages: Partial<Record<GeoType, number[]>> = {};
  if (published) {
    const byLevel = publishedByLevel(published);
    for (const t of GEO_TYPES) {
      const r = overlayPublished(levelRows[t], byLevel[t], {
        type: t,
        provId: (p) => prov.id(p),
        provOf: (i) => prov.list[i]!,
        abbrToFips,
        fallbackName: (fips) =>
          t === 'metro'
            ? `CBSA ${fips}`
            : t === 'cd'
              ? `Congressional District ${fips.slice(2)}, ${stateName(fips.slice(0, 2))}`
              : `${t} ${fips}`,
      });
      levelRows[t] = r.rows;
      if (r.publishedVintages.length) publishedVintages[t] = r.publishedVintages;
      for (const n of r.notes) {
        notes.push(n);
        log.info(`geographies: ${n}`);
      }
    }
  } else {
    notes.push('No published geographies (observations/geographies.json) were found: the reference definitions only.');
  }
  return publishedVintages;
}

/** The file: every level as columns, the crosswalks, the row counts for the manifest. */
function assemble(
  prov: ProvenanceTable,
  levelRows: Record<GeoType, Row[]>,
  crosswalks: GeoCrosswalks,
  publishedVintages: Partial<Record<GeoType, number[]>>,
  notes: string[],
): { file: GeoFile; rows: Record<string, number> } {
  const levels: Record<GeoType, LevelColumns> = {
    nation: toColumns(levelRows.nation, true),
    state: toColumns(levelRows.state, true),
    county: toColumns(levelRows.county, true),
    metro: toColumns(levelRows.metro, true, true),
    cd: toColumns(levelRows.cd, true),
    tract: toColumns(levelRows.tract, false),
    block_group: toColumns(levelRows.block_group, false),
  };
  const rows: Record<string, number> = {};
  for (const t of GEO_TYPES) rows[`geo/${t}`] = levels[t].fips.length;
  rows['geo/crosswalks/metro_county'] = crosswalks.metro_county.cbsa.length;
  rows['geo/crosswalks/cd_tract'] = crosswalks.cd_tract.tract.length;
  rows['geo/crosswalks/ct_tract'] = crosswalks.ct_tract.tract2020.length;
  return {
    file: {
      format: GEO_FORMAT_VERSION,
      provenance: prov.list,
      levels,
      crosswalks,
      published: publishedVintages,
      notes,
    },
    rows,
  };
}

/**
 * `published`: the geographies the value files publish per partition (observations step); they
 * become the geographies of their vintage (etl/steps/geographies/published.ts). Without it the
 * file holds the reference files' definitions only.
 *
 * The steps run in this order because provenance ids are numbered as they are first used.
 */
export async function buildGeoFile(
  sourceDir: string,
  log: StepLogger,
  published?: PublishedGeographies,
): Promise<{ file: GeoFile; rows: Record<string, number> }> {
  const prov = new ProvenanceTable();
  const notes: string[] = [];
  const { bureau } = await chooseGeoSources(sourceDir);
  const st = await readStates(sourceDir, prov);
  const nation = nationRows(st.states, prov);
  // Tracts before counties: CT planning regions get their population and centre from their 2020 tracts.
  const ctRows = await readCtTracts(sourceDir, bureau);
  const { tracts, bgs, ctRegionParts } = await readTractsAndBlockGroups(sourceDir, log, prov, ctRows);
  const counties = await readCounties(sourceDir, log, prov, notes, st, ctRegionParts, bureau);
  const countyPop = new Map(counties.filter((c) => c.to === OPEN_VINTAGE).map((c) => [c.fips, c.population ?? 0]));
  const { metros, xwMetro } = await readMetros(sourceDir, prov, countyPop, st.abbrToFips, bureau);
  const districts = await readDistrictSources(sourceDir, bureau, { stateName: st.stateName, tracts, bgs });
  const cds = readDistricts(districts.list, districts.populationSource, prov, st.stateCentre, st.stateName);
  const { xwCd, xwBg } = districts;
  const xwCt: GeoCrosswalks['ct_tract'] = {
    tract2020: ctRows.map((r) => r.tract2020_geoid!),
    region: ctRows.map((r) => r.planning_region_fips!),
    tract2022: ctRows.map((r) => r.tract2022_geoid!),
  };
  const levelRows: Record<GeoType, Row[]> = {
    nation,
    state: st.states,
    county: counties,
    metro: metros,
    cd: cds,
    tract: tracts,
    block_group: bgs,
  };
  const publishedVintages = overlayPublishedLevels(levelRows, published, {
    prov,
    abbrToFips: st.abbrToFips,
    stateName: st.stateName,
    log,
    notes,
  });
  notes.push(
    `Metros: the CBSAs published in the value files for ACS ${publishedVintages.metro?.join(', ') || '(none)'}; the July 2023 OMB delineation for every other vintage (the only delineation in the sources). Metro→county membership is the July 2023 one.`,
    bureau.districts
      ? "Congressional districts are those of the 118th Congress (ACS 2022+); district→tract shares are land-area shares from the Bureau's relationship file (docs/sources.md)."
      : 'Congressional districts are those of the 118th Congress (ACS 2022+); district→tract shares are approximate (README §3c).',
    'County changes before 2010 are not modelled: the 2010 county list is used back to 2005.',
    "Every geography published in a vintage's value files is a geography of that vintage, named as published.",
  );
  const crosswalks = { metro_county: xwMetro, cd_tract: xwCd, cd_bg_split: xwBg, ct_tract: xwCt };
  return assemble(prov, levelRows, crosswalks, publishedVintages, notes);
}
