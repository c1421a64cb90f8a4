// The compiled catalog (build dir catalog/catalog.json) held in memory: lookups by api_name or
// census code, topic and dataset summaries, search, and per-vintage resolution.
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { CODE_LIKE } from '../domain/census-codes.js';
import { datasetKeys, datasetSpec, perDataset, type DatasetKey, type PerDataset } from '../domain/datasets.js';

export type Dataset = DatasetKey;

export interface Topic {
  topic_key: string;
  label: string;
  depth: number;
}

export type Resolution =
  | { kind: 'direct'; code: string }
  | { kind: 'derived'; formula: string; codes: string[] }
  /**
   * not_in_vintage: the Bureau's variable list of that vintage lacks a code; not_comparable: a code
   * changed meaning; no_data_loaded: no list this build read covers a code's table in that vintage
   * (an online selection of other tables or vintages), so it may exist and is not loaded.
   */
  | { kind: 'unavailable'; reason: 'not_in_vintage' | 'not_comparable' | 'no_data_loaded' };

export interface CatalogVariable {
  api_name: string;
  census_code: string | null;
  label: string;
  unit: 'count' | 'dollar' | 'percent' | 'year';
  topic: Topic;
  display_format: string;
  formula: string | null;
  component_codes: string[] | null;
  availability: PerDataset<number[]>;
  not_comparable: PerDataset<{ vintage: number; reason: string }[]>;
  unverified_vintages: PerDataset<number[]>;
  resolution: PerDataset<Record<string, Resolution>>;
  notes: string | null;
}

/** The spec's VariableSummary, field for field. */
export interface VariableSummary {
  api_name: string;
  census_code: string | null;
  label: string;
  unit: string;
  topic: Topic | null;
  display_format: string | null;
  matched_census_codes?: { code: string; vintages: number[] }[] | null;
}

/** The compiled catalog file (build dir catalog/catalog.json), written by etl/steps/catalog. */
export interface CompiledCatalog {
  schema_version: number;
  topics: (Topic & { parent: string | null })[];
  datasets: PerDataset<{ vintages: number[] }>;
  variables: CatalogVariable[];
}

export class CatalogStore {
  private readonly byName = new Map<string, CatalogVariable>();
  /** Upper-cased census code → variable whose own census_code it is. */
  private readonly byCode = new Map<string, CatalogVariable>();
  private readonly search: MiniSearch;
  /** Ranked matches per search text: the catalog never changes once loaded (bounded, oldest out). */
  private readonly searchCache = new Map<string, { v: CatalogVariable; codes: { code: string; vintages: number[] }[] | null }[]>();
  /** topics() and datasets() counts, computed on first use. */
  private topicCounts: (Topic & { variable_count: number })[] | undefined;
  private datasetCounts: PerDataset<number> | undefined;

  private constructor(private readonly file: CompiledCatalog) {
    for (const v of file.variables) {
      this.byName.set(v.api_name, v);
      if (v.census_code) this.byCode.set(v.census_code.toUpperCase(), v);
    }
    this.search = new MiniSearch({
      idField: 'api_name',
      fields: ['api_name_words', 'label', 'codes'],
      storeFields: [],
      extractField: (doc, field) => {
        const v = doc as CatalogVariable;
        if (field === 'api_name') return v.api_name;
        if (field === 'api_name_words') return v.api_name.replace(/_/g, ' ');
        if (field === 'label') return v.label;
        return this.codesByVintage(v)
          .map((c) => c.code)
          .join(' ');
      },
      tokenize: (text) => text.split(/[\s,;:()!/]+/).filter(Boolean),
      processTerm: (t) => t.toLowerCase(),
    });
    this.search.addAll(file.variables);
  }

  /** Load once at boot from a build directory (the one `data/current` points at). */
  static load(buildDir: string): CatalogStore {
    const p = path.join(buildDir, 'catalog', 'catalog.json');
    const file = JSON.parse(fs.readFileSync(p, 'utf8')) as CompiledCatalog;
    if (file.schema_version !== 1) throw new Error(`${p}: unsupported catalog schema_version ${file.schema_version}`);
    return new CatalogStore(file);
  }

  /** By api_name, or by census code as an alias (case-insensitive; `…M` resolves like `…E`). */
  getVariable(apiNameOrCensusCode: string): CatalogVariable | undefined {
    const byName = this.byName.get(apiNameOrCensusCode);
    if (byName) return byName;
    if (!CODE_LIKE.test(apiNameOrCensusCode)) return undefined;
    const code = apiNameOrCensusCode.toUpperCase().replace(/M$/, 'E');
    return this.byCode.get(/E$/.test(code) ? code : `${code}E`);
  }

  summary(v: CatalogVariable): VariableSummary {
    return {
      api_name: v.api_name,
      census_code: v.census_code,
      label: v.label,
      unit: v.unit,
      topic: v.topic,
      display_format: v.display_format,
    };
  }

