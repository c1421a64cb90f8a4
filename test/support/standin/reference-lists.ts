// census.gov's reference files for the stand-in's truth (census-standin.ts), in the Bureau's own
// formats, so a build with no ../shared gets its geography lists, names and crosswalks from the
// stand-in alone (issue 34 §1). The world is the truth's: its states, counties, metros, districts,
// tracts and block groups, named as the truth names them (the Data API's NAME); populations,
// points and land areas come from a hash of the seed. Each file follows its record layout
// (docs/sources.md, "Reference files"):
// - Gazetteer 2023 counties, CBSA and 118th Congress district files: a zip holding one
//   tab-delimited `.txt` with a header row (Gazetteer record layouts page);
// - the 2020 CD-SLD relationship file `tab20_cd11820_tract20_natl.txt` and the 2022 Connecticut
//   file `acs22_cousub22_blkgrp20_st09.txt`: pipe-delimited with a header row, one row per
//   overlapping part with AREALAND_PART (relationship file record layouts);
// - OMB's List 1 workbook: an xlsx whose sheet holds two title rows, the header row, one row per
//   county, a blank row and the notes;
// - the 2010 county list `national_county.txt` (no header) and the centers of population
//   `CenPop{2010,2020}_Mean_{ST,CO,TR,BG}.txt` (2020 with a UTF-8 byte-order mark).
import { createHash } from 'node:crypto';
import { zipSync, strToU8 } from 'fflate';
import type { EmulatorAnswer } from '../census-emulator.js';
import type { StandinGeography, StandinTruth } from '../census-standin.js';

/** State FIPS → USPS code (the Bureau's state.txt), for the states a truth may use. */
const USPS: Record<string, string> = Object.fromEntries(
  (
    '01AL 02AK 04AZ 05AR 06CA 08CO 09CT 10DE 11DC 12FL 13GA 15HI 16ID 17IL 18IN 19IA 20KS 21KY 22LA 23ME 24MD 25MA 26MI 27MN ' +
    '28MS 29MO 30MT 31NE 32NV 33NH 34NJ 35NM 36NY 37NC 38ND 39OH 40OK 41OR 42PA 44RI 45SC 46SD 47TN 48TX 49UT 50VT 51VA 53WA ' +
    '54WV 55WI 56WY 72PR'
  )
    .split(' ')
    .map((x) => [x.slice(0, 2), x.slice(2)]),
);

const GAZ = '/geo/docs/maps-data/data/gazetteer/2023_Gazetteer/';

/** A number from the hash of the seed and a key, in [0, n). */
function h(truth: StandinTruth, key: string, n: number): number {
  return createHash('sha256').update(`${truth.opts.seed}|ref|${key}`).digest().readUInt32BE(0) % n;
}

/** Census coordinates: signed, longitude zero-padded to 3 digits (`+30.123456`, `-097.123456`). */
const censusCoord = (x: number, intDigits: number) =>
  `${x < 0 ? '-' : '+'}${Math.abs(x)
    .toFixed(6)
    .padStart(intDigits + 7, '0')}`;

/** A point of a geography: inside a 1° box per state, so every file places it alike. */
function point(truth: StandinTruth, fips: string): { lat: string; lon: string; latN: number; lonN: number } {
  const latN = 30 + h(truth, `lat${fips}`, 1_000_000) / 1e6;
  const lonN = -97 - h(truth, `lon${fips}`, 1_000_000) / 1e6;
  return { lat: censusCoord(latN, 2), lon: censusCoord(lonN, 3), latN, lonN };
}

const own = (g: StandinGeography) => g.fips.join('');
const stateName = (truth: StandinTruth, st: string) =>
  truth.opts.geographies.find((g) => g.level === 'state' && g.fips[0] === st)?.name ?? st;
/** "Travis County, Texas" → "Travis County". */
const shortCountyName = (g: StandinGeography) => g.name.slice(0, g.name.lastIndexOf(', '));

const of = (truth: StandinTruth, level: StandinGeography['level']) => truth.opts.geographies.filter((g) => g.level === level);
const pop = (truth: StandinTruth, g: StandinGeography) => 500 + h(truth, `pop${own(g)}`, 5000);
const land = (truth: StandinTruth, key: string) => 1_000_000 + h(truth, `land${key}`, 50_000_000);

/** The districts of a tract: its own, or the first district of its state. */
function districtsOf(truth: StandinTruth, tract: StandinGeography): string[] {
  if (tract.districts?.length) return tract.districts;
  const first = of(truth, 'cd').find((d) => d.fips[0] === tract.fips[0]);
  return first ? [own(first)] : [];
}

const lines = (rows: string[][], sep: string, eol = '\n') => rows.map((r) => r.join(sep)).join(eol) + eol;
const BOM = '\ufeff';

