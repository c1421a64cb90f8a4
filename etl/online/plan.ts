// What online mode downloads. A plan is data, not behaviour, so the CLI can build one from flags,
// from the API's own groups.json listing, or take `mirrorPlan`, which reproduces the layout of
// ../shared/census (the tree the offline build and the tests are written against).
import { datasetSpec, type DatasetKey } from '../../src/domain/datasets.js';
import { REFERENCE_FILES } from './reference.js';
import { BUREAU_REFERENCE_FILES } from './reference-bureau.js';
import type { MetadataDocument } from '../sources/api-metadata.js';

/** One metadata document (labels, titles, universes) of one dataset vintage: etl/online/labels.ts. */
export interface LabelItem {
  dataset: Dataset;
  vintage: number;
  doc: MetadataDocument;
}

/**
 * The table shells of one Summary File release (labels, titles and universes of every table), for
 * a release whose values come from the Summary File; `instead` are the Data API's documents
 * fetched when the release has no shells (404): etl/online/labels.ts.
 */
export interface ShellsItem {
  dataset: Dataset;
  vintage: number;
  instead: LabelItem[];
}

/** A registered dataset (src/domain/datasets.ts). */
export type Dataset = DatasetKey;
export type Level = 'nation' | 'state' | 'county' | 'metro' | 'cd' | 'tract' | 'block_group';
export const LEVELS: readonly Level[] = ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'block_group'];

/** One cache file `api/{vintage}/{the dataset's Bureau path}/{level}/{group}.json.gz`. */
export interface ApiItem {
  vintage: number;
  dataset: Dataset;
  level: Level;
  group: string;
  /**
   * Explicit variables (e.g. `NAME`, `B19013_001E`) instead of `group(GROUP)`: for sources that
   * hold only part of a group. Requested in chunks of at most 50 and merged.
   */
  variables?: string[];
  /**
   * The states to request (2-digit FIPS). Required for the levels the API answers only within a
   * state (tract, block group): one request per state (per county for block groups), the answers
   * joined into the one file. For the other levels it keeps only those states' rows.
   */
  states?: string[];
}

export interface FetchPlan {
  api: ApiItem[];
  /** Relative paths of entries of REFERENCE_FILES that have a census.gov URL. */
  reference: string[];
  /** The Data API's metadata documents (labels, titles, universes): etl/online/labels.ts. */
  labels?: LabelItem[];
  /** The Summary File's table shells, for releases whose values come from it: etl/online/labels.ts. */
  shells?: ShellsItem[];
}

/**
 * The API's `for=` clause per level, the `in=` scope it needs, and the column(s) it answers with,
 * last in every row. `scope`: `none` = one request for the nation; `state` = one request per state
 * (`in=state:SS`); `county` = one per county (`in=state:SS&in=county:CCC`). Block groups are asked
 * per county because vintages before 2019 refuse `county:*` there (the geography list of each
 * dataset, api.census.gov/data/{vintage}/acs/acs5/geography.html, gives `requires`), and the
 * API has block groups only from 2013 (docs/sources.md).
 */
export const GEOGRAPHY: Record<Level, { forClause: string; columns: string[]; scope: 'none' | 'state' | 'county' }> = {
  nation: { forClause: 'us:*', columns: ['us'], scope: 'none' },
  state: { forClause: 'state:*', columns: ['state'], scope: 'none' },
  county: { forClause: 'county:*', columns: ['state', 'county'], scope: 'none' },
  metro: {
    forClause: 'metropolitan statistical area/micropolitan statistical area:*',
    columns: ['metropolitan statistical area/micropolitan statistical area'],
    scope: 'none',
  },
  cd: { forClause: 'congressional district:*', columns: ['state', 'congressional district'], scope: 'none' },
  tract: { forClause: 'tract:*', columns: ['state', 'county', 'tract'], scope: 'state' },
  block_group: { forClause: 'block group:*', columns: ['state', 'county', 'tract', 'block group'], scope: 'county' },
};

/** First vintage the Data API publishes a level in (block groups: 2013, see docs/sources.md). */
export const FIRST_API_VINTAGE: Partial<Record<Level, number>> = { block_group: 2013 };

export function apiCachePath(item: Pick<ApiItem, 'vintage' | 'dataset' | 'level' | 'group'>): string {
  return `api/${item.vintage}/${datasetSpec(item.dataset).bureauPath}/${item.level}/${item.group}.json.gz`;
}

// Group names become file names: accept only the shape of Census table ids (B19013, C15010B, B992701).
export const GROUP_RE = /^[A-Z]+[0-9]+[A-Z0-9]*$/;

