// A stand-in for the Census Data API (api.census.gov) answering from a seeded, deterministic TRUTH
// at the scale a test chooses (a few counties, tracts and block groups of a few states), in the
// Bureau's format as its user guide documents it (docs/sources.md, "Census Data API"): a JSON
// array of arrays, header first, every value a string or null, geography columns last; `get=` of
// at most 50 variables and `group(X)`; `for=`/`in=` with the `requires` of the dataset's geography
// list (tract: in=state; block group: in=state and in=county, a single county before 2019); 204
// when no geography matches; plain-text `error: …` 400s; groups.json, groups/{X}.json and
// variables.json with the labels of standin/labels.ts.
// Served through census-emulator.ts, so the faults (429 + Retry-After, 5xx, a cut body, an HTML
// page with 200, a reset), the key pages and a slow answer are those of the emulator.
//
// The values are the stand-in's own truth, random and never Census figures: they exist only in
// the tests' temporary directories, never in a real data directory.
import { createHash } from 'node:crypto';
import { answerLabels, answerTableShells } from './standin/labels.js';
import { startCensusEmulator, type CensusEmulator, type EmulatorAnswer, type EmulatorOptions } from './census-emulator.js';
import { referenceFileFromTruth } from './standin/reference-lists.js';
import { answerShapefile, shapesFromGeographies, ShapeTruth, type ShapeTruthOptions } from './standin/shapefiles.js';
import { summaryFileAnswer, type SummaryFileTruth } from './standin/summary-file.js';
import { sequenceFileAnswer, type SequenceFileTruth } from './standin/sequence-file.js';

export type StandinLevel = 'nation' | 'state' | 'county' | 'metro' | 'cd' | 'tract' | 'block_group';

/** One geography: its FIPS parts (as the API's geography columns) and its NAME. */
export interface StandinGeography {
  level: StandinLevel;
  fips: string[];
  name: string;
  /**
   * The reference files' facts about it (standin/reference-lists.ts): a tract's 118th Congress
   * districts (4-digit GEOIDs, the largest land part first); a county's CBSA and whether it is
   * central.
   */
  districts?: string[];
  cbsa?: { code: string; central: boolean };
}

export interface StandinTruthOptions {
  seed: number;
  vintage: number;
  dataset: 'acs5' | 'acs1';
  geographies: StandinGeography[];
  /** Table id → number of estimates (B19013 → 1: B19013_001E). */
  tables: Record<string, number>;
  /** Cartographic boundary zips at their www2 paths (standin/shapefiles.ts); default: of `geographies`. */
  shapes?: ShapeTruthOptions;
}

/** One published cell: the four columns' text as the API serves them. */
export interface PublishedCell {
  E: string | null;
  M: string | null;
  EA: string | null;
  MA: string | null;
}

const LEVEL_COLUMNS: Record<StandinLevel, string[]> = {
  nation: ['us'],
  state: ['state'],
  county: ['state', 'county'],
  metro: ['metropolitan statistical area/micropolitan statistical area'],
  cd: ['state', 'congressional district'],
  tract: ['state', 'county', 'tract'],
  block_group: ['state', 'county', 'tract', 'block group'],
};
const FOR_LEVEL: Record<string, StandinLevel> = {
  us: 'nation',
  state: 'state',
  county: 'county',
  'metropolitan statistical area/micropolitan statistical area': 'metro',
  'congressional district': 'cd',
  tract: 'tract',
  'block group': 'block_group',
};
const SUMMARY_LEVEL: Record<StandinLevel, string> = {
  nation: '0100000US',
  state: '0400000US',
  county: '0500000US',
  // The GEO_ID prefixes of ACS 2023: CBSAs of the July 2023 delineation, 118th Congress districts.
  metro: '310M600US',
  cd: '5001800US',
  tract: '1400000US',
  block_group: '1500000US',
};

export class StandinTruth {
  constructor(readonly opts: StandinTruthOptions) {}