function cenpop(truth: StandinTruth, year: number, code: string): string {
  const header: Record<string, string[]> = {
    ST: ['STATEFP', 'STNAME', 'POPULATION', 'LATITUDE', 'LONGITUDE'],
    CO: ['STATEFP', 'COUNTYFP', 'COUNAME', 'STNAME', 'POPULATION', 'LATITUDE', 'LONGITUDE'],
    TR: ['STATEFP', 'COUNTYFP', 'TRACTCE', 'POPULATION', 'LATITUDE', 'LONGITUDE'],
    BG: ['STATEFP', 'COUNTYFP', 'TRACTCE', 'BLKGRPCE', 'POPULATION', 'LATITUDE', 'LONGITUDE'],
  };
  const level = ({ ST: 'state', CO: 'county', TR: 'tract', BG: 'block_group' } as const)[code as 'ST']!;
  const rows = of(truth, level).map((g) => {
    const p = point(truth, own(g));
    const n = String(pop(truth, g));
    if (level === 'state') return [g.fips[0]!, g.name, n, p.lat, p.lon];
    if (level === 'county')
      return [g.fips[0]!, g.fips[1]!, shortCountyName(g).replace(/ County$/, ''), stateName(truth, g.fips[0]!), n, p.lat, p.lon];
    return [...g.fips, n, p.lat, p.lon];
  });
  return (year === 2020 ? BOM : '') + lines([header[code]!, ...rows], ',', '\r\n');
}

/** A Gazetteer file: a zip holding one tab-delimited text named like the zip. */
function gazetteer(name: string, header: string[], rows: string[][]): Buffer {
  return Buffer.from(zipSync({ [`${name}.txt`]: strToU8(lines([header, ...rows], '\t')) }));
}

function gazCounties(truth: StandinTruth): Buffer {
  return gazetteer(
    '2023_Gaz_counties_national',
    ['USPS', 'GEOID', 'ANSICODE', 'NAME', 'ALAND', 'AWATER', 'ALAND_SQMI', 'AWATER_SQMI', 'INTPTLAT', 'INTPTLONG'],
    of(truth, 'county').map((g) => {
      const a = land(truth, own(g));
      const p = point(truth, own(g));
      return [
        USPS[g.fips[0]!]!,
        own(g),
        String(h(truth, `ansi${own(g)}`, 1e8)).padStart(8, '0'),
        shortCountyName(g),
        String(a),
        '0',
        (a / 2_589_988).toFixed(3),
        '0.000',
        p.latN.toFixed(6),
        p.lonN.toFixed(6),
      ];
    }),
  );
}

/** A metro's name "Austin-Round Rock-San Marcos, TX Metro Area" → title and kind. */
const metroTitle = (g: StandinGeography) => ({ title: g.name.replace(/ (Metro|Micro) Area$/, ''), metro: g.name.endsWith(' Metro Area') });

function gazCbsa(truth: StandinTruth): Buffer {
  return gazetteer(
    '2023_Gaz_cbsa_national',
    ['CSAFP', 'GEOID', 'NAME', 'CBSA_TYPE', 'ALAND', 'AWATER', 'ALAND_SQMI', 'AWATER_SQMI', 'INTPTLAT', 'INTPTLONG'],
    of(truth, 'metro').map((g) => {
      const p = point(truth, own(g));
      const a = land(truth, own(g));
      return [
        '',
        own(g),
        g.name,
        metroTitle(g).metro ? '1' : '2',
        String(a),
        '0',
        (a / 2_589_988).toFixed(3),
        '0.000',
        p.latN.toFixed(6),
        p.lonN.toFixed(6),
      ];
    }),
  );
}

function gazCd(truth: StandinTruth): Buffer {
  return gazetteer(
    '2023_Gaz_118CDs_national',
    ['USPS', 'GEOID', 'ALAND', 'AWATER', 'ALAND_SQMI', 'AWATER_SQMI', 'INTPTLAT', 'INTPTLONG'],
    of(truth, 'cd').map((g) => {
      const p = point(truth, own(g));
      const a = land(truth, own(g));
      return [USPS[g.fips[0]!]!, own(g), String(a), '0', (a / 2_589_988).toFixed(3), '0.000', p.latN.toFixed(6), p.lonN.toFixed(6)];
    }),
  );
}

/** Land of each part of a tract: the first district gets the most. */
function tractParts(truth: StandinTruth, tract: StandinGeography): { cd: string; land: number }[] {
  const cds = districtsOf(truth, tract);
  return cds.map((cd, i) => ({ cd, land: i === 0 ? 10_000_000 + land(truth, own(tract)) : land(truth, `${own(tract)}${cd}`) % 9_000_000 }));
}