/** The cross product of the given vintages, datasets, levels and groups. */
export function planFromGroups(opts: {
  vintages: number[];
  datasets: Dataset[];
  levels: Level[];
  groups: string[];
  reference?: string[];
}): FetchPlan {
  const api: ApiItem[] = [];
  for (const g of opts.groups) {
    if (!GROUP_RE.test(g)) throw new Error(`not a Census table id: ${JSON.stringify(g)}`);
  }
  for (const vintage of opts.vintages)
    for (const dataset of opts.datasets)
      for (const level of opts.levels) for (const group of opts.groups) api.push({ vintage, dataset, level, group });
  return { api, reference: checkReference(opts.reference ?? []) };
}

/** Group names from a `groups.json` body (`{"groups":[{"name":…},…]}`), validated. */
export function parseGroupsJson(body: unknown, where: string): string[] {
  const groups = (body as { groups?: unknown } | null)?.groups;
  if (!Array.isArray(groups)) throw new Error(`${where}: not a groups.json listing (no "groups" array)`);
  const names = groups.map((g: unknown) => (g as { name?: unknown } | null)?.name);
  if (!names.every((n): n is string => typeof n === 'string')) throw new Error(`${where}: a group without a string "name"`);
  return names;
}

/** Check that every path names a downloadable entry of REFERENCE_FILES. */
export function checkReference(paths: string[]): string[] {
  for (const p of paths) {
    const ref = REFERENCE_FILES.find((r) => r.path === p);
    if (!ref) throw new Error(`unknown reference file ${p}`);
    if (!ref.url) throw new Error(`${p} has no census.gov download (${ref.note}); it comes from the fallback source`);
  }
  return paths;
}

/** Every reference file that online mode can download. */
export function fetchableReferencePaths(): string[] {
  return REFERENCE_FILES.filter((r) => r.url !== undefined).map((r) => r.path);
}

/** The downloadable files of the shared tree's own layout (not the Bureau files standing for its derived ones). */
function mirrorReferencePaths(): string[] {
  const bureau = new Set(BUREAU_REFERENCE_FILES.map((r) => r.path));
  return fetchableReferencePaths().filter((p) => !bureau.has(p));
}

const pairs = (group: string, from: number, to: number): string[] => {
  const out: string[] = [];
  for (let i = from; i <= to; i++) {
    const n = String(i).padStart(3, '0');
    out.push(`${group}_${n}E`, `${group}_${n}M`);
  }
  return out;
};

/**
 * The ACS 2017 5-year CBSA variables of ../shared/census §1b (partial groups, NAME first, no
 * GEO_ID or annotations), so an online build covers exactly what the offline build does.
 */
export const METRO_2017_VARIABLES: Record<string, string[]> = {
  B03002: ['NAME', ...pairs('B03002', 1, 12)],
  B07009: ['NAME', ...pairs('B07009', 1, 36)],
  B08201: ['NAME', ...pairs('B08201', 1, 2)],
  B20004: ['NAME', ...pairs('B20004', 1, 6)],
  C15010B: ['NAME', ...pairs('C15010B', 1, 6)],
  ...Object.fromEntries(
    ['', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'].map((s) => [`B19013${s}`, ['NAME', ...pairs(`B19013${s}`, 1, 1)]]),
  ),
};

export const MIRROR_ACS1_VINTAGES = [2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 2013, 2014, 2015, 2017, 2018];

/**
 * The plan reproducing ../shared/census: acs1 detailed tables at state and nation for the 13
 * vintages (groups from each vintage's groups.json, passed in by the caller), the 2017 acs5
 * CBSA extract, the 2022 and 2023 acs5 county totals, and every fetchable reference file.
 */
export function mirrorPlan(acs1GroupsByVintage: Map<number, string[]>): FetchPlan {
  const api: ApiItem[] = [];
  for (const vintage of MIRROR_ACS1_VINTAGES) {
    const groups = acs1GroupsByVintage.get(vintage);
    if (!groups) throw new Error(`no acs1 group list for ${vintage}`);
    for (const level of ['state', 'nation'] as const) for (const group of groups) api.push({ vintage, dataset: 'acs1', level, group });
  }
  for (const [group, variables] of Object.entries(METRO_2017_VARIABLES))
    api.push({ vintage: 2017, dataset: 'acs5', level: 'metro', group, variables });
  for (const group of ['B01003', 'B25001']) {
    api.push({ vintage: 2022, dataset: 'acs5', level: 'county', group });
    // §1d is the API's answer to get=NAME,{group}_001E: estimate only.
    api.push({ vintage: 2023, dataset: 'acs5', level: 'county', group, variables: ['NAME', `${group}_001E`] });
  }
  return { api, reference: mirrorReferencePaths() };
}
