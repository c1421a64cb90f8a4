// Compile the validated source + metadata into the served catalog: per dataset and vintage, how
// each variable resolves (a published code, a formula, or unavailable and why).
import { componentCodes, formatFormula, parseFormula, type Formula } from '../../../src/domain/formula.js';
import { InputError } from '../../step.js';
import type { CatalogVariable as CompiledVariable, CompiledCatalog, Resolution } from '../../../src/store/catalog.js';
import { Comparator } from './comparability.js';
import { listLacks, SPEC_VINTAGES, tableKey, tableOf, type CatalogMetadata, type Dataset, type VintageInfo } from './metadata.js';
import { codesOf, type CatalogSource, type SourceVariable } from './source.js';

// The compiled format is the store's contract (src/store/catalog.ts): one definition of it.
export type { CatalogVariable as CompiledVariable, CompiledCatalog, Resolution } from '../../../src/store/catalog.js';

/**
 * Validate that every code the catalog names exists somewhere in the metadata. `described`: only
 * codes of these tables can be checked (the metadata covers part of the tables, see knownFromLoaded).
 */
export function checkCodesExist(source: CatalogSource, known: { has(code: string): boolean }, described?: ReadonlySet<string>): void {
  for (const v of source.variables) {
    for (const code of codesOf(v)) {
      if (described && !described.has(tableOf(code))) continue;
      if (!known.has(code))
        throw new InputError(v.file, `${v.api_name}: census code ${code} does not exist in any vintage of the ACS metadata`);
    }
  }
}

interface Spec {
  /** The formula used in this vintage (a direct variable is its one code). */
  formula: Formula;
  /** Each code of this vintage's formula → the code at the same position of the main formula. */
  refOf: Map<string, string>;
  resolution: Exclude<Resolution, { kind: 'unavailable' }>;
}

function specFor(v: SourceVariable, dataset: Dataset, vintage: number): Spec {
  const inRange = (o: { dataset: string; from: number; to: number }): boolean =>
    o.dataset === dataset && vintage >= o.from && vintage <= o.to;
  if (v.census_code) {
    const o = (v.vintage_overrides ?? []).find(inRange);
    const code = o?.census_code ?? v.census_code;
    return { formula: { kind: 'code', code }, refOf: new Map([[code, v.census_code]]), resolution: { kind: 'direct', code } };
  }
  const main = componentCodes(parseFormula(v.formula!));
  const o = (v.formula_overrides ?? []).find(inRange);
  const f = parseFormula(o?.formula ?? v.formula!);
  const codes = componentCodes(f);
  return {
    formula: f,
    refOf: new Map(codes.map((code, i) => [code, main[i]!])),
    resolution: { kind: 'derived', formula: formatFormula(f), codes },
  };
}

interface Labelled {
  info: VintageInfo;
  /** The vintage the label belongs to (a later one when borrowed). */
  vintage: number;
  borrowed: boolean;
}

/** The reference facts for a code: its latest vintage in the dataset that has a label. */
function reference(meta: CatalogMetadata, dataset: Dataset, code: string): Labelled | undefined {
  const byVintage = meta.codes.get(dataset)!.get(code);
  if (!byVintage) return undefined;
  const withLabel = [...byVintage.entries()].filter(([, i]) => i.label !== null).sort((a, b) => b[0] - a[0]);
  const top = withLabel[0];
  return top ? { info: top[1], vintage: top[0], borrowed: false } : undefined;
}

/** A presence-only vintage borrows the label of the nearest later vintage of the same code. */
function labelled(meta: CatalogMetadata, dataset: Dataset, code: string, vintage: number): Labelled | undefined {
  const byVintage = meta.codes.get(dataset)!.get(code);
  const info = byVintage?.get(vintage);
  if (!info) return undefined;
  if (info.label !== null) return { info, vintage, borrowed: false };
  const later = [...byVintage!.entries()].filter(([v, i]) => v > vintage && i.label !== null).sort((a, b) => a[0] - b[0])[0];
  return later ? { info: later[1], vintage: later[0], borrowed: true } : { info, vintage, borrowed: true };
}

/**
 * A sum of lines that differ in one segment only (a dimension such as age) is the total over
 * that dimension minus the categories it leaves out. Two vintages of such a sum mean the same
 * when the rest of the label is the same and the categories left out are the same, however the
 * included categories are cut: under 18 + 18–34 + 35–64 + 65+ uninsured is everyone uninsured,
 * as is under 19 + 19–34 + 35–64 + 65+.
 */
interface Dimension {
  rest: string;
  omitted: string[];
}

function dimensionOf(cmp: Comparator, labels: string[], table: Map<string, string> | undefined): Dimension | undefined {
  if (!table) return undefined;
  const segs = labels.map((l) => cmp.segments(l));
  const n = segs[0]!.length;
  if (n === 0 || segs.some((s) => s.length !== n)) return undefined;
  const varying = [...Array(n).keys()].filter((k) => segs.some((s) => s[k] !== segs[0]![k]));
  if (varying.length !== 1) return undefined;
  const k = varying[0]!;
  const key = (s: string[]): string => [...s.slice(0, k), '*', ...s.slice(k + 1)].join('!!');
  const rest = key(segs[0]!);
  const included = new Set(segs.map((s) => s[k]!));
  if (included.size !== segs.length) return undefined;
  const omitted = new Set<string>();
  for (const label of table.values()) {
    const s = cmp.segments(label);
    if (s.length === n && key(s) === rest && !included.has(s[k]!)) omitted.add(s[k]!);
  }
  return { rest, omitted: [...omitted].sort() };
}

