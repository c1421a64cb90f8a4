// What the Census-API-compatible discovery documents describe, read from the stores: each
// dataset and vintage with values in this build, its levels and held tables (observations), and
// the metadata of its codes (censusTables). Computed once per store generation: a build is
// immutable, and a replica that switches builds opens new stores.
import type { CensusTableStore } from '../store/census-tables.js';
import type { ObservationStore } from '../store/observations.js';
import { GEO_TYPES, type GeoType } from '../domain/geo/keys.js';
import { datasetByBureauPath, datasetKeys, datasetSpec } from '../domain/datasets.js';
import type { DiscoveryMetadata, ServedDataset } from '../domain/census-api/discovery-served.js';
import {
  choosePredicateType,
  nearestBureauType,
  typeOfPublishedValues,
  type PredicateType,
  type TypedVintage,
} from '../domain/census-api/predicate-types.js';

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

/** Each served dataset's codes' predicateType, computed once per store generation. */
const typesCache = new WeakMap<CensusTableStore, Map<string, Promise<Map<string, PredicateType>>>>();

/**
 * The predicateType of every estimate code of `s`'s tables (src/domain/census-api/predicate-types.ts):
 * the Bureau's for this vintage, else its nearest typed vintage's, else what the values published
 * here show (read at the coarsest level holding the table), else `int`.
 */
function predicateTypes(tables: CensusTableStore, obs: ObservationStore, s: ServedDataset): Promise<Map<string, PredicateType>> {
  let byServed = typesCache.get(tables);
  if (!byServed) typesCache.set(tables, (byServed = new Map()));
  const key = `${s.dataset}/${s.vintage}`;
  let types = byServed.get(key);
  if (!types) {
    const computing = computeTypes(tables, obs, s);
    // A failed read (a partition found damaged answers 503) is not kept: the next request tries again.
    computing.catch(() => byServed.delete(key));
    byServed.set(key, (types = computing));
  }
  return types;
}

async function computeTypes(tables: CensusTableStore, obs: ObservationStore, s: ServedDataset): Promise<Map<string, PredicateType>> {
  const out = new Map<string, PredicateType>();
  for (const t of s.tables) {
    const untyped: string[] = [];
    for (const c of tables.apiColumns(s.dataset, t, s.vintage)) {
      if (c.predicate_type) out.set(c.code, c.predicate_type);
      else untyped.push(c.code);
    }
    if (untyped.length === 0) continue;
    // Rule 2: the Bureau's type of the same code in its other typed vintages and datasets.
    const candidates = new Map<string, TypedVintage[]>(untyped.map((c) => [c, []]));
    for (const dataset of datasetKeys())
      for (const vintage of datasetSpec(dataset).vintages)
        for (const c of tables.apiColumns(dataset, t, vintage))
          if (c.predicate_type) candidates.get(c.code)?.push({ dataset, vintage, type: c.predicate_type });
    // Rule 3: the values published here, at the coarsest level that holds the table.
    const level = s.levels.find((l) => obs.hasTable(s.dataset, s.vintage, l, t));
    const needValues = untyped.filter((c) => nearestBureauType(s.dataset, s.vintage, candidates.get(c)!) === null);
    const texts = new Map<string, string[]>(needValues.map((c) => [c, []]));
    if (level && needValues.length > 0) {
      const cells = await obs.fetch({ dataset: s.dataset, vintages: [s.vintage], level, geoKeys: 'all', codes: needValues });
      for (const [k, cell] of cells) if (cell.estimate !== null) texts.get(k.slice(k.lastIndexOf('|') + 1))?.push(String(cell.estimate));
      // Cells whose published text is not the stored number's (`35.0`) are kept in the published form.
      for (const cols of Object.values((await obs.publishedForm(s.dataset, s.vintage, level))?.text ?? {}))
        for (const [col, text] of Object.entries(cols)) if (text !== null) texts.get(col)?.push(text);
    }
    for (const code of untyped) {
      const chosen = choosePredicateType(null, nearestBureauType(s.dataset, s.vintage, candidates.get(code)!), () =>
        typeOfPublishedValues(texts.get(code) ?? []),
      );
      out.set(code, chosen.type);
    }
  }
  return out;
}

/** The metadata of one dataset and vintage, as the pure document builders read it (every code typed). */
export async function discoveryMetadata(tables: CensusTableStore, obs: ObservationStore, s: ServedDataset): Promise<DiscoveryMetadata> {
  const types = await predicateTypes(tables, obs, s);
  return {
    columns: (t) =>
      tables.apiColumns(s.dataset, t, s.vintage).map((c) => ({ ...c, predicate_type: types.get(c.code) ?? c.predicate_type })),
    table: (t) => tables.tableVersion(s.dataset, t, s.vintage),
  };
}
