// Every published Detailed-Table estimate code, per dataset and vintage, with the label, universe
// and table title the Bureau gave it that year (build dir tables/, written by the ETL step
// `census-tables`). Answers "does this code exist in this vintage, and what did it mean then".
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { CENSUS_CODE, CENSUS_TABLE_WILDCARD, TABLE_ID_PREFIX } from '../domain/census-codes.js';
import {
  CENSUS_TABLES_SCHEMA_VERSION,
  LABEL_CHANGED,
  NO_MOE,
  PREDICATE_FLOAT,
  PREDICATE_INT,
  UNIVERSE_CHANGED,
  censusTablesFile,
  type CompiledCensusTables,
  type CompiledColumn,
  type CompiledTable,
} from './census-tables/format.js';

import { datasetKeys, isBuiltInDataset, perDataset, type DatasetKey, type PerDataset } from '../domain/datasets.js';

export type CensusDataset = DatasetKey;

/** What one code meant in one vintage. */
export interface CodeInVintage {
  code: string;
  table_id: string;
  label: string | null;
  indent: number | null;
  table_title: string | null;
  universe: string | null;
  /** This vintage's label or universe differs materially from the code's latest vintage. */
  label_changed: boolean;
  universe_changed: boolean;
}

export interface TableInVintage {
  table_id: string;
  title: string | null;
  universe: string | null;
  columns: { code: string; label: string | null; indent: number | null }[];
}

/** One published estimate code of a table as the Census Data API described it that vintage. */
export interface ApiColumn {
  code: string;
  label: string | null;
  /** The API's `predicateType`; null where the source does not say (vintages known only from table shells). */
  predicate_type: 'int' | 'float' | null;
  /** False where the API listed the estimate without a margin of error (B98/B99 quality and allocation tables). */
  has_moe: boolean;
}

/** `B19013_001E` → table `B19013`, line `001` (`…M` asks for the same line); `B19013*` is a whole table. */
export { CENSUS_CODE, CENSUS_TABLE_WILDCARD };

class DatasetTables {
  readonly tables = new Map<string, CompiledTable>();
  private readonly columns = new Map<string, CompiledColumn>();

  constructor(readonly file: CompiledCensusTables) {
    for (const [id, t] of Object.entries(file.tables)) {
      this.tables.set(id, t);
      for (const c of t.c) this.columns.set(`${id}_${c[0]}E`, c);
    }
  }

  private bit(vintage: number): number {
    const i = this.file.vintages.indexOf(vintage);
    return i < 0 ? 0 : 1 << i;
  }

  private str(i: number): string | null {
    return i < 0 ? null : this.file.strings[i]!;
  }

  private vintagesOfMask(mask: number): number[] {
    return this.file.vintages.filter((_, i) => mask & (1 << i));
  }

  hasVintage(vintage: number): boolean {
    const bit = this.bit(vintage);
    if (bit === 0) return false;
    for (const t of this.tables.values()) if (t.c.some((c) => c[2].some((v) => v[0] & bit))) return true;
    return false;
  }

  hasCode(code: string): boolean {
    return this.columns.has(code);
  }

  /** groups.json names the table in this vintage, and this build has not loaded its lines. */
  listedOnly(tableId: string, vintage: number): boolean {
    return ((this.file.listed_only?.[tableId] ?? 0) & this.bit(vintage)) !== 0;
  }

  vintagesOf(code: string): number[] {
    const c = this.columns.get(code);
    return c ? this.vintagesOfMask(c[2].reduce((m, v) => m | v[0], 0)) : [];
  }

  tableVintages(tableId: string): number[] {
    const t = this.tables.get(tableId);
    if (!t) return [];
    const fromColumns = t.c.reduce((m, c) => c[2].reduce((mm, v) => mm | v[0], m), 0);
    return this.vintagesOfMask(fromColumns);
  }

  info(code: string, vintage: number): CodeInVintage | null {
    const c = this.columns.get(code);
    const bit = this.bit(vintage);
    const version = c?.[2].find((v) => v[0] & bit);
    if (!c || !version) return null;
    const tableId = code.slice(0, code.indexOf('_'));
    const tv = this.tables.get(tableId)!.v.find((v) => v[0] & bit);
    return {
      code,
      table_id: tableId,
      label: this.str(version[1]),
      indent: c[1] < 0 ? null : c[1],
      table_title: tv ? this.str(tv[1]) : null,
      universe: tv ? this.str(tv[2]) : null,
      label_changed: (version[2] & LABEL_CHANGED) !== 0,
      universe_changed: (version[2] & UNIVERSE_CHANGED) !== 0,
    };
  }