const tractNamelsad = (tractce: string) =>
  `Census Tract ${Number(tractce.slice(0, 4))}${tractce.slice(4) === '00' ? '' : `.${tractce.slice(4)}`}`;

function cdTractRelationship(truth: StandinTruth): string {
  const header = [
    'OID_CD118_20',
    'GEOID_CD118_20',
    'NAMELSAD_CD118_20',
    'AREALAND_CD118_20',
    'AREAWATER_CD118_20',
    'MTFCC_CD118_20',
    'FUNCSTAT_CD118_20',
    'OID_TRACT_20',
    'GEOID_TRACT_20',
    'NAMELSAD_TRACT_20',
    'AREALAND_TRACT_20',
    'AREAWATER_TRACT_20',
    'MTFCC_TRACT_20',
    'FUNCSTAT_TRACT_20',
    'AREALAND_PART',
    'AREAWATER_PART',
  ];
  const cds = new Map(of(truth, 'cd').map((g) => [own(g), g]));
  const rows: string[][] = [];
  for (const t of of(truth, 'tract')) {
    const parts = tractParts(truth, t);
    const tractLand = parts.reduce((a, p) => a + p.land, 0);
    for (const p of parts) {
      const d = cds.get(p.cd);
      if (!d) throw new Error(`stand-in: tract ${own(t)} names district ${p.cd}, which is not in the truth`);
      rows.push([
        String(2_000_000 + h(truth, `oid${p.cd}`, 1e6)),
        p.cd,
        d.name.slice(0, d.name.indexOf(' (118th Congress)')),
        String(land(truth, p.cd)),
        '0',
        'G5200',
        'N',
        String(2_000_000 + h(truth, `oid${own(t)}`, 1e6)),
        own(t),
        tractNamelsad(t.fips[2]!),
        String(tractLand),
        '0',
        'G5020',
        'S',
        String(p.land),
        '0',
      ]);
    }
  }
  return lines([header, ...rows], '|');
}