  /** `best`: api_names listed first (the headline answers of an everyday phrase, domain/catalog/search-synonyms.ts). */
  list(opts: { topic?: string; search?: string; best?: readonly string[]; offset: number; limit: number }): {
    items: VariableSummary[];
    total: number;
  } {
    let matches: { v: CatalogVariable; codes: { code: string; vintages: number[] }[] | null }[];
    const q = opts.search?.trim();
    const cached = q ? this.searchCache.get(q) : undefined;
    if (cached) {
      matches = cached;
    } else if (q) {
      const hits = this.search.search(q, {
        prefix: true,
        fuzzy: (term) => (term.length > 4 ? 0.2 : false),
        combineWith: 'AND',
        // Among equal matches the headline figure first: core indicators, then names with fewer
        // qualifiers ("median household income" before "… householder under 25").
        boostDocument: (id) => {
          const v = this.byName.get(String(id));
          if (!v) return 1;
          return (v.topic.topic_key === 'core' ? 1.5 : 1) / (1 + 0.05 * v.api_name.split('_').length);
        },
      });
      // Only code-like terms (B19013…) can match codes: a word query skips the per-hit code list
      // (it dominated the CPU of /v1/variables?search=median income).
      const terms = q
        .toUpperCase()
        .split(/[\s,;]+/)
        .filter((t) => /^[BC]\d/.test(t));
      matches = hits.map((h) => {
        const v = this.byName.get(String(h.id))!;
        if (terms.length === 0) return { v, codes: null };
        const codes = this.codesByVintage(v).filter((c) => terms.some((t) => c.code.startsWith(t)));
        return { v, codes: codes.length ? codes : null };
      });
      if (this.searchCache.size >= 1_000) this.searchCache.delete(this.searchCache.keys().next().value!);
      this.searchCache.set(q, matches);
    } else {
      matches = this.file.variables.map((v) => ({ v, codes: null }));
    }
    const best = (opts.best ?? []).map((n) => this.byName.get(n)).filter((v): v is CatalogVariable => v !== undefined);
    if (best.length) matches = [...best.map((v) => ({ v, codes: null })), ...matches.filter((m) => !best.includes(m.v))];
    if (opts.topic) matches = matches.filter((m) => m.v.topic.topic_key === opts.topic);
    const page = matches.slice(opts.offset, opts.offset + opts.limit).map((m) => {
      const s = this.summary(m.v);
      return m.codes ? { ...s, matched_census_codes: m.codes } : s;
    });
    return { items: page, total: matches.length };
  }

  /**
   * Topics with the number of active variables (available in at least one vintage). Counted once:
   * the catalog never changes once loaded, and counting scanned every variable for every topic on
   * each /v1/topics and /v1/variables?search= request. Callers get fresh objects.
   */
  topics(): (Topic & { variable_count: number })[] {
    this.topicCounts ??= this.file.topics.map((t) => ({
      topic_key: t.topic_key,
      label: t.label,
      depth: t.depth,
      variable_count: this.file.variables.filter((v) => v.topic.topic_key === t.topic_key && isActive(v)).length,
    }));
    return this.topicCounts.map((t) => ({ topic_key: t.topic_key, label: t.label, depth: t.depth, variable_count: t.variable_count }));
  }

  datasets(): PerDataset<{ vintages: number[]; variable_count: number }> {
    const count = (d: Dataset): number => this.file.variables.filter((v) => (v.availability[d]?.length ?? 0) > 0).length;
    const counts = (this.datasetCounts ??= perDataset(count));
    // A dataset registered after the catalogue was compiled has no curated variables (0), and its
    // vintages are the registry's.
    return perDataset((d) => ({ vintages: this.file.datasets[d]?.vintages ?? datasetSpec(d).vintages, variable_count: counts[d] ?? 0 }));
  }

  resolveForVintage(variable: CatalogVariable | string, dataset: Dataset, vintage: number): Resolution {
    const v = typeof variable === 'string' ? this.getVariable(variable) : variable;
    if (!v) throw new Error(`unknown variable ${String(variable)}`);
    return v.resolution[dataset]?.[String(vintage)] ?? { kind: 'unavailable', reason: 'not_in_vintage' };
  }

  /** Every census code that maps to this variable, with the vintages (both datasets) it does. */
  codesByVintage(v: CatalogVariable): { code: string; vintages: number[] }[] {
    const m = new Map<string, Set<number>>();
    for (const d of datasetKeys()) {
      for (const [vintage, r] of Object.entries(v.resolution[d] ?? {})) {
        if (r.kind !== 'direct') continue;
        let s = m.get(r.code);
        if (!s) m.set(r.code, (s = new Set()));
        s.add(Number(vintage));
      }
    }
    return [...m].map(([code, s]) => ({ code, vintages: [...s].sort((a, b) => a - b) }));
  }
}

function isActive(v: CatalogVariable): boolean {
  return Object.values(v.availability).some((years) => (years?.length ?? 0) > 0);
}
