// Read side of the observations: DuckDB over the build's hive-partitioned Parquet. Returns one
// cell (estimate, MOE, annotations) per vintage × geography × census code; the catalog and
// derived-variable logic live above this, in the verbs.
import fs from 'node:fs';
import path from 'node:path';
import { ANNOTATIONS } from '../domain/annotations.js';
import { AppError } from '../domain/errors.js';
import { AnswerCache } from './answer-cache.js';
import { isSyntheticManifest, readManifest, type Manifest } from './data-dir.js';
import { DuckPool, sqlString } from './duckdb.js';
import { SERVING_INDEX_FILE, ServingIndex } from './serving-index.js';
import { PartitionGuard, PartitionUnavailable, partitionUnavailableError } from './partition-guard.js';
import type { FileIntegrity } from './file-integrity.js';
import { storeMetrics } from './metrics.js';
import { StoredCells } from './stored-cells.js';
import { PublishedForms } from './published-forms.js';
import type { PublishedForm } from '../domain/census-api/published-text.js';

export type { StoredCell } from './stored-cells.js';

export interface CellQuery {
  dataset: string;
  vintages: number[];
  level: string;
  /** Geography keys, or 'all' for every geography of the level. */
  geoKeys: string[] | 'all';
  /** Estimate codes such as `B19013_001E`. */
  codes: string[];
}

/**
 * Requests of at most this many geography × vintage lookups are answered from the serving index
 * when the build has one; wildcards over a whole file ('all'), larger lists and scans go to
 * DuckDB. `npm run bench:serving` (crossover, docs/performance.md): the index stays faster than
 * DuckDB up to every county (12 ms against 26 ms), and a 2,000-tract custom region of 21 codes
 * reads in ~15 ms from the index against 300–500 ms from DuckDB (`npm run bench:regions`, cold).
 * The index runs on the event loop, so a large request is read in slices (POINT_LOOKUP_SLICE_CELLS)
 * with a turn of the event loop between them: no request holds the loop for more than a slice.
 */
export const POINT_LOOKUP_MAX_GEOS = 10_000;

/**
 * Cells read from the serving index in one synchronous slice: 500 geographies × 10 codes, about
 * 2–4 ms, the bound one request's synchronous work was held to before lists were sliced.
 */
export const POINT_LOOKUP_SLICE_CELLS = 5_000;

/**
 * In a build made before file checksums, a list naming every geography of a file (an expanded
 * wildcard: all counties, a state's tracts) above this many lookups is read by DuckDB from the
 * Parquet file: nothing else would notice same-size damage to that file there (the fault suite's
 * older-build case answers it with a scoped 503). In a build with checksums both files are hashed
 * before first use, and such a list is read from the serving index like any other: all California
 * tracts × 5 cost 20 ms of CPU from the index against 100 ms through DuckDB's scan and pivot, all
 * US counties × 10 8.5 against 82 ms (SYNTHETIC national build, docs/performance.md).
 */
const WHOLE_FILE_INDEX_MAX_GEOS = 500;

/** Queries of up to this many codes are read pivoted (one row per geography); more, one row per cell. */
export const PIVOT_MAX_CODES = 40;

/** The annotation codes a file may hold, numbered from 1 for the pivoted read (0: none). */
const KNOWN_ANNOTATIONS = Object.keys(ANNOTATIONS);
const KNOWN_ANNOTATIONS_SQL = `[${KNOWN_ANNOTATIONS.map(sqlString).join(',')}]`;
// Two numbers share a tag in base 64 (pivoted(), below), with room for the -1 of an unknown code.
if (KNOWN_ANNOTATIONS.length >= 63) throw new Error('annotation catalogue too large for the pivoted read');

/**
 * A build never changes once live, so a query's answer can be kept: an AnswerCache weighed by the
 * cells it holds (OBSERVATION_CACHE_CELLS; 0 disables it), least recently used out. An answer over a
 * quarter of the bound is not kept, so one huge answer cannot flush everything else. A DuckDB lookup
 * of one geography costs ~3 ms, a cache hit microseconds (bench/http.ts reports both).
 */
type ResultCache = AnswerCache<StoredCells>;

/**
 * A numeric column of a result chunk that holds no NULL, as its typed array: the vector's own
 * values (the node API keeps them as `items`, a private field) when it exposes them, else copied
 * item by item. Reading ~100,000 values through getItem and its validity check cost ~3 ms of an
 * all-counties × 10 answer.
 */