  variables(table: string): string[] {
    return Array.from({ length: this.opts.tables[table] ?? 0 }, (_, i) => `${table}_${String(i + 1).padStart(3, '0')}`);
  }

  geoId(g: StandinGeography): string {
    return g.level === 'nation' ? SUMMARY_LEVEL.nation : `${SUMMARY_LEVEL[g.level]}${g.fips.join('')}`;
  }

  /** The service's geo key of a geography (`tract:48453000101`). */
  static geoKey(g: StandinGeography): string {
    return `${g.level}:${g.level === 'nation' ? '1' : g.fips.join('')}`;
  }

  /**
   * The published text of one cell, from a hash of the seed, the geography and the variable: most
   * cells plain integers, some with the Bureau's jam values and annotation symbols.
   */
  cell(g: StandinGeography, stem: string): PublishedCell {
    const h = createHash('sha256')
      .update(`${this.opts.seed}|${this.opts.vintage}|${g.level}|${g.fips.join('')}|${stem}`)
      .digest();
    const kind = h[0]! % 20;
    const e = String(h.readUInt32BE(1) % 250_000);
    const m = String(h.readUInt16BE(5) % 9_000);
    if (kind === 0) return { E: '-666666666', M: '-222222222', EA: '-', MA: '**' }; // not computable
    if (kind === 1) return { E: e, M: '-555555555', EA: null, MA: '*****' }; // controlled: no sampling error
    if (kind === 2) return { E: null, M: null, EA: null, MA: null }; // not tabulated here
    return { E: e, M: m, EA: null, MA: null };
  }

  /** Every (geography, variable) of a level, for comparisons. */
  *cells(level: StandinLevel): Generator<{ g: StandinGeography; variable: string; cell: PublishedCell }> {
    for (const g of this.opts.geographies.filter((x) => x.level === level))
      for (const t of Object.keys(this.opts.tables))
        for (const v of this.variables(t)) yield { g, variable: `${v}E`, cell: this.cell(g, v) };
  }
}

type Cell = string | null;
const text = (status: number, body: string): EmulatorAnswer => ({ status, body, type: 'text/plain;charset=utf-8' });
const json = (body: string): EmulatorAnswer => ({ status: 200, body, type: 'application/json;charset=utf-8' });
const notFound = (): EmulatorAnswer => ({ status: 404, body: '<html><body>404 Not Found</body></html>', type: 'text/html' });
const serialize = (rows: Cell[][]) => `[${rows.map((r) => JSON.stringify(r)).join(',\n')}]`;

