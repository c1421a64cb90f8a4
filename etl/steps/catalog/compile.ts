// Compile the validated source + metadata into the served catalog: per dataset and vintage, how
// each variable resolves (a published code, a formula, or unavailable and why).
import { componentCodes, formatFormula, parseFormula } from '../../../src/domain/formula.js';
import { InputError } from '../../step.js';
import type { CatalogVariable as CompiledVariable, CompiledCatalog, Resolution } from '../../../src/store/catalog.js';
import { compareToReference, normalizeLabel, normalizeUniverse } from './comparability.js';
import { SPEC_VINTAGES, type CodeVintages, type Dataset, type VintageInfo } from './metadata.js';
import { codesOf, type CatalogSource, type SourceVariable } from './source.js';

// The compiled format is the store's contract (src/store/catalog.ts): one definition of it.
export type { CatalogVariable as CompiledVariable, CompiledCatalog, Resolution } from '../../../src/store/catalog.js';

/** Validate that every code the catalog names exists somewhere in the metadata. */
export function checkCodesExist(source: CatalogSource, known: Map<string, unknown>): void {
  for (const v of source.variables) {
    for (const code of codesOf(v)) {
      if (!known.has(code)) throw new InputError(v.file, `${v.api_name}: census code ${code} does not exist in any vintage of the ACS metadata`);
    }
  }
}

interface Spec {
  /** Codes whose values are needed, and the reference code each is compared against. */
  codes: { code: string; refCode: string }[];
  resolution: Exclude<Resolution, { kind: 'unavailable' }>;
}

function specFor(v: SourceVariable, dataset: Dataset, vintage: number): Spec {
  const inRange = (o: { dataset: string; from: number; to: number }): boolean => o.dataset === dataset && vintage >= o.from && vintage <= o.to;
  if (v.census_code) {
    const o = (v.vintage_overrides ?? []).find(inRange);
    const code = o?.census_code ?? v.census_code;
    return { codes: [{ code, refCode: v.census_code }], resolution: { kind: 'direct', code } };
  }
  const main = componentCodes(parseFormula(v.formula!));
  const o = (v.formula_overrides ?? []).find(inRange);
  const f = parseFormula(o?.formula ?? v.formula!);
  const codes = componentCodes(f);
  return {
    codes: codes.map((code, i) => ({ code, refCode: main[i]! })),
    resolution: { kind: 'derived', formula: formatFormula(f), codes },
  };
}

/** The reference facts for a code: its latest vintage in the dataset that has a label. */
function reference(meta: CodeVintages, dataset: Dataset, code: string): VintageInfo | undefined {
  const byVintage = meta.get(dataset)!.get(code);
  if (!byVintage) return undefined;
  const withLabel = [...byVintage.entries()].filter(([, i]) => i.label !== null).sort((a, b) => b[0] - a[0]);
  return withLabel[0]?.[1];
}

/** A presence-only vintage borrows the label of the nearest later vintage of the same code. */
function labelled(meta: CodeVintages, dataset: Dataset, code: string, vintage: number): { info: VintageInfo; borrowed: boolean } | undefined {
  const byVintage = meta.get(dataset)!.get(code);
  const info = byVintage?.get(vintage);
  if (!info) return undefined;
  if (info.label !== null) return { info, borrowed: false };
  const later = [...byVintage!.entries()].filter(([v, i]) => v > vintage && i.label !== null).sort((a, b) => a[0] - b[0])[0];
  return { info: later ? later[1] : info, borrowed: true };
}

export function compileCatalog(source: CatalogSource, meta: CodeVintages): CompiledCatalog {
  const topicByKey = new Map(source.topics.map((t) => [t.topic_key, t]));
  const variables = source.variables.map((v): CompiledVariable => {
    const accepted = new Set((v.accept_label_variants ?? []).map(normalizeLabel));
    const acceptedUniverses = new Set((v.accept_universe_variants ?? []).map(normalizeUniverse));
    const availability = { acs1: [] as number[], acs5: [] as number[] };
    const notComparable = { acs1: [] as { vintage: number; reason: string }[], acs5: [] as { vintage: number; reason: string }[] };
    const unverified = { acs1: [] as number[], acs5: [] as number[] };
    const resolution = { acs1: {} as Record<string, Resolution>, acs5: {} as Record<string, Resolution> };
    for (const dataset of ['acs1', 'acs5'] as const) {
      for (const vintage of SPEC_VINTAGES[dataset]) {
        const spec = specFor(v, dataset, vintage);
        let result: Resolution = spec.resolution;
        let borrowedAny = false;
        for (const { code, refCode } of spec.codes) {
          const found = labelled(meta, dataset, code, vintage);
          if (!found) {
            result = { kind: 'unavailable', reason: 'not_in_vintage' };
            break;
          }
          const ref = reference(meta, dataset, refCode);
          if (!ref || found.info.label === null) {
            borrowedAny = true; // nothing to compare against: presence only
            continue;
          }
          borrowedAny ||= found.borrowed;
          const cmp = compareToReference(
            { label: ref.label!, universe: ref.universe },
            { label: found.info.label, universe: found.info.universe },
            accepted,
            acceptedUniverses,
          );
          if (!cmp.comparable) {
            result = { kind: 'unavailable', reason: 'not_comparable' };
            notComparable[dataset].push({ vintage, reason: `${code}${code !== refCode ? ` (for ${refCode})` : ''}: ${cmp.reason}` });
            break;
          }
        }
        resolution[dataset][String(vintage)] = result;
        if (result.kind !== 'unavailable') {
          availability[dataset].push(vintage);
          if (borrowedAny) unverified[dataset].push(vintage);
        }
      }
    }
    const t = topicByKey.get(v.topic)!;
    return {
      api_name: v.api_name,
      census_code: v.census_code,
      label: v.label,
      unit: v.unit,
      topic: { topic_key: t.topic_key, label: t.label, depth: t.depth },
      display_format: v.display_format,
      formula: v.formula ? formatFormula(parseFormula(v.formula)) : null,
      component_codes: v.formula ? componentCodes(parseFormula(v.formula)) : null,
      availability,
      not_comparable: notComparable,
      unverified_vintages: unverified,
      resolution,
      notes: v.notes ?? null,
    };
  });
  return {
    schema_version: 1,
    topics: source.topics.map((t) => ({ topic_key: t.topic_key, label: t.label, depth: t.depth, parent: t.parent ?? null })),
    datasets: { acs5: { vintages: SPEC_VINTAGES.acs5 }, acs1: { vintages: SPEC_VINTAGES.acs1 } },
    variables,
  };
}
