// `etl build --online` with a selection (--datasets, --vintages, --levels, --states, --tables |
// --catalog | --all-tables): the flags parsed into a FetchPlan, and the plan described before
// any download (--dry-run): files, requests, expected bytes and time, disk needed.
import { datasetSpec, isDatasetKey } from '../../src/domain/datasets.js';
import { catalogCodes } from '../synthetic/generate.js';
import { FIRST_API_VINTAGE, GEOGRAPHY, GROUP_RE, LEVELS, type ApiItem, type Dataset, type FetchPlan, type Level } from './plan.js';
import { VARIABLE_LIMIT } from './api.js';
import { LABEL_BYTES } from './labels.js';

export interface SelectionFlags {
  datasets?: string;
  vintages?: string;
  levels?: string;
  states?: string;
  tables?: string;
  catalog?: boolean;
  allTables?: boolean;
}

export interface Selection {
  datasets: Dataset[];
  vintages: number[];
  levels: Level[];
  /** 2-digit FIPS; undefined = every state (tract and block group then need the list, see STATE_CODES). */
  states?: string[];
  tables: { kind: 'list'; groups: string[] } | { kind: 'catalog'; byGroup: Map<string, string[]> } | { kind: 'all' };
  /** Combinations left out, with the reason (a level the dataset or vintage does not publish). */
  skipped: string[];
}

export class SelectionError extends Error {
  override name = 'SelectionError';
}

/** The 50 states, DC and Puerto Rico: the states the API's tract and block group requests go through. */
export const STATE_CODES = [
  '01', '02', '04', '05', '06', '08', '09', '10', '11', '12', '13', '15', '16', '17', '18', '19', '20', '21', '22', '23', '24', '25', '26',
  '27', '28', '29', '30', '31', '32', '33', '34', '35', '36', '37', '38', '39', '40', '41', '42', '44', '45', '46', '47', '48', '49', '50',
  '51', '53', '54', '55', '56', '72',
]; // prettier-ignore

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** `2019,2021-2023` → [2019, 2021, 2022, 2023]. */
export function parseVintages(s: string): number[] {
  const out = new Set<number>();
  for (const part of list(s)) {
    const m = /^(\d{4})(?:-(\d{4}))?$/.exec(part);
    if (!m) throw new SelectionError(`--vintages: ${JSON.stringify(part)} is not a year or a range like 2017-2024`);
    const from = Number(m[1]);
    const to = Number(m[2] ?? m[1]);
    if (to < from) throw new SelectionError(`--vintages: the range ${part} runs backwards`);
    for (let v = from; v <= to; v++) out.add(v);
  }
  return [...out].sort((a, b) => a - b);
}

/** Levels the ACS publishes per dataset: 1-year estimates only for areas of 65,000+ (no tracts or block groups). */
const DATASET_LEVELS: Record<string, readonly Level[]> = {
  acs5: LEVELS,
  acs1: ['nation', 'state', 'county', 'metro', 'cd'],
};

