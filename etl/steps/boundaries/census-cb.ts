// The Census Bureau's cartographic boundary shapefiles (cb_{YYYY}_{us|ss}_{level}_{scale}.zip) as
// served boundary files. Online builds download them into `boundaries/census_cb/` (etl/online/
// shapes.ts); when a level has such files they are its source, otherwise the shared tree's
// sources are (levels.ts). Fields as in the Bureau's file layouts (docs/sources.md): GEOID, NAME,
// NAMELSAD (2020+), STATEFP, TRACTCE, BLKGRPCE; AFFGEOID (GEOIDFQ from 2023) is not needed.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AbsentSlot, BoundaryFileEntry, BoundaryLevel, Resolution } from '../../../src/store/boundaries/manifest.js';
import { InputError } from '../../step.js';
import { tractName } from './centroids.js';
import { FgbSpool, type FgbFeature } from './fgb.js';
import { simplifyGeometry, TOLERANCE_DEG } from './simplify.js';
import { eachShapefileFeature, readShapefileZip, type AnyFeature } from './sources.js';

/**
 * One served boundary file before it is written: its index entry and its features, in memory or
 * (tracts and block groups, national at most) already encoded in a spool on disk.
 */
export interface PlannedFile {
  entry: Omit<BoundaryFileEntry, 'feature_count' | 'bytes' | 'sha256' | 'path'>;
  features: FgbFeature[] | FgbSpool;
}

/** Where small-area levels spool their features, and a report after each source file is read (tests, progress). */
export interface SpoolOptions {
  spoolDir: string;
  onSourceRead?: (report: { file: CbFile; features: number; spools: FgbSpool[] }) => void;
}

export const CB_DIR = 'boundaries/census_cb';
export const CB_NAME = /^cb_(\d{4})_(us|\d\d)_(state|county|cbsa|cd118|nation|tract|bg)_(500k|5m|20m)\.zip$/;

export interface CbFile {
  /** Relative to the source root. */
  rel: string;
  name: string;
  year: number;
  /** `us` or a state FIPS. */
  scope: string;
  level: BoundaryLevel;
  scale: Resolution;
}

const LEVEL_OF: Record<string, BoundaryLevel> = {
  state: 'state',
  county: 'county',
  cbsa: 'metro',
  cd118: 'cd',
  nation: 'nation',
  tract: 'tract',
  bg: 'block_group',
};

