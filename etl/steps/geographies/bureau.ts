// Readers for the Bureau's own reference files (etl/online/reference-bureau.ts), each returning
// the rows the geographies step builds from, so the step has one code path whichever tree the
// files came from. Each reader follows the Bureau's record layout (docs/sources.md, "Reference
// files"); a missing column stops the build naming the file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import readXlsxFile from 'read-excel-file/node';
import { InputError } from '../../step.js';

/** Census text: UTF-8 (older files Latin-1), maybe with a byte-order mark. */
function decodeText(buf: Uint8Array): string {
  const bytes = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? buf.subarray(3) : buf;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes).toString('latin1');
  }
}

/**
 * A headed delimited text (the Gazetteer's tabs, the relationship files' pipes). Neither format
 * quotes fields; the Gazetteer pads its last column with blanks, so every field is trimmed.
 */
function parseDelimited(text: string, delimiter: string, rel: string, columns: string[]): Record<string, string>[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = (lines[0] ?? '').split(delimiter).map((h) => h.trim());
  for (const c of columns) if (!header.includes(c)) throw new InputError(rel, `missing column "${c}" (found: ${header.join(', ')})`);
  return lines.slice(1).map((line, i) => {
    const cells = line.split(delimiter);
    if (cells.length !== header.length) throw new InputError(rel, `${cells.length} fields, the header has ${header.length}`, i + 2);
    return Object.fromEntries(header.map((h, j) => [h, cells[j]!.trim()]));
  });
}

/** The one `.txt` inside a Gazetteer zip (`2023_Gaz_counties_national.zip` → `…national.txt`). */
async function readGazetteer(sourceDir: string, rel: string, columns: string[]): Promise<Record<string, string>[]> {
  const files = unzipSync(await fs.readFile(path.join(sourceDir, rel)));
  const txt = Object.keys(files).find((n) => n.endsWith('.txt'));
  if (!txt) throw new InputError(rel, 'the archive holds no .txt file');
  return parseDelimited(decodeText(files[txt]!), '\t', rel, columns);
}

async function readPipeFile(sourceDir: string, rel: string, columns: string[]): Promise<Record<string, string>[]> {
  return parseDelimited(decodeText(await fs.readFile(path.join(sourceDir, rel))), '|', rel, columns);
}

export const BUREAU_GEO = {
  counties: 'geo/gazetteer/2023_Gaz_counties_national.zip',
  cbsa: 'geo/gazetteer/2023_Gaz_cbsa_national.zip',
  cd: 'geo/gazetteer/2023_Gaz_118CDs_national.zip',
  cdTract: 'geo/rel2020/cd-sld/tab20_cd11820_tract20_natl.txt',
  ctBlockGroups: 'geo/rel2022/acs22_cousub22_blkgrp20_st09.txt',
  list1: 'geo/cbsa/list1_2023.xlsx',
} as const;

/**
 * County names of the 2023 county universe (the ACS 2023 geographies) as `GEO_ID,NAME` rows:
 * the Gazetteer's NAME ("Travis County") with the state's name, as the Data API's NAME writes it.
 */
export async function readGazetteerCountyNames(
  sourceDir: string,
  stateName: (fips: string) => string,
): Promise<{ GEO_ID: string; NAME: string }[]> {
  const rows = await readGazetteer(sourceDir, BUREAU_GEO.counties, ['USPS', 'GEOID', 'NAME']);
  return rows.map((r, i) => {
    if (!/^\d{5}$/.test(r.GEOID!)) throw new InputError(BUREAU_GEO.counties, `GEOID "${r.GEOID}" is not a county code`, i + 2);
    return { GEO_ID: `0500000US${r.GEOID}`, NAME: `${r.NAME}, ${stateName(r.GEOID!.slice(0, 2))}` };
  });
}

/** CBSA internal points from the Gazetteer: GEOID → INTPTLAT, INTPTLONG. */
export async function readGazetteerCbsaPoints(sourceDir: string): Promise<Map<string, { lat: string; lon: string }>> {
  const rows = await readGazetteer(sourceDir, BUREAU_GEO.cbsa, ['GEOID', 'INTPTLAT', 'INTPTLONG']);
  return new Map(rows.map((r) => [r.GEOID!, { lat: r.INTPTLAT!, lon: r.INTPTLONG! }]));
}