export function parseSelection(f: SelectionFlags): Selection {
  const datasets = list(f.datasets ?? 'acs5');
  for (const d of datasets) if (!isDatasetKey(d)) throw new SelectionError(`--datasets: unknown dataset ${JSON.stringify(d)}`);
  if (!f.vintages) throw new SelectionError('--vintages is required with a selection (e.g. --vintages 2023 or 2017-2024)');
  const vintages = parseVintages(f.vintages);
  const levelList = list(f.levels ?? 'all');
  const levels = levelList.includes('all') ? [...LEVELS] : levelList;
  for (const l of levels)
    if (!(LEVELS as readonly string[]).includes(l))
      throw new SelectionError(`--levels: unknown level ${JSON.stringify(l)} (${LEVELS.join(', ')} or all)`);
  const states = f.states ? list(f.states).map((s) => s.padStart(2, '0')) : undefined;
  for (const s of states ?? [])
    if (!STATE_CODES.includes(s)) throw new SelectionError(`--states: ${JSON.stringify(s)} is not a state FIPS code`);
  const kinds = [f.tables !== undefined, !!f.catalog, !!f.allTables].filter(Boolean).length;
  if (kinds !== 1) throw new SelectionError('name the tables: exactly one of --tables T1,T2, --catalog or --all-tables');
  let tables: Selection['tables'];
  if (f.tables !== undefined) {
    const groups = list(f.tables).map((t) => t.toUpperCase());
    for (const g of groups) if (!GROUP_RE.test(g)) throw new SelectionError(`--tables: ${JSON.stringify(g)} is not a Census table id`);
    tables = { kind: 'list', groups };
  } else if (f.catalog) {
    // The catalogue's estimate codes with their margins of error, NAME first, per table.
    const byGroup = new Map<string, string[]>();
    for (const code of catalogCodes()) {
      const g = code.slice(0, code.indexOf('_'));
      const vars = byGroup.get(g) ?? byGroup.set(g, ['NAME']).get(g)!;
      vars.push(code, `${code.slice(0, -1)}M`);
    }
    tables = { kind: 'catalog', byGroup };
  } else tables = { kind: 'all' };
  const skipped: string[] = [];
  const sel: Selection = { datasets: datasets as Dataset[], vintages, levels: levels as Level[], states, tables, skipped };
  return sel;
}

/** Whether the API publishes `level` for (dataset, vintage); the reason when not. */
export function levelPublished(dataset: Dataset, vintage: number, level: Level): string | undefined {
  if (!datasetSpec(dataset).vintages.includes(vintage)) return `${dataset} has no ${vintage} release`;
  if (!DATASET_LEVELS[dataset]?.includes(level))
    return `${dataset} is not published for ${level} (1-year estimates cover areas of 65,000+)`;
  const first = FIRST_API_VINTAGE[level];
  if (first && vintage < first) return `the Data API has ${level} only from ${first} (earlier: the Summary File)`;
  return undefined;
}

/**
 * The plan of a selection. `groupsOf` lists a vintage's groups (groups.json) and is called only
 * for --all-tables.
 */
export async function planSelection(
  sel: Selection,
  groupsOf: (vintage: number, dataset: Dataset) => Promise<string[]>,
): Promise<FetchPlan> {
  const api: ApiItem[] = [];
  sel.skipped.length = 0;
  for (const dataset of sel.datasets)
    for (const vintage of sel.vintages) {
      const levels = sel.levels.filter((level) => {
        const why = levelPublished(dataset, vintage, level);
        if (why) sel.skipped.push(`${dataset} ${vintage} ${level}: ${why}`);
        return !why;
      });
      if (levels.length === 0) continue;
      const groups: Array<[string, string[] | undefined]> =
        sel.tables.kind === 'list'
          ? sel.tables.groups.map((g) => [g, undefined])
          : sel.tables.kind === 'catalog'
            ? [...sel.tables.byGroup]
            : (await groupsOf(vintage, dataset)).map((g) => [g, undefined]);
      for (const level of levels) {
        const scoped = GEOGRAPHY[level].scope !== 'none';
        const states = sel.states ?? (scoped ? STATE_CODES : undefined);
        for (const [group, variables] of groups)
          api.push({ vintage, dataset, level, group, ...(variables ? { variables } : {}), ...(states ? { states } : {}) });
      }
    }
  return { api, reference: [] };
}

/**
 * Geographies per level (2020 definitions; tracts and block groups of 2010 definitions in vintages
 * before 2020), for estimates only: the Bureau's counts for the nation, scaled by the share of
 * states when --states narrows it.
 */
