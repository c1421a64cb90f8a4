// What the Census-API-compatible discovery documents describe, read from the stores: each
// dataset and vintage with values in this build, its levels and held tables (observations), and
// the metadata of its codes (censusTables). Computed once per store generation: a build is
// immutable, and a replica that switches builds opens new stores.
import type { CensusTableStore } from '../store/census-tables.js';
import type { ObservationStore } from '../store/observations.js';
import { GEO_TYPES, type GeoType } from '../domain/geo/keys.js';
import { datasetByBureauPath, datasetKeys, datasetSpec } from '../domain/datasets.js';
import type { DiscoveryMetadata, ServedDataset } from '../domain/census-api/discovery-served.js';

const servedCache = new WeakMap<ObservationStore, WeakMap<CensusTableStore, ServedDataset[]>>();

export function servedDatasets(obs: ObservationStore, tables: CensusTableStore): ServedDataset[] {
  let byTables = servedCache.get(obs);
  if (!byTables) servedCache.set(obs, (byTables = new WeakMap()));
  let served = byTables.get(tables);
  if (!served) byTables.set(tables, (served = computeServed(obs, tables)));
  return served;
}

function computeServed(obs: ObservationStore, tables: CensusTableStore): ServedDataset[] {
  const out: ServedDataset[] = [];
  const allTables = tables.tableIds();
  // Sorted by key, so acs1 comes before acs5 as the Bureau's catalogue lists them.
  for (const dataset of datasetKeys().sort()) {
    const vintages = new Set<number>();
    for (const level of GEO_TYPES) for (const v of obs.loadedVintages(dataset, level)) vintages.add(v);
    // Only the registry's vintages: a built one it does not list is refused by the query, so not listed.
    for (const vintage of [...vintages].filter((v) => datasetSpec(dataset).vintages.includes(v)).sort((a, b) => a - b)) {
      const levels = GEO_TYPES.filter((l): l is GeoType => obs.has(dataset, vintage, l));
      const held = allTables.filter((t) => obs.hasTableAnyLevel(dataset, vintage, t) && tables.apiColumns(dataset, t, vintage).length > 0);
      out.push({ dataset, vintage, levels, tables: held });
    }
  }
  return out;
}

/** The served dataset and vintage a path names: `dataset` is the segment after acs/ (`acs1`). */
export function findServed(served: ServedDataset[], dataset: string, vintage: string): ServedDataset | undefined {
  const key = datasetByBureauPath(`acs/${dataset}`)?.key;
  return served.find((s) => s.dataset === key && String(s.vintage) === vintage);
}

/** The metadata of one dataset and vintage, as the pure document builders read it. */
export function discoveryMetadata(tables: CensusTableStore, s: ServedDataset): DiscoveryMetadata {
  return {
    columns: (t) => tables.apiColumns(s.dataset, t, s.vintage),
    table: (t) => tables.tableVersion(s.dataset, t, s.vintage),
  };
}