  table(tableId: string, vintage: number): TableInVintage | null {
    const t = this.tables.get(tableId);
    if (!t) return null;
    const bit = this.bit(vintage);
    const columns = t.c
      .map((c) => ({ c, version: c[2].find((v) => v[0] & bit) }))
      .filter((x) => x.version)
      .map(({ c, version }) => ({ code: `${tableId}_${c[0]}E`, label: this.str(version![1]), indent: c[1] < 0 ? null : c[1] }));
    if (columns.length === 0) return null;
    const tv = t.v.find((v) => v[0] & bit);
    return { table_id: tableId, title: tv ? this.str(tv[1]) : null, universe: tv ? this.str(tv[2]) : null, columns };
  }

  apiColumns(tableId: string, vintage: number): ApiColumn[] {
    const t = this.tables.get(tableId);
    if (!t) return [];
    const bit = this.bit(vintage);
    const out: ApiColumn[] = [];
    for (const c of t.c) {
      const version = c[2].find((v) => v[0] & bit);
      if (!version) continue;
      const flags = version[2];
      out.push({
        code: `${tableId}_${c[0]}E`,
        label: this.str(version[1]),
        predicate_type: flags & PREDICATE_INT ? 'int' : flags & PREDICATE_FLOAT ? 'float' : null,
        has_moe: (flags & NO_MOE) === 0,
      });
    }
    return out;
  }

  tableVersion(tableId: string, vintage: number): { title: string | null; universe: string | null } | null {
    const t = this.tables.get(tableId);
    const tv = t?.v.find((v) => v[0] & this.bit(vintage));
    return tv ? { title: this.str(tv[1]), universe: this.str(tv[2]) } : null;
  }

  /** Latest vintage's title and universe (for search and listings). */
  latestTitle(tableId: string): { title: string | null; universe: string | null } {
    const t = this.tables.get(tableId)!;
    let best: [number, number, number] | undefined;
    let bestBit = -1;
    for (const v of t.v) {
      const hi = 31 - Math.clz32(v[0]);
      if (v[1] >= 0 && hi > bestBit) {
        best = v;
        bestBit = hi;
      }
    }
    return { title: best ? this.str(best[1]) : null, universe: best ? this.str(best[2]) : null };
  }

  codesWithPrefix(prefix: string): string[] {
    const out: string[] = [];
    for (const code of this.columns.keys()) if (code.startsWith(prefix)) out.push(code);
    return out;
  }
}

const EMPTY_TABLES = new DatasetTables({
  schema_version: CENSUS_TABLES_SCHEMA_VERSION,
  dataset: '',
  vintages: [],
  strings: [],
  tables: {},
});

export interface TableSummary {
  table_id: string;
  title: string | null;
  universe: string | null;
  /** Vintages in which the Bureau published the table, per dataset. */
  vintages: PerDataset<number[]>;
}

/** Query texts whose table matches are kept (searchTables). */
const SEARCH_CACHE_ENTRIES = 1_000;

export class CensusTableStore {
  /**
   * The table search index, built on the first search: indexing every table's title and universe
   * was a sizeable part of this store's load, paid at every start (target 3 s) though most
   * requests never search.
   */
  private searchIndex: MiniSearch | undefined;
  private readonly searchCache = new Map<string, string[]>();

  private constructor(private readonly loaded: Map<CensusDataset, DatasetTables>) {}

  private get search(): MiniSearch {
    if (!this.searchIndex) {
      this.searchIndex = new MiniSearch({
        idField: 'table_id',
        fields: ['table_id', 'title', 'universe'],
        tokenize: (text) => text.split(/[\s,;:()!/-]+/).filter(Boolean),
        processTerm: (t) => t.toLowerCase(),
      });
      this.searchIndex.addAll(this.tableIds().map((id) => ({ table_id: id, ...this.titleOf(id) })));
    }
    return this.searchIndex;
  }

  /** One dataset's tables (empty for a registered dataset this build has no metadata for). */
  private of(dataset: CensusDataset): DatasetTables {
    return this.loaded.get(dataset) ?? EMPTY_TABLES;
  }

  static load(buildDir: string): CensusTableStore {
    const byDataset = new Map<CensusDataset, DatasetTables>();
    for (const d of datasetKeys()) {
      const p = path.join(buildDir, censusTablesFile(d));
      // A dataset registered after this build was made has no metadata in it: it serves nothing yet.
      if (!fs.existsSync(p) && !isBuiltInDataset(d)) continue;
      const file = JSON.parse(fs.readFileSync(p, 'utf8')) as CompiledCensusTables;
      if (file.schema_version !== CENSUS_TABLES_SCHEMA_VERSION) throw new Error(`${p}: unsupported schema_version ${file.schema_version}`);
      byDataset.set(d, new DatasetTables(file));
    }
    return new CensusTableStore(byDataset);
  }

  /** Upper-cased estimate code for `b19013_001m` and the like, or null when not code-shaped. */
  static normalizeCode(raw: string): string | null {
    const m = CENSUS_CODE.exec(raw.trim().toUpperCase());
    return m ? `${m[1]}_${m[2]}E` : null;
  }