/** Every cartographic boundary zip in the source tree, sorted by name (none: an empty list). */
export async function listCbFiles(sourceDir: string): Promise<CbFile[]> {
  let names: string[];
  try {
    names = await fs.readdir(path.join(sourceDir, CB_DIR));
  } catch {
    return [];
  }
  return names
    .sort()
    .map((name) => ({ name, m: CB_NAME.exec(name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .map(({ name, m }) => ({
      rel: `${CB_DIR}/${name}`,
      name,
      year: Number(m[1]),
      scope: m[2]!,
      level: LEVEL_OF[m[3]!]!,
      scale: m[4] as Resolution,
    }));
}

const REQUIRED: Partial<Record<BoundaryLevel, string[]>> = {
  nation: [],
  state: ['GEOID', 'NAME'],
  county: ['GEOID', 'NAME'],
  metro: ['GEOID', 'NAME'],
  cd: ['GEOID'],
  tract: ['GEOID', 'TRACTCE'],
  block_group: ['GEOID', 'TRACTCE', 'BLKGRPCE'],
};

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim());

/** geo key, GEOID and name of one cb feature, by level (names as the service's other sources give them). */
function identify(level: BoundaryLevel, p: Record<string, unknown>, stateNames: Map<string, string>) {
  const geoid = str(p.GEOID);
  const st = stateNames.get(geoid.slice(0, 2));
  const withState = (n: string) => (st ? `${n}, ${st}` : n);
  switch (level) {
    case 'nation':
      return { key: 'nation:1', geoid: '1', name: 'United States' };
    case 'state':
      return { key: `state:${geoid}`, geoid, name: str(p.NAME) };
    case 'county':
      return { key: `county:${geoid}`, geoid, name: withState(str(p.NAMELSAD) || str(p.NAME)) };
    case 'metro':
      return { key: `metro:${geoid}`, geoid, name: str(p.NAME) };
    case 'cd':
      return { key: `cd:${geoid}`, geoid, name: withState(str(p.NAMELSAD) || `Congressional District ${geoid.slice(2)}`) };
    case 'tract':
      return { key: `tract:${geoid}`, geoid, name: tractName(str(p.TRACTCE)) };
    case 'block_group':
      return { key: `block_group:${geoid}`, geoid, name: `Block Group ${str(p.BLKGRPCE)}, ${tractName(str(p.TRACTCE))}` };
  }
}

/** One cb feature as a served feature (its fields checked against the level's layout). */
function cbFeature(file: string, f: CbFile, x: AnyFeature, stateNames: Map<string, string>): FgbFeature {
  const g = x.geometry;
  const p = x.properties ?? {};
  // The fields the names are made of (the Bureau's layouts, docs/sources.md): missing = not a cb file of this level.
  for (const field of REQUIRED[f.level] ?? [])
    if (!str(p[field])) throw new InputError(file, `a feature without ${field} (not the Bureau's ${f.level} layout)`);
  const id = identify(f.level, p, stateNames);
  if (!g || (g.type !== 'Polygon' && g.type !== 'MultiPolygon')) throw new InputError(file, `feature ${id.geoid} has no polygon geometry`);
  return {
    type: 'Feature',
    geometry: g,
    properties: { geo_key: id.key, geoid: id.geoid, name: id.name, source: f.name.slice(0, -4) },
  };
}

async function readCb(sourceDir: string, f: CbFile, stateNames: Map<string, string>): Promise<FgbFeature[]> {
  const file = path.join(sourceDir, f.rel);
  return (await readShapefileZip(file)).map((x) => cbFeature(file, f, x, stateNames));
}

/** State FIPS → name from a cb state file (the finest present), for naming the other levels. */
export async function cbStateNames(sourceDir: string, files: CbFile[]): Promise<Map<string, string> | undefined> {
  const f = files.filter((x) => x.level === 'state').sort((a, b) => SCALES.indexOf(a.scale) - SCALES.indexOf(b.scale))[0];
  if (!f) return undefined;
  const names = new Map<string, string>();
  for (const x of await readShapefileZip(path.join(sourceDir, f.rel))) names.set(str(x.properties?.GEOID), str(x.properties?.NAME));
  return names;
}

const SCALES: Resolution[] = ['500k', '5m', '20m'];
const TRUE_RES: Record<Resolution, string> = { '500k': '500k', '5m': '5m', '20m': '20m' };

function derivationOf(res: '5m' | '20m', from: string): string {
  return `Douglas–Peucker simplification, tolerance ${TOLERANCE_DEG[res]}° per ring (etl/steps/boundaries/simplify.ts), from ${from}`;
}

/**
 * The served files of one national level (state, county, metro, cd, nation) from its cb files of
 * one year: each slot from the Bureau's file at that scale, else simplified from a finer one, else
 * absent.
 */
export async function cbNationalLevel(
  sourceDir: string,
  level: BoundaryLevel,
  files: CbFile[],
  stateNames: Map<string, string>,
): Promise<{ files: PlannedFile[]; absent: AbsentSlot[] }> {
  const year = Math.max(...files.map((f) => f.year));
  const mine = files.filter((f) => f.year === year);
  const out: PlannedFile[] = [];
  const absent: AbsentSlot[] = [];
  let finer: { f: CbFile; features: FgbFeature[] } | undefined;
  for (const scale of SCALES) {
    const f = mine.find((x) => x.scale === scale);
    const base = { level, resolution: scale, edition: String(year), default: true, boundary_vintage: String(year), served: true, gaps: [] };
    if (f) {
      const features = await readCb(sourceDir, f, stateNames);
      finer ??= { f, features };
      out.push({
        entry: {
          ...base,
          source: `Census cartographic boundary file ${f.name} (shapefile, NAD83)`,
          true_resolution: TRUE_RES[scale],
          derived: false,
          derivation: null,
        },
        features,
      });
    } else if (finer && scale !== '500k') {
      out.push({
        entry: {
          ...base,
          source: `Census cartographic boundary file ${finer.f.name}, simplified`,
          true_resolution: `${scale} (derived)`,
          derived: true,
          derivation: derivationOf(scale, finer.f.name),
        },
        features: simplify(finer.features, scale),
      });
    } else
      absent.push({
        level,
        resolution: scale,
        reason:
          level === 'nation' && scale === '500k'
            ? 'the Bureau publishes the nation outline at 5m and 20m only'
            : `no cartographic ${level} file of ${year} at ${scale} or finer in this build`,
      });
  }
  return { files: out, absent };
}

function simplifyOne(f: FgbFeature, res: '5m' | '20m'): FgbFeature {
  return {
    ...f,
    geometry: simplifyGeometry(f.geometry, TOLERANCE_DEG[res]),
    properties: { ...f.properties, source: `${f.properties.source} simplified` },
  };
}

function simplify(features: FgbFeature[], res: '5m' | '20m'): FgbFeature[] {
  return features.map((f) => simplifyOne(f, res));
}

/**
 * Tract or block-group editions, one per GENZ year present (definitions: 2020 from GENZ2020 on,
 * 2010 before): the 500k file is the per-state files joined; 5m and 20m are derived from it.
 * `extra` adds features of another source for states the download does not cover (the shared
 * tree's 2010-definition tracts), recorded in the entry's source.
 *
 * Streamed: each state's zip is read one feature at a time, and each feature goes, encoded, into
 * the spools of the three files (500k as read, 5m and 20m simplified) and is then dropped. Memory
 * is one state's zip plus a few dozen bytes a feature, whatever the number of states.
 */
export async function cbSmallAreaLevel(
  sourceDir: string,
  level: 'tract' | 'block_group',
  files: CbFile[],
  stateNames: Map<string, string>,
  spool: SpoolOptions,
  extra?: (year: number, covered: Set<string>) => Promise<{ features: FgbFeature[]; source: string } | undefined>,
): Promise<PlannedFile[]> {
  const out: PlannedFile[] = [];
  const years = [...new Set(files.map((f) => f.year))].sort((a, b) => b - a);
  for (const year of years) {
    const mine = files.filter((f) => f.year === year && f.scale === '500k');
    const spoolOf = (res: Resolution) => new FgbSpool(path.join(spool.spoolDir, `${level}-${year}-${res}.spool`));
    const full = spoolOf('500k');
    const derived = { '5m': spoolOf('5m'), '20m': spoolOf('20m') };
    const add = async (x: FgbFeature) => {
      await full.add(x);
      for (const res of ['5m', '20m'] as const) await derived[res].add(simplifyOne(x, res));
    };
    const spools = [full, derived['5m'], derived['20m']];
    for (const f of mine) {
      const file = path.join(sourceDir, f.rel);
      const n = await eachShapefileFeature(file, (x) => add(cbFeature(file, f, x, stateNames)));
      for (const s of spools) await s.flush();
      spool.onSourceRead?.({ file: f, features: n, spools });
    }
    const covered = new Set(mine.map((f) => f.scope));
    const more = await extra?.(year, covered);
    if (more) for (const x of more.features) await add(x);
    const definitions = year >= 2020 ? '2020' : '2010';
    const what = level === 'tract' ? 'tract' : 'bg';
    const source = `Census cartographic boundary files cb_${year}_{SS}_${what}_500k.zip (shapefile, NAD83), ${mine.length} states: ${[...covered].join(',')}${more ? `; other states: ${more.source}` : ''}`;
    const base = {
      level,
      edition: String(year),
      // The newest definitions are the default edition; older ones stay reachable by edition/vintage.
      default: year === years[0],
      boundary_vintage: String(year),
      definition_vintage: definitions,
      served: true,
      gaps: [
        `${definitions} definitions (ACS vintages ${definitions === '2020' ? 'from 2020' : '2010–2019'}); states: ${[...covered].join(',')}`,
      ],
    };
    out.push({ entry: { ...base, resolution: '500k', source, true_resolution: '500k', derived: false, derivation: null }, features: full });
    for (const res of ['5m', '20m'] as const)
      out.push({
        entry: {
          ...base,
          resolution: res,
          source,
          true_resolution: `${res} (derived)`,
          derived: true,
          derivation: derivationOf(res, `cb_${year}_{SS}_${what}_500k`),
        },
        features: derived[res],
      });
  }
  return out;
}
