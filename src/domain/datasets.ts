// The two ACS datasets the service serves, their vintages per the spec, and how a request's
// dataset / vintage parameters are checked. One place, read by the verbs, the catalog and docs.
import { AppError } from './errors.js';
import { GEO_TYPES } from './geo/keys.js';

export type DatasetKey = 'acs5' | 'acs1';

export const DEFAULT_DATASET: DatasetKey = 'acs5';

const range = (from: number, to: number, except: number[] = []) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i).filter((y) => !except.includes(y));

export const DATASETS: Record<DatasetKey, { label: string; vintages: number[]; levels: string[]; description: string }> = {
  acs5: {
    label: 'American Community Survey 5-year estimates',
    vintages: range(2009, 2024),
    levels: [...GEO_TYPES],
    description: 'Pooled 60 months of responses; every geography down to block groups (tracts and block groups from 2017 here).',
  },
  acs1: {
    label: 'American Community Survey 1-year estimates (geographies of 65,000+ population)',
    // 2020 was not released as standard 1-year estimates (pandemic data collection).
    vintages: range(2005, 2024, [2020]),
    levels: ['nation', 'state', 'county', 'metro', 'cd'],
    description: 'Twelve months of responses; only areas of 65,000 people or more.',
  },
};

/** Minimum population for an area to be published in ACS 1-year estimates. */
export const ACS1_POPULATION_THRESHOLD = 65_000;

export function latestVintage(dataset: DatasetKey): number {
  return DATASETS[dataset].vintages.at(-1)!;
}

export function parseDataset(value: string | undefined): DatasetKey {
  if (value === undefined || value === '') return DEFAULT_DATASET;
  const key = value.trim().toLowerCase();
  if (key === 'acs5' || key === 'acs1') return key;
  throw new AppError(
    'invalid-dataset',
    `Dataset "${value}" is not recognized. Use acs5 (5-year estimates, the default) or acs1 (1-year estimates).`,
    {
      extensions: { supported_datasets: Object.keys(DATASETS) },
    },
  );
}

function vintageList(): string {
  return (Object.keys(DATASETS) as DatasetKey[])
    .map((d) => {
      const v = DATASETS[d].vintages;
      const gaps = range(v[0]!, v.at(-1)!).filter((y) => !v.includes(y));
      return `${d}: ${v[0]}–${v.at(-1)}${gaps.length ? ` except ${gaps.join(', ')}` : ''}`;
    })
    .join('; ');
}

export function checkVintage(dataset: DatasetKey, vintage: number | undefined): number {
  if (vintage === undefined) return latestVintage(dataset);
  if (!DATASETS[dataset].vintages.includes(vintage)) {
    const why = dataset === 'acs1' && vintage === 2020 ? ' The 2020 ACS 1-year estimates were not released as standard estimates.' : '';
    throw new AppError(
      'invalid-vintage',
      `Vintage ${vintage} is not available for ${dataset}.${why} Supported vintages — ${vintageList()}.`,
      {
        extensions: { supported_vintages: Object.fromEntries(Object.entries(DATASETS).map(([k, d]) => [k, d.vintages])) },
      },
    );
  }
  return vintage;
}

/** The period a vintage's estimates describe, e.g. "2014–2018" for acs5 2018. */
export function referencePeriod(dataset: DatasetKey, vintage: number): string {
  return dataset === 'acs5' ? `${vintage - 4}–${vintage}` : `${vintage}`;
}

export const CENSUS_PROGRAM = 'U.S. Census Bureau, American Community Survey';