function sumComparable(
  cmp: Comparator,
  meta: CatalogMetadata,
  dataset: Dataset,
  vintage: number,
  codes: string[],
  refOf: Map<string, string>,
): boolean {
  if (new Set(codes.map(tableOf)).size !== 1) return false;
  const here = codes.map((c) => labelled(meta, dataset, c, vintage));
  const refs = codes.map((c) => reference(meta, dataset, refOf.get(c)!));
  if (here.some((h) => !h || h.info.label === null) || refs.some((r) => !r)) return false;
  const hv = here[0]!.vintage;
  const rv = refs[0]!.vintage;
  if (here.some((h) => h!.vintage !== hv) || refs.some((r) => r!.vintage !== rv)) return false;
  const table = tableOf(codes[0]!);
  const refTable = tableOf(refOf.get(codes[0]!)!);
  const a = dimensionOf(
    cmp,
    here.map((h) => h!.info.label!),
    meta.tables.get(tableKey(dataset, hv, table)),
  );
  const b = dimensionOf(
    cmp,
    refs.map((r) => r!.info.label!),
    meta.tables.get(tableKey(dataset, rv, refTable)),
  );
  if (!a || !b || a.rest !== b.rest || a.omitted.join('|') !== b.omitted.join('|')) return false;
  const u = here[0]!.info.universe;
  const ru = refs[0]!.info.universe;
  return u === null || ru === null || cmp.sameUniverse(u, ru);
}

/** The codes that must be compared one by one: all but those inside comparable sums. */
function codesToCompare(f: Formula, sumOk: (codes: string[]) => boolean): string[] {
  const out = new Set<string>();
  const walk = (g: Formula): void => {
    if (g.kind === 'code') out.add(g.code);
    else if (g.kind === 'call') {
      const leaves = g.args.filter((x): x is { kind: 'code'; code: string } => x.kind === 'code').map((x) => x.code);
      if (g.fn === 'sum' && leaves.length === g.args.length && sumOk(leaves)) return;
      g.args.forEach(walk);
    }
  };
  walk(f);
  return [...out];
}

export function compileCatalog(source: CatalogSource, meta: CatalogMetadata): CompiledCatalog {
  const topicByKey = new Map(source.topics.map((t) => [t.topic_key, t]));
  const cmp = new Comparator(source.wordings);
  const variables = source.variables.map((v): CompiledVariable => {
    const availability = { acs1: [] as number[], acs5: [] as number[] };
    const notComparable = { acs1: [] as { vintage: number; reason: string }[], acs5: [] as { vintage: number; reason: string }[] };
    const unverified = { acs1: [] as number[], acs5: [] as number[] };
    const resolution = { acs1: {} as Record<string, Resolution>, acs5: {} as Record<string, Resolution> };
    for (const dataset of ['acs1', 'acs5'] as const) {
      for (const vintage of SPEC_VINTAGES[dataset]) {
        const spec = specFor(v, dataset, vintage);
        let result: Resolution = spec.resolution;
        let borrowedAny = false;
        const all = [...spec.refOf.keys()];
        const found = new Map(all.map((code) => [code, labelled(meta, dataset, code, vintage)]));
        const missing = all.filter((code) => !found.get(code));
        // Not in the Bureau's list of that vintage, or in a table whose list was not loaded (an
        // online selection of other tables): then the figure may exist, and is not loaded.
        if (missing.length)
          result = {
            kind: 'unavailable',
            reason: missing.some((code) => listLacks(meta, dataset, vintage, code)) ? 'not_in_vintage' : 'no_data_loaded',
          };
        else {
          for (const code of all) borrowedAny ||= found.get(code)!.borrowed || found.get(code)!.info.label === null;
          const sumOk = (codes: string[]): boolean => sumComparable(cmp, meta, dataset, vintage, codes, spec.refOf);
          for (const code of codesToCompare(spec.formula, sumOk)) {
            const refCode = spec.refOf.get(code)!;
            const here = found.get(code)!;
            const ref = reference(meta, dataset, refCode);
            if (!ref || here.info.label === null) {
              borrowedAny = true; // nothing to compare against: presence only
              continue;
            }
            const c = cmp.compare(
              { label: ref.info.label!, universe: ref.info.universe },
              { label: here.info.label, universe: here.info.universe },
            );
            if (!c.comparable) {
              result = { kind: 'unavailable', reason: 'not_comparable' };
              const where = here.borrowed ? `${here.info.source}, borrowed from ${here.vintage}` : here.info.source;
              notComparable[dataset].push({
                vintage,
                reason: `${code}${code !== refCode ? ` (for ${refCode})` : ''}: ${c.reason} (${where} vs ${ref.info.source})`,
              });
              break;
            }
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
