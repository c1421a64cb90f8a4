// Centroid points per level. Two kinds, never mixed within a level: `internal_point` (a point the
// Census places inside the shape: Gazetteer / TIGER INTPT) and `population_center` (2020 Census
// mean center of population, which may lie outside an oddly shaped area).
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import type { CentroidFileEntry } from '../../../src/store/boundaries/manifest.js';
import { InputError } from '../../step.js';
import type { FgbFeature } from './fgb.js';

export interface PlannedCentroids {
  entry: Omit<CentroidFileEntry, 'feature_count' | 'bytes' | 'sha256' | 'path'>;
  features: FgbFeature[];
}

async function readCsvFile(file: string): Promise<Record<string, string>[]> {
  const raw = await fs.readFile(file);
  const text = file.endsWith('.gz') ? zlib.gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return parse(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
}

function point(file: string, row: number, lat: string | undefined, lon: string | undefined, props: FgbFeature['properties']): FgbFeature {
  const y = Number(lat);
  const x = Number(lon);
  if (!lat || !lon || !Number.isFinite(x) || !Number.isFinite(y)) throw new InputError(file, `bad coordinates "${lat}", "${lon}"`, row);
  return { type: 'Feature', geometry: { type: 'Point', coordinates: [x, y] }, properties: props };
}

/** Census tract naming: code 020100 → "201", 020101 → "201.01". */
export function tractName(tractce: string): string {
  const base = String(Number(tractce.slice(0, 4)));
  const suffix = tractce.slice(4);
  return `Census Tract ${suffix === '00' ? base : `${base}.${suffix}`}`;
}

/** The files each centroid level reads; a level whose file is missing gets no centroid file. */
export const CENTROID_INPUTS = [
  'geo/cenpop/2020/state.csv',
  'geo/cenpop/2020/tract.csv.gz',
  'geo/cenpop/2020/block_group.csv.gz',
  'geo/gazetteer2023/counties.csv.gz',
  'geo/gazetteer2023/cbsa.csv.gz',
  'geo/cd118/cd118_list.csv',
];

export async function planCentroids(sourceDir: string, stateNames: Map<string, string>): Promise<PlannedCentroids[]> {
  // A level whose input is absent (a build from downloads alone) has no features: no file.
  return (await planAllCentroids(sourceDir, stateNames)).filter((c) => c.features.length > 0);
}

async function present(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

async function planAllCentroids(sourceDir: string, stateNames: Map<string, string>): Promise<PlannedCentroids[]> {
  const out: PlannedCentroids[] = [];
  const readCsv = async (file: string) => ((await present(file)) ? readCsvFile(file) : []);
  const cenpop = (lvl: string) => path.join(sourceDir, `geo/cenpop/2020/${lvl}.csv${lvl === 'state' ? '' : '.gz'}`);

  const stFile = cenpop('state');
  const stRows = await readCsv(stFile);
  const states = stRows.map((r, i) =>
    point(stFile, i + 1, r.LATITUDE, r.LONGITUDE, {
      geo_key: `state:${r.STATEFP}`,
      geoid: r.STATEFP!,
      name: r.STNAME!,
      source: 'cenpop2020',
    }),
  );
  out.push({
    entry: {
      level: 'state',
      kind: 'population_center',
      source: 'geo/cenpop/2020/state.csv (2020 Census centers of population)',
      vintage: '2020',
      derived: false,
      derivation: null,
    },
    features: states,
  });

  // The Census method for the national center: population-weighted mean latitude, and mean
  // longitude weighted by population × cos(latitude). The 50 states + DC (PR excluded, as Census does).
  let w = 0;
  let lat = 0;
  let lonW = 0;
  let lon = 0;
  for (const r of stRows) {
    if (r.STATEFP === '72') continue;
    const p = Number(r.POPULATION);
    const y = Number(r.LATITUDE);
    const x = Number(r.LONGITUDE);
    const c = Math.cos((y * Math.PI) / 180);
    w += p;
    lat += p * y;
    lonW += p * c;
    lon += p * c * x;
  }
  out.push({
    entry: {
      level: 'nation',
      kind: 'population_center',
      source: 'geo/cenpop/2020/state.csv',
      vintage: '2020',
      derived: true,
      derivation: 'population-weighted mean of the 2020 state centers of population (50 states + DC; longitude weighted by cos latitude)',
    },
    features:
      w === 0
        ? []
        : [
            {
              type: 'Feature',
              geometry: { type: 'Point', coordinates: [Math.round((lon / lonW) * 1e6) / 1e6, Math.round((lat / w) * 1e6) / 1e6] },
              properties: { geo_key: 'nation:1', geoid: '1', name: 'United States', source: 'cenpop2020 states' },
            },
          ],
  });

  const coFile = path.join(sourceDir, 'geo/gazetteer2023/counties.csv.gz');
  const counties = (await readCsv(coFile)).map((r, i) =>
    point(coFile, i + 1, r.Latitude, r.Longitude, {
      geo_key: `county:${r.GEOID}`,
      geoid: r.GEOID!,
      name: r.Name! + (stateNames.get(r.GEOID!.slice(0, 2)) ? `, ${stateNames.get(r.GEOID!.slice(0, 2))}` : ''),
      source: 'gazetteer2023',
    }),
  );
  out.push({
    entry: {
      level: 'county',
      kind: 'internal_point',
      source:
        'geo/gazetteer2023/counties.csv.gz Latitude/Longitude (2025 Gazetteer internal point; USGS GNIS county point where available)',
      vintage: '2025',
      derived: false,
      derivation: null,
    },
    features: counties,
  });

  const cbFile = path.join(sourceDir, 'geo/gazetteer2023/cbsa.csv.gz');
  const metros = (await readCsv(cbFile)).map((r, i) =>
    point(cbFile, i + 1, r.Latitude, r.Longitude, { geo_key: `metro:${r.GEOID}`, geoid: r.GEOID!, name: r.Name!, source: 'gazetteer2023' }),
  );
  out.push({
    entry: {
      level: 'metro',
      kind: 'internal_point',
      source: 'geo/gazetteer2023/cbsa.csv.gz Latitude/Longitude (2025 Gazetteer internal point)',
      vintage: '2025',
      derived: false,
      derivation: null,
    },
    features: metros,
  });

  const cdFile = path.join(sourceDir, 'geo/cd118/cd118_list.csv');
  const cds = (await readCsv(cdFile))
    .filter((r) => !r.cd_geoid!.endsWith('ZZ'))
    .map((r, i) => {
      const props = {
        geo_key: `cd:${r.cd_geoid}`,
        geoid: r.cd_geoid!,
        name: r.acs2023_name || `${r.namelsad_tiger2022}, ${r.state_name}`,
        source: 'cd118_list intpt',
      };
      if (r.intptlat) return point(cdFile, i + 1, r.intptlat, r.intptlon, props);
      // DC's and PR's at-large seats have no TIGER record (no intpt); the seat covers the whole
      // state, so its 2020 population center stands in, flagged per feature.
      const st = states.find((s) => s.properties.geoid === r.state_fips);
      if (!st) throw new InputError(cdFile, `district ${r.cd_geoid} has no internal point and no state center`, i + 1);
      return { ...st, properties: { ...props, source: 'cenpop2020 state (population center; no TIGER internal point)' } };
    });
  out.push({
    entry: {
      level: 'cd',
      kind: 'internal_point',
      source:
        'geo/cd118/cd118_list.csv intptlat/intptlon (TIGER/Line 2022 CD118 internal points; water parts ZZ excluded); DC 1198 and PR 7298 use the 2020 state population center',
      vintage: '2022',
      derived: false,
      derivation: null,
    },
    features: cds,
  });

  const trFile = cenpop('tract');
  const tracts = (await readCsv(trFile)).map((r, i) => {
    const geoid = `${r.STATEFP}${r.COUNTYFP}${r.TRACTCE}`;
    return point(trFile, i + 1, r.LATITUDE, r.LONGITUDE, {
      geo_key: `tract:${geoid}`,
      geoid,
      name: tractName(r.TRACTCE!),
      source: 'cenpop2020',
    });
  });
  out.push({
    entry: {
      level: 'tract',
      kind: 'population_center',
      source: 'geo/cenpop/2020/tract.csv.gz (2020 definitions; CT under the 8 legacy counties)',
      vintage: '2020',
      derived: false,
      derivation: null,
    },
    features: tracts,
  });

  const bgFile = cenpop('block_group');
  const bgs = (await readCsv(bgFile)).map((r, i) => {
    const geoid = `${r.STATEFP}${r.COUNTYFP}${r.TRACTCE}${r.BLKGRPCE}`;
    return point(bgFile, i + 1, r.LATITUDE, r.LONGITUDE, {
      geo_key: `block_group:${geoid}`,
      geoid,
      name: `Block Group ${r.BLKGRPCE}, ${tractName(r.TRACTCE!)}`,
      source: 'cenpop2020',
    });
  });
  out.push({
    entry: {
      level: 'block_group',
      kind: 'population_center',
      source: 'geo/cenpop/2020/block_group.csv.gz (2020 definitions; CT under the 8 legacy counties)',
      vintage: '2020',
      derived: false,
      derivation: null,
    },
    features: bgs,
  });
  return out;
}
