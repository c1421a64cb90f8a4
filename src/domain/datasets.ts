// The registry of datasets: every dataset the service knows (its key, the Bureau's path, vintages,
// levels, where the ETL reads its values and labels, and its wording) is declared here once. The
// ETL, the stores, the catalogue, the request schemas, the MCP descriptions and the Census Data API
// paths read this registry instead of naming datasets themselves, so a new dataset is one
// `registerDataset` call (docs/datasets.md, "Adding a dataset").
import { AppError, quoteInput } from './errors.js';
import { GEO_TYPES } from './geo/keys.js';

/** A registered dataset's key (`acs5`, `acs1`, or one added with registerDataset); parseDataset checks it. */
export type DatasetKey = string;

export interface DatasetSpec {
  /** The `dataset` parameter's value and the Parquet partition name (`dataset=acs1`). */
  key: DatasetKey;
  /**
   * The Bureau's path below /data/{vintage}/ (`acs/acs1`); also the source files' folder below
   * api/{vintage}/. Always `acs/<name>`: the Census-API-compatible routes serve the ACS program's paths.
   */
  bureauPath: string;
  label: string;
  /** Short name for headings and messages: `ACS 1-year`. */
  shortLabel: string;
  /** The Bureau's catalogue (data.json) title and the name its description starts with. */
  catalog: { title: string; estimates: string };
  description: string;
  /** Years pooled in one vintage's estimates: 5 for acs5 (2018 covers 2014–2018). */
  periodYears: number;
  /** The Bureau's dataset identifier prefix in data.json (`ACSDT1Y` + vintage). */
  identifierPrefix: string;
  /** The vintages the service covers, ascending. */
  vintages: number[];
  /** Why a year inside the range has no release, said when it is asked for. */
  notReleased?: Record<number, string>;
  /** Geography levels the Bureau publishes the dataset for. */
  levels: string[];
  /** Minimum population for an area to be published (null: no threshold). */
  populationThreshold: number | null;
  /** Where the ETL reads the dataset (paths relative to the source root; docs/ingest.md). */
  sources: {
    /** Census Reporter table shells under metadata/{key}/{vintage}/. */
    shells: boolean;
    /** Folder of the Bureau's verbatim variable lists, `{vintage}.csv.gz` (VARIABLE, LABEL, GROUP). */
    apiLabels: string | null;
    /** Presence-only years read from metadata/acs_detailed_variable_availability.csv.gz. */
    availabilityYears: number[];
  };
}

const range = (from: number, to: number, except: number[] = []) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i).filter((y) => !except.includes(y));

/** Minimum population for an area to be published in ACS 1-year estimates. */
export const ACS1_POPULATION_THRESHOLD = 65_000;

/** Keeps a built-in entry's key literal, so BuiltInDatasetKey is derived from the entries. */
const builtIn = <K extends string>(spec: DatasetSpec & { key: K }) => spec;

const BUILT_IN = [
  builtIn({
    key: 'acs5',
    bureauPath: 'acs/acs5',
    label: 'American Community Survey 5-year estimates',
    shortLabel: 'ACS 5-year',
    catalog: { title: 'ACS 5-Year Detailed Tables', estimates: 'American Community Survey 5-year estimates' },
    description: 'Pooled 60 months of responses; every geography down to block groups (tracts and block groups from 2017 here).',
    periodYears: 5,
    identifierPrefix: 'ACSDT5Y',
    vintages: range(2009, 2024),
    levels: [...GEO_TYPES],
    populationThreshold: null,
    sources: { shells: true, apiLabels: null, availabilityYears: [2009] },
  }),
  builtIn({
    key: 'acs1',
    bureauPath: 'acs/acs1',
    label: 'American Community Survey 1-year estimates (geographies of 65,000+ population)',
    shortLabel: 'ACS 1-year',
    catalog: { title: 'ACS 1-Year Detailed Tables', estimates: 'American Community Survey 1-year estimates' },
    description: 'Twelve months of responses; only areas of 65,000 people or more.',
    periodYears: 1,
    identifierPrefix: 'ACSDT1Y',
    vintages: range(2005, 2024, [2020]),
    notReleased: { 2020: 'The 2020 ACS 1-year estimates were not released as standard estimates.' },
    levels: ['nation', 'state', 'county', 'metro', 'cd'],
    populationThreshold: ACS1_POPULATION_THRESHOLD,
    sources: { shells: true, apiLabels: 'metadata/api_labels/acs1', availabilityYears: [] },
  }),
];

/** The datasets the service ships with: the curated catalogue and every complete build cover them. */
export type BuiltInDatasetKey = (typeof BUILT_IN)[number]['key'];

/**
 * A value per dataset: always present for the built-in ones, possibly absent for a dataset
 * registered later (a build or a curated catalogue made before it was registered).
 */
export type PerDataset<T> = Record<BuiltInDatasetKey, T> & Partial<Record<DatasetKey, T>>;

const REGISTRY = new Map<DatasetKey, DatasetSpec>(BUILT_IN.map((d): [DatasetKey, DatasetSpec] => [d.key, d]));

/**
 * Add a dataset to the registry. Call it before the ETL runs or the app is built (a deployment's
 * start script, a test's setup): the request schemas, discovery and descriptions read the registry
 * when they are built. Registering a key twice is an error, so two modules cannot silently disagree.
 */