const GEOGRAPHY_COUNT: Record<Level, (vintage: number, dataset: Dataset) => number> = {
  nation: () => 1,
  state: () => 52,
  county: (_v, d) => (d === 'acs1' ? 840 : 3_222),
  metro: (_v, d) => (d === 'acs1' ? 520 : 935),
  cd: () => 437,
  tract: (v) => (v >= 2020 ? 85_395 : 74_001),
  block_group: (v) => (v >= 2020 ? 242_335 : 220_334),
};
const COUNTIES = 3_222;
/** A detailed table's mean number of estimates (the ACS's ~36,000 over ~1,100 tables), when not looked up. */
const MEAN_VARIABLES_PER_TABLE = 33;
/** Bytes of one cell in the API's JSON ("12345",) and in the build's Parquet (one row per estimate). */
const JSON_BYTES_PER_CELL = 9;
const PARQUET_BYTES_PER_ESTIMATE = 8;
/** gzip on API bodies (measured on ../shared/census/api: about 1:6). */
const GZIP_RATIO = 1 / 6;

export interface PlanEstimate {
  files: number;
  requests: number;
  cells: number;
  downloadBytes: number;
  cacheBytes: number;
  buildBytes: number;
  seconds: number;
  rows: Array<{ dataset: string; vintage: number; level: string; files: number; requests: number; geographies: number; cells: number }>;
}

/** Requests, cells and bytes a plan will take (estimates, see the constants above). */
export function estimatePlan(plan: FetchPlan, opts: { concurrency?: number; secondsPerRequest?: number } = {}): PlanEstimate {
  const byPart = new Map<string, PlanEstimate['rows'][number]>();
  let requests = 0;
  let cells = 0;
  let estimates = 0;
  for (const item of plan.api) {
    const share = item.states ? item.states.length / STATE_CODES.length : 1;
    const level = GEOGRAPHY[item.level];
    const geos = Math.max(
      1,
      Math.round(GEOGRAPHY_COUNT[item.level](item.vintage, item.dataset) * (level.columns[0] === 'state' ? share : 1)),
    );
    const scopes = level.scope === 'none' ? 1 : level.scope === 'state' ? item.states!.length : Math.round(COUNTIES * share);
    // group(X): E, M, EA, MA per estimate plus GEO_ID and NAME; explicit lists: as listed.
    const columns = item.variables?.length ?? MEAN_VARIABLES_PER_TABLE * 4 + 2;
    const nEstimates = item.variables ? item.variables.filter((v) => v.endsWith('E')).length : MEAN_VARIABLES_PER_TABLE;
    // group(X) is one request; an explicit list one per 50 variables.
    const perScope = item.variables ? Math.ceil(columns / VARIABLE_LIMIT) : 1;
    const r = scopes * perScope;
    requests += r;
    cells += geos * columns;
    estimates += geos * nEstimates;
    const k = `${item.dataset}/${item.vintage}/${item.level}`;
    const row = byPart.get(k) ?? {
      dataset: item.dataset,
      vintage: item.vintage,
      level: item.level,
      files: 0,
      requests: 0,
      geographies: geos,
      cells: 0,
    };
    row.files++;
    row.requests += r;
    row.cells += geos * columns;
    byPart.set(k, row);
  }
  // County lists for block groups: one request per state and vintage.
  const bgStates = new Set(
    plan.api.filter((i) => i.level === 'block_group').flatMap((i) => i.states!.map((s) => `${i.vintage}/${i.dataset}/${s}`)),
  );
  requests += bgStates.size;
  // The label documents (etl/online/labels.ts): one request each.
  const labels = plan.labels ?? [];
  requests += labels.length;
  const labelBytes = labels.reduce(
    (a, l) =>
      a + (l.doc === 'groups.json' ? LABEL_BYTES.groups : l.doc === 'variables.json' ? LABEL_BYTES.variables : LABEL_BYTES.perTable),
    0,
  );
  const downloadBytes = cells * JSON_BYTES_PER_CELL + labelBytes;
  const concurrency = opts.concurrency ?? 4;
  return {
    files: plan.api.length + plan.reference.length + labels.length,
    requests,
    cells,
    downloadBytes,
    cacheBytes: Math.round(downloadBytes * GZIP_RATIO),
    buildBytes: estimates * PARQUET_BYTES_PER_ESTIMATE,
    seconds: (requests * (opts.secondsPerRequest ?? 0.5)) / concurrency,
    rows: [...byPart.values()],
  };
}