/** Connecticut's block groups in 2022 county subdivisions: each in the planning region of the truth's 2022 county. */
function ctRelationship(truth: StandinTruth): string {
  const header = [
    'OID_COUSUB_22',
    'GEOID_COUSUB_22',
    'NAMELSAD_COUSUB_22',
    'AREALAND_COUSUB_22',
    'AREAWATER_COUSUB_22',
    'MTFCC_COUSUB_22',
    'CLASSFP_COUSUB_22',
    'FUNCSTAT_COUSUB_22',
    'OID_BLKGRP_20',
    'GEOID_BLKGRP_20',
    'NAMELSAD_BLKGRP_20',
    'AREALAND_BLKGRP_20',
    'AREAWATER_BLKGRP_20',
    'MTFCC_BLKGRP_20',
    'FUNCSTAT_BLKGRP_20',
    'AREALAND_PART',
    'AREAWATER_PART',
  ];
  const regions = of(truth, 'county').filter((g) => g.fips[0] === '09');
  const rows = of(truth, 'block_group')
    .filter((g) => g.fips[0] === '09')
    .map((g) => {
      const region = regions[h(truth, `ct${own(g).slice(0, 11)}`, regions.length)]!;
      const a = String(land(truth, own(g)));
      return [
        '1',
        `${own(region)}00000`,
        'town',
        a,
        '0',
        'G4040',
        'T1',
        'A',
        '1',
        own(g),
        `Block Group ${g.fips[3]}`,
        a,
        '0',
        'G5030',
        'S',
        a,
        '0',
      ];
    });
  return lines([header, ...rows], '|');
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A one-sheet workbook with shared strings, as spreadsheet programs write it. */
function xlsx(sheetName: string, rows: (string | null)[][]): Buffer {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const col = (j: number) => String.fromCharCode(65 + j);
  const sheetRows = rows
    .map((r, i) => {
      const cells = r
        .map((v, j) => {
          if (v === null) return '';
          if (!index.has(v)) {
            index.set(v, strings.length);
            strings.push(v);
          }
          return `<c r="${col(j)}${i + 1}" t="s"><v>${index.get(v)}</v></c>`;
        })
        .join('');
      return `<row r="${i + 1}">${cells}</row>`;
    })
    .join('');
  const ns = 'http://schemas.openxmlformats.org';
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
  return Buffer.from(
    zipSync({
      '[Content_Types].xml': strToU8(
        `${head}<Types xmlns="${ns}/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
      ),
      '_rels/.rels': strToU8(
        `${head}<Relationships xmlns="${ns}/package/2006/relationships"><Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
      'xl/workbook.xml': strToU8(
        `${head}<workbook xmlns="${ns}/spreadsheetml/2006/main" xmlns:r="${ns}/officeDocument/2006/relationships"><sheets><sheet name="${xmlEscape(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
      'xl/_rels/workbook.xml.rels': strToU8(
        `${head}<Relationships xmlns="${ns}/package/2006/relationships"><Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${ns}/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ),
      'xl/worksheets/sheet1.xml': strToU8(
        `${head}<worksheet xmlns="${ns}/spreadsheetml/2006/main"><sheetData>${sheetRows}</sheetData></worksheet>`,
      ),
      'xl/sharedStrings.xml': strToU8(
        `${head}<sst xmlns="${ns}/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t xml:space="preserve">${xmlEscape(s)}</t></si>`).join('')}</sst>`,
      ),
    }),
  );
}

function list1(truth: StandinTruth): Buffer {
  const metros = new Map(of(truth, 'metro').map((g) => [own(g), g]));
  const empty = Array<null>(12).fill(null);
  const note = (s: string) => [s, ...empty.slice(1)];
  const rows: (string | null)[][] = [
    note('Table with row headers in column A and column headers in row 3'),
    note('List 1. CORE BASED STATISTICAL AREAS (CBSAs), METROPOLITAN DIVISIONS, AND COMBINED STATISTICAL AREAS (CSAs), JULY 2023'),
    [
      'CBSA Code',
      'Metropolitan Division Code',
      'CSA Code',
      'CBSA Title',
      'Metropolitan/Micropolitan Statistical Area',
      'Metropolitan Division Title',
      'CSA Title',
      'County/County Equivalent',
      'State Name',
      'FIPS State Code',
      'FIPS County Code',
      'Central/Outlying County',
    ],
  ];
  for (const c of of(truth, 'county')) {
    if (!c.cbsa) continue;
    const m = metros.get(c.cbsa.code);
    if (!m) throw new Error(`stand-in: county ${own(c)} names CBSA ${c.cbsa.code}, which is not in the truth`);
    const { title, metro } = metroTitle(m);
    rows.push([
      c.cbsa.code,
      null,
      null,
      title,
      metro ? 'Metropolitan Statistical Area' : 'Micropolitan Statistical Area',
      null,
      null,
      shortCountyName(c),
      stateName(truth, c.fips[0]!),
      c.fips[0]!,
      c.fips[1]!,
      c.cbsa.central ? 'Central' : 'Outlying',
    ]);
  }
  rows.push([...empty], note('Note: the stand-in of OMB Bulletin 23-01 (its truth, not the delineation).'));
  return xlsx('List 1', rows);
}

/** The 2010 county list: `STUSAB,STATEFP,COUNTYFP,NAME,CLASSFP`, no header. */
function nationalCounty(truth: StandinTruth): string {
  return lines(
    of(truth, 'county').map((g) => [USPS[g.fips[0]!]!, g.fips[0]!, g.fips[1]!, shortCountyName(g), 'H1']),
    ',',
  );
}

const bin = (body: Buffer | string): EmulatorAnswer => ({ status: 200, body, type: 'application/octet-stream' });

/** The file census.gov serves at www2 path `p` for this truth, or undefined when it is not one of these. */
export function referenceFileFromTruth(truth: StandinTruth, p: string): EmulatorAnswer | undefined {
  const cp = /^\/geo\/docs\/reference\/cenpop(2010|2020)\/(?:county\/|tract\/|blkgrp\/)?CenPop\1_Mean_(ST|CO|TR|BG)\.txt$/.exec(p);
  if (cp) return bin(cenpop(truth, Number(cp[1]), cp[2]!));
  switch (p) {
    case '/geo/docs/reference/codes/files/national_county.txt':
      return bin(nationalCounty(truth));
    case `${GAZ}2023_Gaz_counties_national.zip`:
      return bin(gazCounties(truth));
    case `${GAZ}2023_Gaz_cbsa_national.zip`:
      return bin(gazCbsa(truth));
    case `${GAZ}2023_Gaz_118CDs_national.zip`:
      return bin(gazCd(truth));
    case '/geo/docs/maps-data/data/rel2020/cd-sld/tab20_cd11820_tract20_natl.txt':
      return bin(cdTractRelationship(truth));
    case '/geo/docs/maps-data/data/rel2022/acs22_cousub22_blkgrp20_st09.txt':
      return bin(ctRelationship(truth));
    case '/programs-surveys/metro-micro/geographies/reference-files/2023/delineation-files/list1_2023.xlsx':
      return bin(list1(truth));
    default:
      return undefined;
  }
}

/** The land-area share of each district in a tract, as the relationship file gives it (for tests). */
export function tractDistrictShares(truth: StandinTruth, tract: StandinGeography): Map<string, number> {
  const parts = tractParts(truth, tract);
  const total = parts.reduce((a, p) => a + p.land, 0);
  return new Map(parts.map((p) => [p.cd, p.land / total]));
}