export function registerDataset(spec: DatasetSpec): void {
  if (!/^[a-z][a-z0-9_]*$/.test(spec.key)) throw new Error(`dataset key "${spec.key}" must be lower-case letters, digits and _`);
  if (!/^acs\/[a-z0-9_]+$/.test(spec.bureauPath)) throw new Error(`dataset "${spec.key}": bureauPath must be acs/<name>`);
  if (datasetByBureauPath(spec.bureauPath)) throw new Error(`dataset "${spec.key}": bureauPath ${spec.bureauPath} is taken`);
  if (REGISTRY.has(spec.key)) throw new Error(`dataset "${spec.key}" is already registered`);
  if (!spec.vintages.length) throw new Error(`dataset "${spec.key}" has no vintages`);
  REGISTRY.set(spec.key, { ...spec, vintages: [...spec.vintages].sort((a, b) => a - b) });
}

/** Remove a dataset added with registerDataset (tests that register a fixture clean up with it). */
export function unregisterDataset(key: DatasetKey): void {
  if (BUILT_IN.some((d) => d.key === key)) throw new Error(`dataset "${key}" is built in`);
  REGISTRY.delete(key);
}

/** Whether the dataset ships with the service (every complete build holds it) rather than being registered at start. */
export function isBuiltInDataset(key: DatasetKey): boolean {
  return BUILT_IN.some((d) => d.key === key);
}

/** The dataset a hint suggests instead of `key`: the other built-in one (acs1 ↔ acs5), else the default. */
export function otherDataset(key: DatasetKey): DatasetKey {
  return isBuiltInDataset(key) ? BUILT_IN.find((d) => d.key !== key)!.key : DEFAULT_DATASET;
}

/** Every registered dataset key, the built-in ones first (acs5, the default, then acs1). */
export function datasetKeys(): DatasetKey[] {
  return [...REGISTRY.keys()];
}

export function isDatasetKey(value: string): value is DatasetKey {
  return REGISTRY.has(value);
}

/** A registered dataset's specification; throws for an unknown key (parse input with parseDataset). */
export function datasetSpec(key: DatasetKey): DatasetSpec {
  const spec = REGISTRY.get(key);
  if (!spec) throw new Error(`dataset "${key}" is not registered`);
  return spec;
}

/** The registered dataset whose Bureau path is `path` (`acs/acs1`), if any. */
export function datasetByBureauPath(path: string): DatasetSpec | undefined {
  return [...REGISTRY.values()].find((d) => d.bureauPath === path);
}

/** One record per registered dataset, e.g. `{ acs5: [], acs1: [] }`. */
export function perDataset<T>(make: (key: DatasetKey) => T): PerDataset<T> {
  return Object.fromEntries(datasetKeys().map((k) => [k, make(k)])) as PerDataset<T>;
}

export const DEFAULT_DATASET: DatasetKey = 'acs5';

export function latestVintage(dataset: DatasetKey): number {
  return datasetSpec(dataset).vintages.at(-1)!;
}

export function parseDataset(value: string | undefined): DatasetKey {
  if (value === undefined || value === '') return DEFAULT_DATASET;
  const key = value.trim().toLowerCase();
  if (REGISTRY.has(key)) return key;
  const others = datasetKeys()
    .filter((k) => k !== DEFAULT_DATASET)
    .map((k) => `${k} (${datasetSpec(k).shortLabel})`);
  throw new AppError(
    'invalid-dataset',
    `Dataset "${quoteInput(value)}" is not recognized. Use ${DEFAULT_DATASET} (${datasetSpec(DEFAULT_DATASET).shortLabel}, the default)${others.length ? ` or ${others.join(', ')}` : ''}.`,
    {
      extensions: { supported_datasets: datasetKeys() },
    },
  );
}

function vintageList(): string {
  return datasetKeys()
    .map((d) => {
      const v = datasetSpec(d).vintages;
      const gaps = range(v[0]!, v.at(-1)!).filter((y) => !v.includes(y));
      return `${d}: ${v[0]}–${v.at(-1)}${gaps.length ? ` except ${gaps.join(', ')}` : ''}`;
    })
    .join('; ');
}

/**
 * The dataset's vintage, checked against the registry. `built`: the build's partitions
 * (`dataset/vintage/level`), so that a vintage the build holds but the registry does not list is
 * refused saying so, rather than as if it did not exist (docs/datasets.md).
 */
export function checkVintage(dataset: DatasetKey, vintage: number | undefined, built?: ReadonlySet<string>): number {
  if (vintage === undefined) return latestVintage(dataset);
  const spec = datasetSpec(dataset);
  if (!spec.vintages.includes(vintage)) {
    const inBuild = built !== undefined && [...built].some((p) => p.startsWith(`${dataset}/${vintage}/`));
    const why = spec.notReleased?.[vintage]
      ? ` ${spec.notReleased[vintage]}`
      : inBuild
        ? ` This deployment's data build holds ${dataset} ${vintage}, but the service's dataset registry does not list that vintage, so it is not served until the registry does.`
        : '';
    throw new AppError(
      'invalid-vintage',
      `Vintage ${vintage} is not available for ${dataset}.${why} Supported vintages — ${vintageList()}.`,
      {
        extensions: { supported_vintages: perDataset((k) => datasetSpec(k).vintages) },
      },
    );
  }
  return vintage;
}

/**
 * Partitions of a build (`dataset/vintage/level`) that the registry does not serve: an unknown
 * dataset or a vintage its dataset does not list. Reported at start, never dropped silently.
 */
export function unregisteredPartitions(partitions: Iterable<string>): string[] {
  return [...partitions].filter((p) => {
    const [dataset, vintage] = p.split('/');
    return !REGISTRY.get(dataset!)?.vintages.includes(Number(vintage));
  });
}

/** The period a vintage's estimates describe, e.g. "2014–2018" for acs5 2018. */
export function referencePeriod(dataset: DatasetKey, vintage: number): string {
  const years = datasetSpec(dataset).periodYears;
  return years > 1 ? `${vintage - years + 1}–${vintage}` : `${vintage}`;
}

export const CENSUS_PROGRAM = 'U.S. Census Bureau, American Community Survey';
