// The Census Bureau's cartographic boundary shapefiles an online selection downloads (issue 34 §1):
// tracts and block groups per state at 1:500,000, and the national files of the other levels at
// each published scale. Layout and names follow the Bureau's "Cartographic Boundary Files —
// Shapefile" technical documentation (docs/sources.md, "Cartographic boundary files"):
//   /geo/tiger/GENZ{YYYY}/shp/cb_{YYYY}_{ss}_{tract|bg}_500k.zip      one per state (2-digit FIPS)
//   /geo/tiger/GENZ{YYYY}/shp/cb_{YYYY}_us_{level}_{500k|5m|20m}.zip  national files
// Each zip is stored in the cache verbatim under `boundaries/census_cb/` and read by the
// boundaries step (etl/steps/boundaries/census-cb.ts) with the same shapefile reader as the
// shared tree's Census zips.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { BodyError } from './apibody.js';
import type { Level } from './plan.js';
import type { ReferenceFile } from './reference.js';
import type { Selection } from './selection.js';
import { CB_DIR, CB_NAME } from '../steps/boundaries/census-cb.js';
import { SHARED_MARKER } from '../steps/boundaries/levels.js';
import { STATE_CODES } from './selection.js';

// Where the zips sit in the source tree (a directory ../shared/census does not have) and their names.
export { CB_DIR, CB_NAME } from '../steps/boundaries/census-cb.js';

/**
 * The GENZ year read for each decade of tract and block-group definitions:
 * - 2010 definitions (ACS vintages 2010–2019): GENZ2019, the last cartographic release on them,
 *   carrying every correction of the decade (e.g. Oglala Lakota County, 46102, from 2015).
 * - 2020 definitions (ACS vintages from 2020): GENZ2023, the release of the service's default
 *   county edition and of the July 2023 CBSA delineation; its Connecticut tracts carry the
 *   planning-region county codes (091xx) the ACS has used since 2022.
 */
export const GENZ_FOR_DEFINITIONS = { 2010: 2019, 2020: 2023 } as const;
export type Definitions = keyof typeof GENZ_FOR_DEFINITIONS;

/** The national files: their GENZ year, and the scales the Bureau publishes them at. */
export const NATIONAL_GENZ = 2023;
const NATIONAL: Record<'state' | 'county' | 'metro' | 'cd' | 'nation', { name: string; scales: string[] }> = {
  state: { name: 'state', scales: ['500k', '5m', '20m'] },
  county: { name: 'county', scales: ['500k', '5m', '20m'] },
  metro: { name: 'cbsa', scales: ['500k', '5m', '20m'] },
  cd: { name: 'cd118', scales: ['500k', '5m', '20m'] },
  // The nation outline is published at 5m and 20m only.
  nation: { name: 'nation', scales: ['5m', '20m'] },
};

/**
 * Files of the shared tree that already give a level its shapes: when the fallback holds them, the
 * national file is not downloaded (an operator adding one state's tracts keeps the default shapes).
 * Counties and the nation come from the npm us-atlas packages, used only beside a shared tree.
 */
const FALLBACK_SHAPES: Record<keyof typeof NATIONAL, string> = {
  state: 'boundaries/cb_2020_us_state_20m.zip',
  county: SHARED_MARKER,
  metro: SHARED_MARKER,
  cd: 'boundaries/cd118',
  nation: SHARED_MARKER,
};

/** The ReferenceFile of a `boundaries/census_cb/cb_….zip` path, or undefined for any other path. */
export function cbReference(p: string): ReferenceFile | undefined {
  if (path.posix.dirname(p) !== CB_DIR) return undefined;
  const m = CB_NAME.exec(path.posix.basename(p));
  if (!m) return undefined;
  return {
    path: p,
    url: `/geo/tiger/GENZ${m[1]}/shp/${path.posix.basename(p)}`,
    transform: 'verbatim',
    note: `Census cartographic boundary file ${path.posix.basename(p)}`,
  };
}

const cbPath = (year: number, scope: string, name: string, scale: string) => `${CB_DIR}/cb_${year}_${scope}_${name}_${scale}.zip`;

/** The definitions an ACS vintage's tracts and block groups are drawn on. */
export function definitionsOf(vintage: number): Definitions {
  return vintage >= 2020 ? 2020 : 2010;
}

/**
 * The cartographic boundary zips a selection needs: tract / block-group files of each selected
 * state for each decade of definitions its vintages use, and the national files of the selected
 * levels (the state file always: it names and bounds everything else) that `fallbackDir` does not
 * already cover.
 */
export function shapePaths(sel: Pick<Selection, 'vintages' | 'levels' | 'states'>, fallbackDir: string): string[] {
  const out: string[] = [];
  const defs = [...new Set(sel.vintages.map(definitionsOf))].sort();
  for (const level of ['tract', 'block_group'] as const satisfies readonly Level[]) {
    if (!sel.levels.includes(level)) continue;
    for (const d of defs)
      for (const st of sel.states ?? STATE_CODES) out.push(cbPath(GENZ_FOR_DEFINITIONS[d], st, level === 'tract' ? 'tract' : 'bg', '500k'));
  }
  for (const level of Object.keys(NATIONAL) as Array<keyof typeof NATIONAL>) {
    if (level !== 'state' && !sel.levels.includes(level)) continue;
    if (existsSync(path.join(fallbackDir, FALLBACK_SHAPES[level]))) continue;
    for (const scale of NATIONAL[level].scales) out.push(cbPath(NATIONAL_GENZ, 'us', NATIONAL[level].name, scale));
  }
  return out;
}

/**
 * Check that a body is a whole shapefile zip: the archive's central directory is there (a body cut
 * short loses it) and it lists a .shp, .shx and .dbf. Throws BodyError (retried) otherwise.
 */
export function checkShapefileZip(body: Buffer): void {
  const html = /^\s*<(!doctype|html)/i.test(body.subarray(0, 256).toString('latin1'));
  if (body.length < 22 || body.readUInt32LE(0) !== 0x04034b50) throw new BodyError(`not a zip archive${html ? ' (an HTML page)' : ''}`);
  let names: string[];
  try {
    // Reads the central directory and inflates every member, so a damaged member fails here too.
    names = Object.keys(unzipSync(new Uint8Array(body.buffer, body.byteOffset, body.byteLength)));
  } catch (err) {
    throw new BodyError(`a damaged or incomplete zip archive (${(err as Error).message})`);
  }
  for (const ext of ['.shp', '.shx', '.dbf'])
    if (!names.some((n) => n.toLowerCase().endsWith(ext))) throw new BodyError(`the zip holds no ${ext} file`);
}
