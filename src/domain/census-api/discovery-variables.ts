// The variable documents in the Census Data API's shapes:
//   variables.json        {"variables": {code: {label, concept, predicateType, group, limit, …}}}
//   variables/{code}.json {name, label, concept, predicateType, group, limit, …}
//   groups/{table}.json   {"variables": {…every E, EA, M and MA of the table…}}
// built from our metadata for one dataset and vintage.
//
// What the metadata gives and what is derived (docs/census-api.md, "Discovery documents"):
// - Estimate labels are the Bureau's verbatim API labels where the build has them (acs1
//   2005–2018); elsewhere the table shells' titles joined with `!!`, given the API's `Estimate!!`
//   prefix.
// - Margin-of-error labels are `Margin of Error!!` + the estimate's label after `Estimate!!`, and
//   annotation labels `Annotation of ` + the label of the variable annotated: in every verbatim
//   list the build reads (acs1 2005–2018) each M and annotation label is exactly that.
// - `concept` is the table's title as published that vintage, upper-cased as the API wrote
//   concepts through 2022 (mixed case from 2023).
// - `predicateType` is the API's own where the verbatim lists give it, and otherwise chosen by the
//   rules of predicate-types.ts (the metadata handed in has every code typed); annotation
//   variables are `string`, as the API types them.
// - Variables listed in variables.json are the estimates (`…E`) of the tables whose values this
//   build holds; their margins and annotations are named in `attributes`, as the Bureau lists them.
import { API_VARIABLE } from '../census-codes.js';
import { conceptOf, type DiscoveryColumn, type DiscoveryMetadata, type ServedDataset } from './discovery-served.js';

export interface VariableEntry {
  label: string;
  concept: string;
  predicateType?: string;
  group: string;
  limit: number;
  predicateOnly?: boolean;
  hasGeoCollectionSupport?: boolean;
  attributes?: string;
}

export interface VariablesDocument {
  variables: Record<string, VariableEntry>;
}

const GEOGRAPHY_SPEC = 'Census API Geography Specification';

/** The predicate and identifier variables every ACS dataset lists before its estimates. */
function fixedVariables(): Record<string, VariableEntry> {
  const predicate = (label: string, predicateType: string): VariableEntry => ({
    label,
    concept: GEOGRAPHY_SPEC,
    predicateType,
    group: 'N/A',
    limit: 0,
    predicateOnly: true,
  });
  return {
    for: predicate("Census API FIPS 'for' clause", 'fips-for'),
    in: predicate("Census API FIPS 'in' clause", 'fips-in'),
    ucgid: { ...predicate('Uniform Census Geography Identifier clause', 'ucgid'), hasGeoCollectionSupport: true },
    NAME: {
      label: 'Geographic Area Name',
      concept: 'Selectable Geographies',
      predicateType: 'string',
      group: 'N/A',
      limit: 0,
      predicateOnly: true,
    },
    GEO_ID: { label: 'Geography', concept: 'Selectable Geographies', predicateType: 'string', group: 'N/A', limit: 0, predicateOnly: true },
  };
}

const ESTIMATE = 'Estimate!!';
const MOE = 'Margin of Error!!';

function estimateLabel(c: DiscoveryColumn): string {
  const label = c.label ?? c.code;
  return label.startsWith(ESTIMATE) ? label : ESTIMATE + label;
}

/** A table's variables in one vintage: each estimate, then its annotation, margin and margin's annotation. */
function tableVariables(meta: DiscoveryMetadata, tableId: string, vintage: number, all: boolean): Array<[string, VariableEntry]> {
  const concept = conceptOf(meta.table(tableId)?.title ?? null, tableId, vintage);
  const out: Array<[string, VariableEntry]> = [];
  for (const c of meta.columns(tableId)) {
    const base = c.code.slice(0, -1);
    const eLabel = estimateLabel(c);
    const mLabel = MOE + eLabel.slice(ESTIMATE.length);
    const typed = c.predicate_type ? { predicateType: c.predicate_type } : {};
    const attributes = c.has_moe ? `${base}EA,${base}M,${base}MA` : `${base}EA`;
    out.push([c.code, { label: eLabel, concept, ...typed, group: tableId, limit: 0, attributes }]);
    if (!all) continue;
    const annotation = (label: string): VariableEntry => ({
      label: `Annotation of ${label}`,
      concept,
      predicateType: 'string',
      group: tableId,
      limit: 0,
      predicateOnly: true,
    });
    out.push([`${base}EA`, annotation(eLabel)]);
    if (c.has_moe) {
      out.push([`${base}M`, { label: mLabel, concept, ...typed, group: tableId, limit: 0, predicateOnly: true }]);
      out.push([`${base}MA`, annotation(mLabel)]);
    }
  }
  return out;
}

export function variablesDocument(served: ServedDataset, meta: DiscoveryMetadata): VariablesDocument {
  const variables = fixedVariables();
  for (const t of served.tables) for (const [code, entry] of tableVariables(meta, t, served.vintage, false)) variables[code] = entry;
  return { variables };
}

/** groups/{table}.json; null when the table is not served in this dataset and vintage. */
export function groupVariablesDocument(served: ServedDataset, meta: DiscoveryMetadata, tableId: string): VariablesDocument | null {
  if (!served.tables.includes(tableId)) return null;
  const entries = tableVariables(meta, tableId, served.vintage, true);
  return entries.length ? { variables: Object.fromEntries(entries) } : null;
}

/** A code's table: `B19013_001MA` → `B19013`; null for a name that is not a Detailed-Table code. */
export function tableOfVariable(code: string): string | null {
  const m = API_VARIABLE.exec(code);
  return m ? m[1]! : null;
}

/** variables/{code}.json: `{name, …entry}`; null for a name this dataset and vintage does not serve. */
export function variableDocument(served: ServedDataset, meta: DiscoveryMetadata, name: string): ({ name: string } & VariableEntry) | null {
  const fixed = fixedVariables()[name];
  if (fixed) return { name, ...fixed };
  const table = tableOfVariable(name);
  if (!table) return null;
  const entry = groupVariablesDocument(served, meta, table)?.variables[name];
  return entry ? { name, ...entry } : null;
}