  /** Vintages in which `code` was published in `dataset` (empty: never). */
  vintagesOf(dataset: CensusDataset, code: string): number[] {
    return this.of(dataset).vintagesOf(code);
  }

  /** Whether the build has any table metadata for this dataset and vintage. */
  hasVintageMetadata(dataset: CensusDataset, vintage: number): boolean {
    return this.of(dataset).hasVintage(vintage);
  }

  /**
   * The Bureau publishes the table in this vintage, and this build has not loaded it: groups.json
   * names it, and no list of its lines was downloaded (an online selection of other tables).
   */
  notLoaded(dataset: CensusDataset, tableId: string, vintage: number): boolean {
    return this.of(dataset).listedOnly(tableId, vintage);
  }

  /** notLoaded in some vintage of some dataset: a name the Bureau publishes, not an unknown one. */
  notLoadedAnywhere(tableId: string): boolean {
    return datasetKeys().some((d) => (this.of(d).file.listed_only?.[tableId] ?? 0) !== 0);
  }

  /** Whether the code was published in any vintage of either dataset. */
  known(code: string): boolean {
    return datasetKeys().some((d) => this.of(d).hasCode(code));
  }

  info(dataset: CensusDataset, code: string, vintage: number): CodeInVintage | null {
    return this.of(dataset).info(code, vintage);
  }

  /** The code's latest vintage in the dataset, with what it meant then. */
  latest(dataset: CensusDataset, code: string): (CodeInVintage & { vintage: number }) | null {
    const vs = this.vintagesOf(dataset, code);
    const v = vs[vs.length - 1];
    if (v === undefined) return null;
    return { ...this.info(dataset, code, v)!, vintage: v };
  }

  table(dataset: CensusDataset, tableId: string, vintage: number): TableInVintage | null {
    return this.of(dataset).table(tableId, vintage);
  }

  /** The table's estimate codes in `vintage` as the Census Data API described them, in line order (empty: not published). */
  apiColumns(dataset: CensusDataset, tableId: string, vintage: number): ApiColumn[] {
    return this.of(dataset).apiColumns(tableId, vintage);
  }

  /** The table's title and universe as published in `vintage`; null when the metadata has none. */
  tableVersion(dataset: CensusDataset, tableId: string, vintage: number): { title: string | null; universe: string | null } | null {
    return this.of(dataset).tableVersion(tableId, vintage);
  }

  tableVintages(tableId: string): PerDataset<number[]> {
    return perDataset((d) => this.of(d).tableVintages(tableId));
  }

  hasTable(tableId: string): boolean {
    return datasetKeys().some((d) => this.of(d).tables.has(tableId));
  }

  tableIds(): string[] {
    return [...new Set(datasetKeys().flatMap((d) => [...this.of(d).tables.keys()]))].sort();
  }

  /** Latest title and universe across datasets (acs5's when both have it: the broader product). */
  titleOf(tableId: string): { title: string | null; universe: string | null } {
    for (const d of datasetKeys()) {
      if (!this.of(d).tables.has(tableId)) continue;
      const t = this.of(d).latestTitle(tableId);
      if (t.title) return t;
    }
    return { title: null, universe: null };
  }

  summary(tableId: string): TableSummary {
    return { table_id: tableId, ...this.titleOf(tableId), vintages: this.tableVintages(tableId) };
  }

  /**
   * Tables by id prefix (`B19013`, `b190`) or by words of their title and universe. Answers are
   * kept per query text (bounded, oldest out): the tables never change once loaded (a new build is
   * a new store), and the fuzzy prefix search over every title dominated the CPU of
   * /v1/variables?search=…. Callers get a copy.
   */
  searchTables(q: string): string[] {
    const query = q.trim();
    if (!query) return this.tableIds();
    let ids = this.searchCache.get(query);
    if (!ids) {
      const upper = query.toUpperCase();
      const byId = TABLE_ID_PREFIX.test(upper) ? this.tableIds().filter((id) => id.startsWith(upper)) : [];
      const byWords = this.search
        .search(query, { prefix: true, fuzzy: (t) => (t.length > 4 ? 0.2 : false), combineWith: 'AND', boost: { table_id: 3, title: 2 } })
        .map((h) => String(h.id));
      ids = [...new Set([...byId, ...byWords])];
      if (this.searchCache.size >= SEARCH_CACHE_ENTRIES) this.searchCache.delete(this.searchCache.keys().next().value!);
      this.searchCache.set(query, ids);
    }
    return [...ids];
  }

  /** Estimate codes starting with `prefix` (upper case), in either dataset, sorted. */
  codesWithPrefix(prefix: string): string[] {
    return [...new Set(datasetKeys().flatMap((d) => this.of(d).codesWithPrefix(prefix)))].sort();
  }
}