export function numericColumn<A extends Int32Array | Float64Array>(
  vector: { getItem(i: number): unknown },
  Kind: { new (n: number): A },
  n: number,
): A {
  const own = (vector as unknown as { items?: unknown }).items;
  if (own instanceof Kind && own.length === n) return own as A;
  const out = new Kind(n);
  for (let i = 0; i < n; i++) out[i] = Number(vector.getItem(i));
  return out;
}

export class ObservationStore {
  /** `dataset/vintage/level` of every partition present in the build. */
  readonly partitions: ReadonlySet<string>;

  private readonly cache: ResultCache | undefined;
  /**
   * Serving index per partition, opened on first use (null when the partition has none), with the
   * identity of the file the checksum check passed: a file replaced since is opened again.
   */
  private readonly indexes = new Map<string, { idx: ServingIndex | null; identity: string | undefined }>();
  private readonly vintagesOf = new Map<string, number[]>();
  private forms: PublishedForms | undefined;

  private constructor(
    private readonly root: string,
    private readonly pool: DuckPool,
    partitions: Set<string>,
    private readonly tables: Map<string, Set<string>>,
    private readonly cacheCells: number,
    /** Damaged or missing partition files answer 503 for the requests that need them (partition-guard.ts). */
    readonly guard: PartitionGuard,
    private readonly pointLookupMaxGeos: number,
    /** States of the per-state partitions (`dataset/vintage/level` → sorted 2-digit codes). */
    private readonly stateFiles: ReadonlyMap<string, readonly string[]> = new Map(),
    /** A SYNTHETIC benchmark build (random values): every answer must say so. */
    readonly synthetic = false,
    private readonly integrity?: FileIntegrity,
    private readonly buildDir = path.dirname(root),
  ) {
    this.partitions = partitions;
    this.cache = cacheCells > 0 ? new AnswerCache<StoredCells>(cacheCells, (m) => m.size) : undefined;
  }

  static async open(
    buildDir: string,
    pool?: DuckPool,
    opts: {
      cacheCells?: number;
      /** Tests and benchmarks: force one path (0: DuckDB only). */
      pointLookupMaxGeos?: number;
      /** Checks files against the manifest's checksums (file-integrity.ts); without it, format checks only. */
      integrity?: FileIntegrity;
      /** Hash every partition at start instead of at first use (benchmarks compare both). */
      hashAtStart?: boolean;
      /** The build's manifest as the caller already read and checked it (else read here). */
      manifest?: Manifest;
    } = {},
  ): Promise<ObservationStore> {
    const root = path.join(buildDir, 'observations');
    const partitions = new Set<string>();
    // Per-state partitions (level=tract/state=06/data_0.parquet, national builds): the states present.
    const stateFiles = new Map<string, string[]>();
    for (const d of fs.existsSync(root) ? fs.readdirSync(root).filter((e) => e.startsWith('dataset=')) : []) {
      const dataset = d.replace(/^dataset=/, '');
      for (const v of fs.readdirSync(path.join(root, d))) {
        const vintage = v.replace(/^vintage=/, '');
        for (const l of fs.readdirSync(path.join(root, d, v))) {
          const key = `${dataset}/${vintage}/${l.replace(/^level=/, '')}`;
          const levelDir = path.join(root, d, v, l);
          if (fs.existsSync(path.join(levelDir, 'data_0.parquet'))) partitions.add(key);
          else {
            const states = fs
              .readdirSync(levelDir)
              .filter((e) => /^state=\d\d$/.test(e))
              .map((e) => e.slice(6))
              .sort();
            if (states.length) {
              partitions.add(key);
              stateFiles.set(key, states);
            }
          }
        }
      }
    }
    const index = JSON.parse(fs.readFileSync(path.join(root, 'index.json'), 'utf8')) as Record<
      string,
      { tables: string[]; states?: Record<string, number> }
    >;
    const tables = new Map(Object.entries(index).map(([k, v]) => [k, new Set(v.tables)]));
    // A partition the index lists but whose file is gone is still this build's: it is served as
    // unavailable (503), not silently as "no data loaded".
    for (const k of Object.keys(index)) partitions.add(k);
    for (const [k, v] of Object.entries(index)) if (v.states) stateFiles.set(k, Object.keys(v.states).sort());
    const db = pool ?? (await DuckPool.open());
    // Parsing it again cost a national build's start tens of ms (test build: a 6 MB manifest).
    const manifest = opts.manifest ?? manifestOf(buildDir);
    const rows = manifest?.steps.observations?.rows ?? {};
    const guarded = new Map<string, { file: string; rels: string[]; rows: number | undefined; lazy?: boolean }>();
    // The Parquet file and its serving index, relative to the build (the manifest's checksum keys).
    const rels = (file: string) => {
      const rel = path.relative(buildDir, file).split(path.sep).join('/');
      return [rel, rel.replace(/data_0\.parquet$/, SERVING_INDEX_FILE)];
    };
    for (const k of partitions) {
      const states = stateFiles.get(k);
      const file = ObservationStore.fileIn(root, k);
      if (!states) guarded.set(k, { file, rels: rels(file), rows: rows[k] });
      // Per-state files are verified on first use: a national build has ~1,700 of them, too many
      // to check before the first answer (start-up target 3 s).
      else
        for (const st of states) {
          const f = ObservationStore.fileIn(root, k, st);
          guarded.set(`${k}/${st}`, { file: f, rels: rels(f), rows: index[k]?.states?.[st], lazy: true });
        }
    }
    const guard = new PartitionGuard(db, guarded, opts.integrity);
    await guard.verifyAll(opts.hashAtStart);
    return new ObservationStore(
      root,
      db,
      partitions,
      tables,
      opts.cacheCells ?? 250_000,
      guard,
      opts.pointLookupMaxGeos ?? POINT_LOOKUP_MAX_GEOS,
      stateFiles,
      manifest ? isSyntheticManifest(manifest) : false,
      opts.integrity,
      buildDir,
    );
  }