export const LIST1_COLUMNS = [
  'CBSA Code',
  'CBSA Title',
  'Metropolitan/Micropolitan Statistical Area',
  'FIPS State Code',
  'FIPS County Code',
  'Central/Outlying County',
];

/**
 * The delineation table of OMB's List 1 workbook as published: title rows, the header row
 * (`CBSA Code`, …), one row per county, then blank and note rows. Codes are text in the
 * workbook; a numeric cell gets its leading zeros back.
 */
export async function readList1Xlsx(sourceDir: string): Promise<Record<string, string>[]> {
  const rel = BUREAU_GEO.list1;
  const sheets = await readXlsxFile(await fs.readFile(path.join(sourceDir, rel)));
  const data = sheets[0]?.data ?? [];
  const h = data.findIndex((row) => row[0] === 'CBSA Code');
  if (h < 0) throw new InputError(rel, 'no header row starting with "CBSA Code"');
  const header = data[h]!.map((c) => String(c ?? '').trim());
  for (const c of LIST1_COLUMNS) if (!header.includes(c)) throw new InputError(rel, `missing column "${c}"`);
  const width: Record<string, number> = {
    'CBSA Code': 5,
    'Metropolitan Division Code': 5,
    'CSA Code': 3,
    'FIPS State Code': 2,
    'FIPS County Code': 3,
  };
  const out: Record<string, string>[] = [];
  for (const row of data.slice(h + 1)) {
    if (row.every((c) => c === null || String(c).trim() === '')) break; // the table ends; notes follow
    out.push(
      Object.fromEntries(
        header.map((name, j) => {
          const c = row[j];
          const s = c === null || c === undefined ? '' : String(c);
          return [name, typeof c === 'number' && width[name] ? s.padStart(width[name], '0') : s];
        }),
      ),
    );
  }
  return out;
}

/** One row of the derived district list, as the step reads it. */
export interface DistrictRow {
  cd_geoid: string;
  state_fips: string;
  acs2023_name: string;
  intptlat: string;
  intptlon: string;
  pop2020: number;
}

/**
 * The 118th Congress districts and their 2020 tracts from the CD-SLD relationship file
 * (`tab20_cd11820_tract20_natl.txt`, one row per district × tract part, with the part's land
 * area AREALAND_PART). A tract's share of a district (`afact`) is the share of the tract's land
 * in that district: AREALAND_PART / AREALAND_TRACT_20, or the water share for an all-water tract.
 * Parts in a water-only `ZZ` district are not geographies and are left out; the shares of the
 * remaining parts are scaled to sum to 1. A district's population is its tracts' 2020
 * populations times their shares.
 *
 * Block groups of split tracts: the file stops at tracts, so each block group of a split tract
 * is placed in the district holding the largest land part of its tract (an approximation;
 * docs/sources.md).
 */
