// Read side of the observations: DuckDB over the build's hive-partitioned Parquet. Returns one
// cell (estimate, MOE, annotations) per vintage × geography × census code; the catalog and
// derived-variable logic live above this, in the verbs.
import fs from 'node:fs';
import path from 'node:path';
import { DuckPool, sqlString } from './duckdb.js';

export interface StoredCell {
  estimate: number | null;
  moe: number | null;
  estimate_annotation: string | null;
  moe_annotation: string | null;
}

export interface CellQuery {
  dataset: string;
  vintages: number[];
  level: string;
  /** Geography keys, or 'all' for every geography of the level. */
  geoKeys: string[] | 'all';
  /** Estimate codes such as `B19013_001E`. */
  codes: string[];
}

export const cellKey = (vintage: number, geoKey: string, code: string) => `${vintage}|${geoKey}|${code}`;

/**
 * A build never changes once live, so a query's answer can be kept. The cache is bounded by the
 * number of cells it holds (least recently used first out); 0 disables it. A DuckDB lookup of one
 * geography costs ~3 ms, a cache hit microseconds (bench/http.ts reports both).
 */
class ResultCache {
  private readonly entries = new Map<string, Map<string, StoredCell>>();
  private cells = 0;

  constructor(private readonly maxCells: number) {}

  get(key: string): Map<string, StoredCell> | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Map<string, StoredCell>): void {
    if (value.size > this.maxCells / 4) return; // one huge answer must not flush everything else
    this.entries.set(key, value);
    this.cells += value.size;
    for (const [k, v] of this.entries) {
      if (this.cells <= this.maxCells) break;
      this.entries.delete(k);
      this.cells -= v.size;
    }
  }
}

export class ObservationStore {
  /** `dataset/vintage/level` of every partition present in the build. */
  readonly partitions: ReadonlySet<string>;

  private readonly cache: ResultCache | undefined;

  private constructor(
    private readonly root: string,
    private readonly pool: DuckPool,
    partitions: Set<string>,
    private readonly tables: Map<string, Set<string>>,
    cacheCells: number,
  ) {
    this.partitions = partitions;
    this.cache = cacheCells > 0 ? new ResultCache(cacheCells) : undefined;
  }

  static async open(buildDir: string, pool?: DuckPool, opts: { cacheCells?: number } = {}): Promise<ObservationStore> {
    const root = path.join(buildDir, 'observations');
    const partitions = new Set<string>();
    for (const d of fs.existsSync(root) ? fs.readdirSync(root).filter((e) => e.startsWith('dataset=')) : []) {
      const dataset = d.replace(/^dataset=/, '');
      for (const v of fs.readdirSync(path.join(root, d))) {
        const vintage = v.replace(/^vintage=/, '');
        for (const l of fs.readdirSync(path.join(root, d, v))) {
          if (fs.existsSync(path.join(root, d, v, l, 'data_0.parquet'))) partitions.add(`${dataset}/${vintage}/${l.replace(/^level=/, '')}`);
        }
      }
    }
    const index = JSON.parse(fs.readFileSync(path.join(root, 'index.json'), 'utf8')) as Record<string, { tables: string[] }>;
    const tables = new Map(Object.entries(index).map(([k, v]) => [k, new Set(v.tables)]));
    return new ObservationStore(root, pool ?? (await DuckPool.open()), partitions, tables, opts.cacheCells ?? 250_000);
  }

  /** Whether the build holds this table's values for the partition (absent cells then mean "not published"). */
  hasTable(dataset: string, vintage: number, level: string, tableId: string): boolean {
    return this.tables.get(`${dataset}/${vintage}/${level}`)?.has(tableId) ?? false;
  }

  /** Whether any level of this dataset and vintage holds the table. */
  hasTableAnyLevel(dataset: string, vintage: number, tableId: string): boolean {
    for (const [key, tables] of this.tables) if (key.startsWith(`${dataset}/${vintage}/`) && tables.has(tableId)) return true;
    return false;
  }

  /** Whether any partition of the build holds the table. */
  hasTableAnywhere(tableId: string): boolean {
    for (const tables of this.tables.values()) if (tables.has(tableId)) return true;
    return false;
  }

  has(dataset: string, vintage: number, level: string): boolean {
    return this.partitions.has(`${dataset}/${vintage}/${level}`);
  }

  /** Vintages with any values loaded for a dataset and level, ascending. */
  loadedVintages(dataset: string, level: string): number[] {
    const out: number[] = [];
    for (const p of this.partitions) {
      const [d, v, l] = p.split('/');
      if (d === dataset && l === level) out.push(Number(v));
    }
    return out.sort((a, b) => a - b);
  }

  private file(dataset: string, vintage: number, level: string): string {
    return path.join(this.root, `dataset=${dataset}`, `vintage=${vintage}`, `level=${level}`, 'data_0.parquet');
  }

  /**
   * Fetch cells; absent combinations are simply missing from the map (the caller annotates them).
   * The map returned may be shared with the cache: callers must not modify it.
   */
  async fetch(q: CellQuery): Promise<ReadonlyMap<string, StoredCell>> {
    const vintages = q.vintages.filter((v) => this.has(q.dataset, v, q.level));
    if (vintages.length === 0 || q.codes.length === 0 || (q.geoKeys !== 'all' && q.geoKeys.length === 0)) return new Map();
    const key = this.cache && `${q.dataset}|${vintages.join(',')}|${q.level}|${q.geoKeys === 'all' ? '*' : [...q.geoKeys].sort().join(',')}|${[...q.codes].sort().join(',')}`;
    const hit = key ? this.cache!.get(key) : undefined;
    if (hit) return hit;
    const out = await this.query(q, vintages);
    if (key) this.cache!.set(key, out);
    return out;
  }

  private async query(q: CellQuery, vintages: number[]): Promise<Map<string, StoredCell>> {
    const out = new Map<string, StoredCell>();
    const files = vintages.map((v) => `SELECT ${v} AS vintage, * FROM read_parquet(${sqlString(this.file(q.dataset, v, q.level))})`);
    const codes = q.codes.map(sqlString).join(',');
    const geoFilter = q.geoKeys === 'all' ? '' : ` AND geo_key IN (${q.geoKeys.map(sqlString).join(',')})`;
    const sql = `SELECT vintage, geo_key, variable, estimate, moe, estimate_annotation, moe_annotation
      FROM (${files.join(' UNION ALL ')}) WHERE variable IN (${codes})${geoFilter}`;
    // Columns, not row objects: one object per cell instead of two on large answers.
    const [vintage, geo, variable, estimate, moe, ea, ma] = (await this.pool.columns(sql)) as [number[], string[], string[], (number | null)[], (number | null)[], (string | null)[], (string | null)[]];
    for (let i = 0; i < geo.length; i++) {
      out.set(cellKey(vintage[i]!, geo[i]!, variable[i]!), { estimate: estimate[i]!, moe: moe[i]!, estimate_annotation: ea[i]!, moe_annotation: ma[i]! });
    }
    return out;
  }

  close(): void {
    this.pool.close();
  }
}