  private static fileIn(root: string, partition: string, state?: string): string {
    const [dataset, vintage, level] = partition.split('/');
    return path.join(root, `dataset=${dataset}`, `vintage=${vintage}`, `level=${level}`, state ? `state=${state}` : '', 'data_0.parquet');
  }

  /** Whether query results are kept (OBSERVATION_CACHE_CELLS > 0); caches above this one follow it. */
  get cachesResults(): boolean {
    return this.cache !== undefined;
  }

  /** The published text of a partition's cells, checked against the manifest, for the Census-API-compatible endpoint (published-forms.ts). */
  publishedForm(dataset: string, vintage: number, level: string): Promise<PublishedForm | null> {
    this.forms ??= new PublishedForms(this.buildDir, this.integrity?.recorded ? this.integrity : undefined);
    return this.forms.get(dataset, vintage, level);
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

  /** Vintages with any values loaded for a dataset and level, ascending (the build is immutable: kept per pair; callers must not modify). */
  loadedVintages(dataset: string, level: string): number[] {
    const key = `${dataset}/${level}`;
    let out = this.vintagesOf.get(key);
    if (!out) {
      out = [];
      for (const p of this.partitions) {
        const [d, v, l] = p.split('/');
        if (d === dataset && l === level) out.push(Number(v));
      }
      out.sort((a, b) => a - b);
      this.vintagesOf.set(key, Object.freeze(out) as number[]);
    }
    return out;
  }

  /**
   * The whole-file partitions (not a national build's per-state files, checked on first use) and
   * the bytes of their files on disk: what the start-up warm-up may prepare (warm-up.ts).
   */
  wholeFilePartitions(): Array<{ partition: string; bytes: number }> {
    const out: Array<{ partition: string; bytes: number }> = [];
    for (const partition of this.partitions) {
      if (this.stateFiles.has(partition)) continue;
      const file = ObservationStore.fileIn(this.root, partition);
      const sizeOf = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.size ?? 0;
      out.push({ partition, bytes: sizeOf(file) + sizeOf(path.join(path.dirname(file), SERVING_INDEX_FILE)) });
    }
    return out;
  }

  /**
   * Ready a whole-file partition for its first request: its files hashed against the manifest
   * and its serving index opened, work that request would otherwise do (~0.1 s per 25 MB). A
   * damaged partition is left as the guard found it: its requests answer 503, /health names it.
   */
  async prepare(partition: string): Promise<void> {
    if (this.stateFiles.has(partition) || !this.partitions.has(partition)) return;
    try {
      await this.guard.require(partition);
    } catch (e) {
      if (e instanceof PartitionUnavailable) return;
      throw e;
    }
    const [dataset, vintage, level] = partition.split('/');
    this.index(dataset!, Number(vintage), level!);
  }

  private file(dataset: string, vintage: number, level: string, state?: string): string {
    return ObservationStore.fileIn(this.root, `${dataset}/${vintage}/${level}`, state);
  }

  /**
   * The files of a partition a query must read, each with its guard key: the one file, or for a
   * per-state partition the files of the states its keys are in ('all': every state).
   */
  private filesFor(partition: string, geoKeys: string[] | 'all'): Array<{ guard: string; file: string; state?: string }> {
    const states = this.stateFiles.get(partition);
    if (!states) return [{ guard: partition, file: ObservationStore.fileIn(this.root, partition) }];
    let wanted: readonly string[] = states;
    if (geoKeys !== 'all') {
      const level = partition.slice(partition.lastIndexOf('/') + 1);
      const asked = new Set(geoKeys.map((k) => stateOfKey(level, k)));
      wanted = states.filter((st) => asked.has(st));
    }
    return wanted.map((st) => ({ guard: `${partition}/${st}`, file: ObservationStore.fileIn(this.root, partition, st), state: st }));
  }

  /**
   * Fetch cells; absent combinations are simply missing from the map (the caller annotates them).
   * The cells returned may be shared with the cache: callers must not add to them.
   */
  async fetch(q: CellQuery): Promise<StoredCells> {
    const vintages = q.vintages.filter((v) => this.has(q.dataset, v, q.level));
    if (vintages.length === 0 || q.codes.length === 0 || (q.geoKeys !== 'all' && q.geoKeys.length === 0)) return new StoredCells(q.codes);
    const key =
      this.cache &&
      `${q.dataset}|${vintages.join(',')}|${q.level}|${q.geoKeys === 'all' ? '*' : [...q.geoKeys].sort().join(',')}|${[...q.codes].sort().join(',')}`;
    const hit = key ? this.cache!.get(key) : undefined;
    if (key) storeMetrics.cache('observation_results', hit !== undefined);
    if (hit) return hit;
    const parts = vintages.flatMap((v) => this.filesFor(`${q.dataset}/${v}/${q.level}`, q.geoKeys).map((f) => f.guard));
    let out: StoredCells;
    try {
      for (const p of parts) await this.guard.require(p);
      out = await this.query(q, vintages);
    } catch (e) {
      // DuckDB failing on a file the guard passed (changed under the query): check them again.
      const fault = e instanceof PartitionUnavailable ? e : await this.guard.suspect(parts);
      if (fault) throw unavailable(fault);
      // Still failing on files that pass every check (a build without checksums, or a damage the
      // checks cannot see): the partition it names, else the first, is unavailable until changed.
      if (isDuckDbReadError(e))
        throw unavailable(this.guard.markUnreadable(await this.blamed(e, parts), 'the file could not be decoded', e));
      throw e;
    }
    if (key && out.size <= this.cacheCells / 4) this.cache!.set(key, out);
    return out;
  }

  /**
   * Which of `parts` DuckDB failed to read: the one its error names, else the first whose every
   * row fails to decode when read on its own (a failure path, of builds without checksums: a few
   * tens of milliseconds per file), else the first.
   */
  private async blamed(e: unknown, parts: string[]): Promise<string> {
    const message = String((e as Error)?.message ?? '');
    const fileOf = (p: string) => {
      const [dataset, vintage, level, state] = p.split('/');
      return this.file(dataset!, Number(vintage), level!, state);
    };
    const named = parts.find((p) => message.includes(fileOf(p)));
    if (named) return named;
    for (const p of parts) {
      try {
        await this.pool.columns(`SELECT sum(hash(t)) FROM read_parquet(${sqlString(fileOf(p))}) t`);
      } catch {
        return p;
      }
    }
    return parts[0]!;
  }

  private index(dataset: string, vintage: number, level: string, state?: string): ServingIndex | null {
    const key = `${dataset}/${vintage}/${level}${state ? `/${state}` : ''}`;
    const file = path.join(path.dirname(this.file(dataset, vintage, level, state)), SERVING_INDEX_FILE);
    // The identity the guard hashed this request (undefined without checksums): a file replaced
    // since the index was opened (a restore by rename) is opened again, not read through the old one.
    const identity = this.integrity?.verifiedIdentity(path.relative(this.buildDir, file).split(path.sep).join('/'));
    let entry = this.indexes.get(key);
    if (entry === undefined || entry.identity !== identity) {
      entry?.idx?.close();
      entry = { idx: ServingIndex.open(file) ?? null, identity };
      this.indexes.set(key, entry);
    }
    return entry.idx;
  }

  /** The point-lookup path: a list of geographies, every file they need indexed. Undefined: ask DuckDB. */
  private async lookup(q: CellQuery, vintages: number[]): Promise<StoredCells | undefined> {
    if (q.geoKeys === 'all' || q.geoKeys.length * vintages.length > this.pointLookupMaxGeos) return undefined;
    const plan: Array<{ v: number; idx: ServingIndex; keys: string[] }> = [];
    for (const v of vintages) {
      const partition = `${q.dataset}/${v}/${q.level}`;
      if (!this.stateFiles.has(partition)) {
        const idx = this.index(q.dataset, v, q.level);
        if (!idx) return undefined;
        plan.push({ v, idx, keys: q.geoKeys });
        continue;
      }
      // Per-state partition: each key goes to its state's index (keys of absent states have no cells).
      for (const f of this.filesFor(partition, q.geoKeys)) {
        const idx = this.index(q.dataset, v, q.level, f.state);
        if (!idx) return undefined;
        plan.push({ v, idx, keys: q.geoKeys.filter((k) => stateOfKey(q.level, k) === f.state) });
      }
    }
    if (
      !this.integrity?.recorded &&
      q.geoKeys.length * vintages.length > WHOLE_FILE_INDEX_MAX_GEOS &&
      plan.some((p) => p.idx.coveredBy(new Set(p.keys)))
    )
      return undefined;
    const out = new StoredCells(q.codes);
    const columns = q.codes.map((c) => out.column(c));
    const slice = Math.max(1, Math.floor(POINT_LOOKUP_SLICE_CELLS / Math.max(1, q.codes.length)));
    let inSlice = 0;
    for (const { v, idx, keys } of plan) {
      for (let from = 0; from < keys.length; from += slice) {
        if (inSlice >= slice) {
          // Let other requests run between slices of a large list.
          await new Promise<void>((resolve) => setImmediate(resolve));
          inSlice = 0;
        }
        const part = keys.length <= slice ? keys : keys.slice(from, from + slice);
        inSlice += part.length;
        // A geography's block is made on its first cell: one with no stored cell gets none, as before.
        const blocks = new Int32Array(part.length).fill(-1);
        idx.lookupMany(part, q.codes, (k, c, estimate, moe, ea, ma) => {
          if (blocks[k]! < 0) blocks[k] = out.blockFor(v, part[k]!);
          out.putAt(blocks[k]!, columns[c]!, estimate, moe, ea, ma);
        });
      }
    }
    return out;
  }

  private async query(q: CellQuery, vintages: number[]): Promise<StoredCells> {
    const fast = await this.lookup(q, vintages);
    storeMetrics.cache('serving_index', fast !== undefined);
    if (fast) return fast;
    const perState = vintages.some((v) => this.stateFiles.has(`${q.dataset}/${v}/${q.level}`));
    const files = perState
      ? this.perStateSources(q, vintages)
      : vintages.map((v) => `SELECT ${v} AS vintage, * FROM read_parquet(${sqlString(this.file(q.dataset, v, q.level))})`);
    if (files.length === 0) return new StoredCells(q.codes);
    // Rows are table-major: the table filter lets row-group statistics skip every other table.
    const tableIds = q.codes.every((c) => c.includes('_')) ? [...new Set(q.codes.map((c) => c.slice(0, c.indexOf('_'))))] : [];
    const tableFilter = tableIds.length ? `table_id IN (${tableIds.map(sqlString).join(',')}) AND ` : '';
    // Per-state sources carry their own key filters. A request for every geography of the file(s)
    // (a wildcard the resolver expanded: all 3,222 counties) is read without its key list, which
    // cost DuckDB more than the rows it filters out (~50 ms of 3,222 keys).
    const geoFilter =
      q.geoKeys === 'all' || perState || this.coversFiles(q.dataset, vintages, q.level, q.geoKeys)
        ? ''
        : ` AND geo_key IN (${q.geoKeys.map(sqlString).join(',')})`;
    const from = `FROM (${files.join(' UNION ALL ')}) WHERE ${tableFilter}variable IN (${q.codes.map(sqlString).join(',')})${geoFilter}`;
    const codes = [...new Set(q.codes)];
    return codes.length <= PIVOT_MAX_CODES ? this.pivoted(codes, from) : this.rowwise(codes, from);
  }

  /**
   * One row per vintage and geography, a column group per code (found, estimate, MOE and the two
   * annotations as numbers): a 45,000-cell answer of 5 codes comes back as 9,000 rows with one
   * geography string each instead of 45,000 rows of four strings each. Turning DuckDB's strings
   * into JS ones was most of the time spent reading large results, and aggregating the annotation
   * strings themselves cost DuckDB more than the scan (docs/performance.md). Annotations
   * travel as their place in the closed catalogue (src/domain/annotations.ts; 0: none); should a
   * file hold one outside it, the rows are read one per cell instead, strings and all.
   */
  private async pivoted(codes: readonly string[], from: string): Promise<StoredCells> {
    const list = `[${codes.map(sqlString).join(',')}]`;
    const numbered = (col: string) =>
      `(CASE WHEN ${col} IS NULL THEN 0 ELSE coalesce(list_position(${KNOWN_ANNOTATIONS_SQL}, ${col}), -1) END)`;
    // Per code three aggregates: a tag (null: no row; else 1 + 64 × estimate annotation + MOE
    // annotation, each its number in the catalogue, -1 outside it), the estimate and the MOE.
    // No NULL comes back: 0 for the tag, NaN (never a stored value) for a null estimate or MOE, so
    // the columns read as plain typed arrays (numericColumn).
    const groups = codes.map(
      (_, k) =>
        `coalesce(max(CASE WHEN vi = ${k} THEN tag END), 0), coalesce(max(CASE WHEN vi = ${k} THEN estimate END), 'nan'::DOUBLE), ` +
        `coalesce(max(CASE WHEN vi = ${k} THEN moe END), 'nan'::DOUBLE)`,
    );
    const result = await this.pool.materialized(
      `SELECT vintage, geo_key, ${groups.join(', ')} FROM (SELECT vintage, geo_key, (list_position(${list}, variable) - 1)::INTEGER AS vi, ` +
        `estimate, moe, (CASE WHEN estimate_annotation IS NULL AND moe_annotation IS NULL THEN 1 ` +
        `ELSE 1 + 64 * ${numbered('estimate_annotation')} + ${numbered('moe_annotation')} END)::INTEGER AS tag ${from}) GROUP BY vintage, geo_key`,
    );
    const out = new StoredCells(codes, result.rowCount * codes.length);
    const annotation = (n: number) => (n ? KNOWN_ANNOTATIONS[n - 1]! : null);
    for (let ci = 0; ci < result.chunkCount; ci++) {
      const chunk = result.getChunk(ci);
      const n = chunk.rowCount;
      const vintage = chunk.getColumnVector(0);
      const geo = chunk.getColumnVector(1);
      const blocks = new Int32Array(n);
      for (let r = 0; r < n; r++) blocks[r] = out.blockFor(vintage.getItem(r) as number, geo.getItem(r) as string);
      for (let k = 0; k < codes.length; k++) {
        const tags = numericColumn(chunk.getColumnVector(2 + 3 * k), Int32Array, n);
        const est = numericColumn(chunk.getColumnVector(3 + 3 * k), Float64Array, n);
        const moe = numericColumn(chunk.getColumnVector(4 + 3 * k), Float64Array, n);
        for (let r = 0; r < n; r++) {
          const tag = tags[r]!;
          if (tag === 0) continue;
          let ea: string | null = null;
          let ma: string | null = null;
          if (tag !== 1) {
            const a = Math.floor((tag - 1) / 64);
            const b = tag - 1 - 64 * a;
            // A -1 (outside the catalogue) shows as a tag below 1 (estimate's) or as b = 63, past
            // the catalogue's end (MOE's: it borrows from the estimate's digit).
            if (tag < 1 || b > KNOWN_ANNOTATIONS.length) return this.rowwise(codes, from);
            ea = annotation(a);
            ma = annotation(b);
          }
          const e = est[r]!;
          const m = moe[r]!;
          out.putAt(blocks[r]!, k, e === e ? e : null, m === m ? m : null, ea, ma);
        }
      }
    }
    return out;
  }

  /** One row per cell: for requests of many codes (a pivot of hundreds of column groups costs more than it saves). */
  private async rowwise(codes: readonly string[], from: string): Promise<StoredCells> {
    const sql = `SELECT vintage, geo_key, variable, estimate, moe, estimate_annotation, moe_annotation ${from}`;
    // Columns, not row objects: one object per cell instead of two on large answers.
    const [vintage, geo, variable, estimate, moe, ea, ma] = (await this.pool.columns(sql)) as [
      number[],
      string[],
      string[],
      (number | null)[],
      (number | null)[],
      (string | null)[],
      (string | null)[],
    ];
    const out = new StoredCells(codes, geo.length);
    // Rows of one geography and vintage mostly come together (the files are sorted by table, then geography).
    let lastVintage = NaN;
    let lastGeo = '';
    let block = -1;
    for (let i = 0; i < geo.length; i++) {
      const v = vintage[i]!;
      const g = geo[i]!;
      if (v !== lastVintage || g !== lastGeo) {
        block = out.blockFor(v, g);
        lastVintage = v;
        lastGeo = g;
      }
      const column = out.column(variable[i]!);
      if (column >= 0) out.putAt(block, column, estimate[i]!, moe[i]!, ea[i]!, ma[i]!);
    }
    return out;
  }

  /** Whether `keys` holds every geography of each vintage's file (known from its serving index). */
  private coversFiles(dataset: string, vintages: number[], level: string, keys: string[]): boolean {
    let asked: Set<string> | undefined;
    for (const v of vintages) {
      const idx = this.index(dataset, v, level);
      if (!idx || !idx.coveredBy((asked ??= new Set(keys)))) return false;
    }
    return true;
  }

  /**
   * The sources of a query over per-state partitions: only the files of the states the keys are in
   * ('all': every state). A file whose every geography is asked for (a state's wildcard, expanded)
   * is read without the long key list, which costs DuckDB more than the rows it filters out.
   */
  private perStateSources(q: CellQuery, vintages: number[]): string[] {
    const sources: string[] = [];
    const geoFilter = q.geoKeys === 'all' ? '' : ` WHERE geo_key IN (${q.geoKeys.map(sqlString).join(',')})`;
    const asked = q.geoKeys === 'all' ? undefined : new Set(q.geoKeys);
    for (const v of vintages) {
      const partition = `${q.dataset}/${v}/${q.level}`;
      if (!this.stateFiles.has(partition)) {
        sources.push(`SELECT ${v} AS vintage, * FROM read_parquet(${sqlString(this.file(q.dataset, v, q.level))})${geoFilter}`);
        continue;
      }
      const whole: string[] = [];
      const some: string[] = [];
      for (const f of this.filesFor(partition, q.geoKeys)) {
        const idx = asked ? this.index(q.dataset, v, q.level, f.state) : null;
        (!asked || idx?.coveredBy(asked) ? whole : some).push(sqlString(f.file));
      }
      if (whole.length) sources.push(`SELECT ${v} AS vintage, * FROM read_parquet([${whole.join(',')}])`);
      if (some.length) sources.push(`SELECT ${v} AS vintage, * FROM read_parquet([${some.join(',')}])${geoFilter}`);
    }
    return sources;
  }

  close(): void {
    for (const { idx } of this.indexes.values()) idx?.close();
    this.indexes.clear();
    this.pool.close();
  }
}

/** The 2-digit state of a tract or block-group key (`tract:06001400100` → `06`): its per-state file. */
const stateOfKey = (level: string, key: string) => key.slice(level.length + 1, level.length + 3);

/** The build's manifest, read once at open; undefined when it has none (rows and the synthetic flag then default). */
function manifestOf(buildDir: string): Manifest | undefined {
  try {
    return readManifest(buildDir);
  } catch {
    return undefined;
  }
}

/**
 * An error DuckDB raised reading files (corrupt pages, failed decompression, bad metadata), as
 * opposed to one of ours: DuckDB's messages start with their class ("IO Error: …",
 * "Invalid Input Error: …", "Invalid Error: ZSTD Decompression failure", …).
 */
function isDuckDbReadError(e: unknown): boolean {
  if (e instanceof AppError || !(e instanceof Error)) return false;
  return /^(IO|Invalid Input|Invalid|Serialization|Conversion|Out of Range|Internal|INTERNAL) Error\b|Decompression|Corrupt|parquet/i.test(
    e.message,
  );
}

function unavailable(fault: PartitionUnavailable): AppError {
  return partitionUnavailableError(fault.partition, fault);
}