export async function readCdRelationship(
  sourceDir: string,
  ctx: { stateName: (fips: string) => string; tractPop2020: Map<string, number | null>; bgsOfTract: Map<string, string[]> },
): Promise<{
  districts: DistrictRow[];
  tract: string[];
  cd: string[];
  afact: number[];
  splitBgs: { bg: string[]; cd: string[] };
}> {
  const rows = await readPipeFile(sourceDir, BUREAU_GEO.cdTract, [
    'GEOID_CD118_20',
    'NAMELSAD_CD118_20',
    'GEOID_TRACT_20',
    'AREALAND_TRACT_20',
    'AREAWATER_TRACT_20',
    'AREALAND_PART',
    'AREAWATER_PART',
  ]);
  const points = new Map((await readGazetteer(sourceDir, BUREAU_GEO.cd, ['GEOID', 'INTPTLAT', 'INTPTLONG'])).map((r) => [r.GEOID!, r]));
  const parts = new Map<string, { cd: string; land: number; water: number }[]>();
  const names = new Map<string, string>();
  for (const r of rows) {
    const cd = r.GEOID_CD118_20!;
    if (!/^\d{4}$/.test(cd)) continue; // ZZ: water not in any district
    names.set(cd, r.NAMELSAD_CD118_20!);
    const t = r.GEOID_TRACT_20!;
    const list = parts.get(t) ?? [];
    list.push({ cd, land: Number(r.AREALAND_PART), water: Number(r.AREAWATER_PART) });
    parts.set(t, list);
  }
  const out = { tract: [] as string[], cd: [] as string[], afact: [] as number[], splitBgs: { bg: [] as string[], cd: [] as string[] } };
  const pop = new Map<string, number>();
  for (const [tract, ps] of [...parts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const land = ps.reduce((a, p) => a + p.land, 0);
    const by = land > 0 ? (p: (typeof ps)[number]) => p.land : (p: (typeof ps)[number]) => p.water;
    const total = ps.reduce((a, p) => a + by(p), 0);
    ps.sort((a, b) => by(b) - by(a) || (a.cd < b.cd ? -1 : 1));
    for (const p of ps) {
      const afact = total > 0 ? Math.round((by(p) / total) * 1e6) / 1e6 : 1 / ps.length;
      out.tract.push(tract);
      out.cd.push(p.cd);
      out.afact.push(afact);
      pop.set(p.cd, (pop.get(p.cd) ?? 0) + (ctx.tractPop2020.get(tract) ?? 0) * afact);
    }
    if (ps.length > 1)
      for (const bg of ctx.bgsOfTract.get(tract) ?? []) {
        out.splitBgs.bg.push(bg);
        out.splitBgs.cd.push(ps[0]!.cd);
      }
  }
  const districts = [...names].map(([cd, namelsad]): DistrictRow => {
    const p = points.get(cd);
    return {
      cd_geoid: cd,
      state_fips: cd.slice(0, 2),
      // The Data API's NAME of a 118th Congress district: "Congressional District 35 (118th Congress), Texas".
      acs2023_name: `${namelsad} (118th Congress), ${ctx.stateName(cd.slice(0, 2))}`,
      intptlat: p?.INTPTLAT ?? '',
      intptlon: p?.INTPTLONG ?? '',
      pop2020: Math.round(pop.get(cd) ?? 0),
    };
  });
  return { districts, ...out };
}

/**
 * Connecticut's 2020 tracts in the 2022 planning regions, from the 2022 Connecticut relationship
 * file of county subdivisions (GEOID_COUSUB_22 = state, planning region, town) and 2020 block
 * groups (GEOID_BLKGRP_20 = state, legacy county, tract, block group). A tract goes to the region
 * holding most of its land (its water for an all-water tract); its 2022 code is that region's
 * code with the tract code unchanged, as the Bureau re-keyed them.
 */
export async function readCtRelationship(
  sourceDir: string,
): Promise<{ tract2020_geoid: string; planning_region_fips: string; tract2022_geoid: string }[]> {
  const rows = await readPipeFile(sourceDir, BUREAU_GEO.ctBlockGroups, [
    'GEOID_COUSUB_22',
    'GEOID_BLKGRP_20',
    'AREALAND_PART',
    'AREAWATER_PART',
  ]);
  const byTract = new Map<string, Map<string, { land: number; water: number }>>();
  for (const r of rows) {
    const tract = r.GEOID_BLKGRP_20!.slice(0, 11);
    const region = r.GEOID_COUSUB_22!.slice(0, 5);
    if (!/^09\d{9}$/.test(tract) || !/^09\d{3}$/.test(region))
      throw new InputError(BUREAU_GEO.ctBlockGroups, `not Connecticut codes: ${tract}, ${region}`);
    const m = byTract.get(tract) ?? new Map<string, { land: number; water: number }>();
    const a = m.get(region) ?? { land: 0, water: 0 };
    a.land += Number(r.AREALAND_PART);
    a.water += Number(r.AREAWATER_PART);
    m.set(region, a);
    byTract.set(tract, m);
  }
  return [...byTract]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([tract, m]) => {
      const best = [...m].sort(([ra, a], [rb, b]) => b.land - a.land || b.water - a.water || (ra < rb ? -1 : 1))[0]![0];
      return { tract2020_geoid: tract, planning_region_fips: best, tract2022_geoid: best + tract.slice(5) };
    });
}

/** The short name of a CBSA title: its first principal city and first state ("Austin, TX"). */
export function cbsaShortName(title: string): string {
  const comma = title.lastIndexOf(', ');
  return `${title.slice(0, comma).split(/[-/]/)[0]}, ${title.slice(comma + 2).split('-')[0]}`;
}