/** The Data API's answer to one request, from the truth. */
export function answerFromTruth(truth: StandinTruth, u: URL): EmulatorAnswer {
  const p = decodeURIComponent(u.pathname);
  const { vintage, dataset } = truth.opts;
  const base = `/data/${vintage}/acs/${dataset}`;
  const meta = answerLabels(truth, u); // groups.json, groups/{X}.json, variables.json
  if (meta) return meta;
  if (p !== base) return notFound();

  const get = u.searchParams.get('get');
  const forClause = u.searchParams.get('for');
  if (!get) return text(400, "error: missing 'get' parameter");
  if (!forClause) return text(400, "error: missing 'for' parameter");
  const items = get.split(',');
  if (items.length > 50) return text(400, "error: 'get' is limited to 50 variables");
  const [forName, forCodes] = [forClause.slice(0, forClause.lastIndexOf(':')), forClause.slice(forClause.lastIndexOf(':') + 1)];
  const level = FOR_LEVEL[forName];
  if (!level) return text(400, 'error: unknown/unsupported geography heirarchy');
  const within = new Map<string, string>();
  for (const clause of u.searchParams.getAll('in').flatMap((c) => c.split(' ')))
    if (clause) within.set(clause.slice(0, clause.indexOf(':')), clause.slice(clause.indexOf(':') + 1));
  // The geography list's `requires`: tract needs the state; block group the state and the county
  // (a single one before 2019, when `county:*` was refused there).
  const needs = level === 'tract' ? ['state'] : level === 'block_group' ? ['state', 'county'] : [];
  for (const n of needs) {
    const v = within.get(n);
    if (!v || (v === '*' && (n === 'state' || vintage < 2019))) return text(400, 'error: unknown/unsupported geography heirarchy');
  }
  const columns = LEVEL_COLUMNS[level];
  const wanted = (g: StandinGeography) => {
    if (g.level !== level) return false;
    for (const [name, code] of within) {
      const i = columns.indexOf(name);
      if (i < 0) return false;
      if (code !== '*' && !code.split(',').includes(g.fips[i]!)) return false;
    }
    const own = g.fips[columns.length - 1]!;
    return forCodes === '*' || forCodes.split(',').includes(own);
  };
  // Columns: group(X) = its estimates' E, EA, M, MA, then GEO_ID and NAME (the API's order).
  const header: string[] = [];
  for (const item of items) {
    const g = /^group\((\w+)\)$/.exec(item);
    if (g) {
      if (!(g[1]! in truth.opts.tables)) return text(400, `error: unknown variable 'group(${g[1]})'`);
      for (const v of truth.variables(g[1]!)) header.push(`${v}E`, `${v}EA`, `${v}M`, `${v}MA`);
      header.push('GEO_ID', 'NAME');
      continue;
    }
    const m = /^(([A-Z]+\d+[A-Z0-9]*)_\d{3})(E|M|EA|MA)$/.exec(item);
    if (item !== 'NAME' && item !== 'GEO_ID' && !(m && truth.variables(m[2]!).includes(m[1]!)))
      return text(400, `error: unknown variable '${item}'`);
    header.push(item);
  }
  const rows = truth.opts.geographies.filter(wanted).map((g) => [
    ...header.map((h): Cell => {
      if (h === 'NAME') return g.name;
      if (h === 'GEO_ID') return truth.geoId(g);
      const m = /^(.*_\d{3})(E|M|EA|MA)$/.exec(h)!;
      return truth.cell(g, m[1]!)[m[2] as keyof PublishedCell];
    }),
    ...(level === 'nation' ? ['1'] : g.fips),
  ]);
  if (rows.length === 0) return { status: 204, body: '' };
  return json(serialize([[...header, ...columns], ...rows]));
}

export interface CensusStandin extends CensusEmulator {
  truth: StandinTruth;
  shapes: ShapeTruth;
}

/** Files-base formats the stand-in also serves (test/support/standin/*.ts), each from its own truth. */
export interface StandinFormats {
  /** One truth per vintage. */
  summaryFile?: SummaryFileTruth[];
  /** The sequence-based Summary File (standin/sequence-file.ts), one truth per vintage. */
  sequenceFile?: SequenceFileTruth[];
}

/** The stand-in on a loopback port; `emulator` options add faults' knobs (delay, key). */
export async function startCensusStandin(
  truth: StandinTruthOptions,
  emulator: Omit<EmulatorOptions, 'dataApi'> = {},
  formats: StandinFormats = {},
): Promise<CensusStandin> {
  const t = new StandinTruth(truth);
  const shapes = new ShapeTruth(truth.shapes ?? shapesFromGeographies(truth.geographies));
  const summaryFile = (p: string) =>
    [
      ...(formats.summaryFile ?? []).map((sf) => summaryFileAnswer(sf, p)),
      ...(formats.sequenceFile ?? []).map((sq) => sequenceFileAnswer(sq, p)),
    ].find((x) => x !== undefined);
  const emu = await startCensusEmulator({
    ...emulator,
    dataApi: (u) => answerFromTruth(t, u),
    // census.gov's files for the truth, in the Bureau's formats: boundary zips, reference lists, the Summary File and its shells.
    www2: (p) =>
      answerShapefile(shapes, p) ?? referenceFileFromTruth(t, p) ?? summaryFile(p) ?? answerTableShells(formats.summaryFile ?? [], p),
  });
  return { ...emu, truth: t, shapes };
}
