// Readers for the reference files of ../shared/census/geo (layout in its README §3), and the
// choice between the Bureau's own files and the shared tree's derived ones. Each returns
// plain rows keyed by the file's own column names; a missing column stops the build naming the file.
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { InputError } from '../../step.js';
import { BUREAU_GEO } from './bureau.js';

/** The reference files every build reads (census.gov's own files, in both trees). */
const COMMON_INPUTS = [
  'geo/state.txt',
  'geo/national_county_2010.txt',
  'geo/cbsa/list1_2023.xlsx',
  'geo/cenpop/2010/state.csv',
  'geo/cenpop/2010/county.csv.gz',
  'geo/cenpop/2010/tract.csv.gz',
  'geo/cenpop/2010/block_group.csv.gz',
  'geo/cenpop/2020/state.csv',
  'geo/cenpop/2020/county.csv.gz',
  'geo/cenpop/2020/tract.csv.gz',
  'geo/cenpop/2020/block_group.csv.gz',
] as const;

/**
 * Each group of the Bureau's own files (etl/online/reference-bureau.ts, read by ./bureau.ts) and
 * the derived files of ../shared/census that stand in when the Bureau's are absent (the shared
 * tree holds only the derived ones). A group is read from the Bureau's files when all of them
 * are in the source tree.
 */
export const GEO_ALTERNATIVES = {
  countyNames: { bureau: [BUREAU_GEO.counties], derived: ['geo/county_names_acs2023.csv.gz'] },
  cbsaPoints: { bureau: [BUREAU_GEO.cbsa], derived: ['geo/gazetteer2023/cbsa.csv.gz'] },
  districts: {
    bureau: [BUREAU_GEO.cdTract, BUREAU_GEO.cd],
    derived: ['geo/cd118/cd118_list.csv', 'geo/cd118/tract2020_to_cd118.csv.gz', 'geo/cd118/bg2020_to_cd118.csv.gz'],
  },
  ctRegions: { bureau: [BUREAU_GEO.ctBlockGroups], derived: ['geo/ct_tract2020_to_planning_region.csv'] },
} as const;

export type GeoAlternative = keyof typeof GEO_ALTERNATIVES;

/** Which groups come from the Bureau's files in `sourceDir`, and the files the step reads. */
export async function chooseGeoSources(sourceDir: string): Promise<{ bureau: Record<GeoAlternative, boolean>; inputs: string[] }> {
  const exists = (rel: string) =>
    fs.access(path.join(sourceDir, rel)).then(
      () => true,
      () => false,
    );
  const bureau = {} as Record<GeoAlternative, boolean>;
  const inputs: string[] = [...COMMON_INPUTS];
  for (const [k, alt] of Object.entries(GEO_ALTERNATIVES) as [GeoAlternative, (typeof GEO_ALTERNATIVES)[GeoAlternative]][]) {
    bureau[k] = (await Promise.all(alt.bureau.map(exists))).every(Boolean);
    inputs.push(...(bureau[k] ? alt.bureau : alt.derived));
  }
  return { bureau, inputs };
}

/** Every file the step may read (both forms of each group). */
export const GEO_INPUTS = [...COMMON_INPUTS, ...Object.values(GEO_ALTERNATIVES).flatMap((a) => [...a.bureau, ...a.derived])] as const;

export type GeoInput = string;

async function readText(sourceDir: string, rel: string): Promise<string> {
  const buf = await fs.readFile(path.join(sourceDir, rel));
  return (rel.endsWith('.gz') ? zlib.gunzipSync(buf) : buf).toString('utf8');
}

/** Rows of a headed CSV (or `|`-delimited) file, checking that the expected columns exist. */
export async function readTable(sourceDir: string, rel: GeoInput, columns: string[], delimiter = ','): Promise<Record<string, string>[]> {
  const text = await readText(sourceDir, rel);
  const rows = parse(text, {
    columns: true,
    delimiter,
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n'],
    relax_quotes: false,
  }) as Record<string, string>[];
  const first = rows[0];
  if (!first) throw new InputError(rel, 'file has no rows');
  for (const c of columns) {
    if (!(c in first)) throw new InputError(rel, `missing column "${c}" (found: ${Object.keys(first).join(', ')})`);
  }
  return rows;
}

/** national_county_2010.txt has no header: STUSAB,STATEFP,COUNTYFP,NAME,CLASSFP. */
export async function readNationalCounty2010(sourceDir: string): Promise<{ stusab: string; fips: string; name: string }[]> {
  const rel = 'geo/national_county_2010.txt';
  const rows = parse(await readText(sourceDir, rel), { skip_empty_lines: true }) as string[][];
  return rows.map((r, i) => {
    const [stusab, st, co, name] = r;
    if (!stusab || !st || !co || !name || !/^\d{2}$/.test(st) || !/^\d{3}$/.test(co)) {
      throw new InputError(rel, `expected STUSAB,STATEFP,COUNTYFP,NAME,CLASSFP`, i + 1);
    }
    return { stusab, fips: st + co, name };
  });
}

/** Census writes coordinates signed and zero-padded (`-086.486302`); Number() reads that. */
export function coord(s: string | undefined): number | null {
  if (s === undefined || s.trim() === '') return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

export function intOrNull(s: string | undefined): number | null {
  if (s === undefined || s.trim() === '') return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}