const human = (b: number) =>
  b >= 1e9 ? `${(b / 1e9).toFixed(1)} GB` : b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(b / 1e3))} kB`;
const duration = (s: number) =>
  s >= 86_400
    ? `${(s / 86_400).toFixed(1)} days`
    : s >= 3_600
      ? `${(s / 3_600).toFixed(1)} h`
      : s >= 60
        ? `${Math.round(s / 60)} min`
        : `${Math.ceil(s)} s`;

/** The --dry-run text. */
export function describePlan(sel: Selection, plan: FetchPlan, est: PlanEstimate, where: { apiBase: string; cacheDir: string }): string {
  const lines = [
    `plan: ${sel.datasets.join(',')} · vintages ${sel.vintages.join(',')} · levels ${sel.levels.join(',')} · ` +
      `${sel.states ? `states ${sel.states.join(',')}` : 'all states'} · ` +
      (sel.tables.kind === 'list'
        ? `tables ${sel.tables.groups.join(',')}`
        : sel.tables.kind === 'catalog'
          ? `the catalogue's ${[...sel.tables.byGroup.values()].reduce((a, v) => a + (v.length - 1) / 2, 0)} estimates in ${sel.tables.byGroup.size} tables (with their MOEs)`
          : 'every table groups.json lists'),
    `from ${where.apiBase} into ${where.cacheDir}`,
    '',
    'dataset vintage level        files  requests  geographies         cells',
    ...est.rows.map(
      (r) =>
        `${r.dataset.padEnd(7)} ${String(r.vintage).padEnd(7)} ${r.level.padEnd(11)} ${String(r.files).padStart(6)} ${String(r.requests).padStart(9)} ` +
        `${r.geographies.toLocaleString('en-US').padStart(12)} ${r.cells.toLocaleString('en-US').padStart(13)}`,
    ),
    '',
    `labels: ${(plan.labels ?? []).length} documents of the Data API (groups.json, and groups/{table}.json or variables.json)` +
      (plan.labels?.length
        ? ''
        : plan.shells?.length
          ? ' — the Summary File releases take their table shells (below)'
          : " — the fallback's table shells describe every vintage selected"),
    `total: ${est.files.toLocaleString('en-US')} files, ${est.requests.toLocaleString('en-US')} requests (at most ${VARIABLE_LIMIT} variables each), ` +
      `≈${est.cells.toLocaleString('en-US')} cells`,
    `download ≈${human(est.downloadBytes)} of JSON; cache on disk ≈${human(est.cacheBytes)} (gzip); build ≈${human(est.buildBytes)} (Parquet); ` +
      `disk needed ≈${human(est.cacheBytes + 2 * est.buildBytes)} (cache + the new build beside the live one)`,
    `time ≈${duration(est.seconds)} at 4 requests in flight of ~0.5 s each (the API's pace varies; a key is needed beyond ~500 requests a day)`,
    ...(sel.skipped.length ? ['', `left out (${sel.skipped.length}):`, ...sel.skipped.slice(0, 12).map((s) => `  ${s}`)] : []),
    ...(sel.skipped.length > 12 ? [`  … ${sel.skipped.length - 12} more`] : []),
    '',
    'estimates: geography counts of the 2020 (or 2010) definitions scaled by the share of states; ' +
      (sel.tables.kind === 'catalog'
        ? 'exact variable lists.'
        : `${MEAN_VARIABLES_PER_TABLE} estimates per table assumed (not looked up).`),
    'nothing was downloaded (--dry-run).',
  ];
  return `${lines.join('\n')}\n`;
}
