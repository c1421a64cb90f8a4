// What the Census-API-compatible discovery documents describe: the datasets, vintages and
// geography levels whose values this build holds, and the tables held in each. The verbs read it
// from the stores; the documents never list a dataset, level or table the query endpoint cannot
// answer from data.
import { datasetSpec, type DatasetKey } from '../datasets.js';
import type { GeoType } from '../geo/keys.js';

export type CensusApiDataset = DatasetKey;

export interface ServedDataset {
  dataset: CensusApiDataset;
  vintage: number;
  /** Our levels with values in this dataset and vintage, in GEO_TYPES order. */
  levels: GeoType[];
  /** Tables with values at any of those levels, sorted. */
  tables: string[];
}

/** One published estimate code of a table, as the metadata store describes it for one vintage. */
export interface DiscoveryColumn {
  code: string;
  label: string | null;
  predicate_type: 'int' | 'float' | null;
  has_moe: boolean;
}

/** The metadata a dataset's documents are built from (the census-tables store, for one dataset and vintage). */
export interface DiscoveryMetadata {
  columns(tableId: string): DiscoveryColumn[];
  table(tableId: string): { title: string | null; universe: string | null } | null;
}

/** The Bureau's dataset path below /data/{vintage}/: `acs/acs1`. */
export const datasetPath = (d: CensusApiDataset) => datasetSpec(d).bureauPath;

/** The Bureau's dataset identifier (data.json `identifier`, read by cenpy): `ACSDT1Y2018`. */
export const datasetIdentifier = (d: CensusApiDataset, vintage: number) => `${datasetSpec(d).identifierPrefix}${vintage}`;

/** The query endpoint of a dataset, under this service's public base address. */
export const accessUrl = (base: string, s: Pick<ServedDataset, 'dataset' | 'vintage'>) =>
  `${base}/data/${s.vintage}/${datasetPath(s.dataset)}`;

/** The first vintage whose API concepts are mixed case (earlier: upper case). */
const MIXED_CASE_CONCEPTS_FROM = 2023;

/** A table's `concept` (and group `description`): its title as published, upper-cased as the API wrote it through 2022. */
export function conceptOf(title: string | null, tableId: string, vintage: number): string {
  const t = title ?? tableId;
  return vintage < MIXED_CASE_CONCEPTS_FROM ? t.toUpperCase() : t;
}
