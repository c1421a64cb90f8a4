// GeographyStore: the geography reference of one build, loaded once at boot from
// `geo/geographies.json` (written by the ETL step `geographies`) and queried in memory.
import fs from 'node:fs/promises';
import path from 'node:path';
import { GEO_TYPES, OPEN_VINTAGE, parentKeyOf, splitKey, tractDisplayName, type GeoType } from '../domain/geo/keys.js';
import { GEO_FORMAT_VERSION, type GeoFile, type GeoProvenance } from './geographies/format.js';
import { LevelTable } from './geographies/level-table.js';
import { Crosswalks } from './geographies/crosswalks.js';
import { membersOf, type Members } from './geographies/members.js';
import { searchNames, type NameIndex, type NameSearch, buildNameIndex } from './geographies/name-index.js';
import type { GeographyRecord, GeographyRows } from './geographies/record.js';

export type { GeographyPoint, GeographyRecord } from './geographies/record.js';

export class GeographyStore implements GeographyRows {
  readonly tables: Record<GeoType, LevelTable>;
  readonly crosswalks: Crosswalks;
  readonly provenance: GeoProvenance[];
  readonly notes: string[];
  /** Per level, the vintages whose geographies are those the value files publish (GeoFile.published). */
  readonly published: Partial<Record<GeoType, readonly number[]>>;
  readonly loadMs: number;
  private countyName = new Map<string, string>();
  private nameIndex: NameIndex | undefined;
  /** Derived strings, filled on first use: parent keys per row, tract names per tract FIPS. */
  private parentCache: Partial<Record<GeoType, (string | null | undefined)[]>> = {};
  private interned = new Map<string, string>();
  private tractNames = new Map<string, string>();
  private tractNameAt: (string | undefined)[] | undefined;
  private lastTract = '-';
  private lastTractName = '';

  private constructor(file: GeoFile, loadMs: number) {
    this.tables = Object.fromEntries(GEO_TYPES.map((t) => [t, new LevelTable(t, file.levels[t])])) as Record<GeoType, LevelTable>;
    this.crosswalks = new Crosswalks(file.crosswalks);
    this.provenance = file.provenance;
    this.notes = file.notes;
    this.published = file.published ?? {};
    this.loadMs = loadMs;
    const c = this.tables.county;
    // Later rows of a key are later definitions: the newest name wins.
    for (let i = 0; i < c.size; i++) this.countyName.set(c.fips[i]!, c.name![i]!);
  }

  /** Load `geo/geographies.json` from a build directory (e.g. `data/current`). */
  static async load(buildDir: string): Promise<GeographyStore> {
    const t0 = performance.now();
    const text = await fs.readFile(path.join(buildDir, 'geo', 'geographies.json'), 'utf8');
    const file = JSON.parse(text) as GeoFile;
    if (file.format !== GEO_FORMAT_VERSION) {
      throw new Error(`geo/geographies.json has format ${file.format}; this server reads format ${GEO_FORMAT_VERSION}: rebuild the data`);
    }
    const store = new GeographyStore(file, 0);
    (store as { loadMs: number }).loadMs = performance.now() - t0;
    return store;
  }

  /**
   * The record of table row `i`. A fresh object every call (callers own it), built from strings
   * cached per row: the store is immutable, so a row's key, name and parent key never change, and
   * caching them (not the mutable record) keeps large expansions from re-deriving and re-hashing
   * thousands of strings per request.
   */
  record(type: GeoType, i: number): GeographyRecord {
    const L = this.tables[type];
    const fips = L.fips[i]!;
    const prov = this.provenance[L.prov[i]!]!;
    const pop = L.population[i]!;
    const lat = L.lat[i]!;
    const to = L.to[i]!;
    const rec: GeographyRecord = {
      key: L.keyAt(i),
      type,
      fips,
      name: this.nameOf(type, i),
      parent_key: this.parentKeyAt(type, i),
      state_keys: this.stateKeysOf(type, i),
      population: Number.isNaN(pop) ? null : pop,
      population_source: prov.population_source,
      point: Number.isNaN(lat) ? null : { lat, lon: L.lon[i]!, kind: prov.point_kind, source: prov.point_source },
      definition: prov.definition,
      valid_from: L.from[i]!,
      valid_to: to === OPEN_VINTAGE ? null : to,
    };
    if (type === 'metro') rec.metro = { kind: L.kind![i] === 'micro' ? 'micro' : 'metro', short_name: L.shortName![i]! };
    return rec;
  }

  /** Records of table rows, in order. */
  records(type: GeoType, rows: readonly number[]): GeographyRecord[] {
    const out = new Array<GeographyRecord>(rows.length);
    for (let j = 0; j < rows.length; j++) out[j] = this.record(type, rows[j]!);
    return out;
  }

  nameOf(type: GeoType, i: number): string {
    const L = this.tables[type];
    if (L.name) return L.name[i]!;
    // Block group names are their tract's name behind a short prefix: share the cached tract name
    // instead of caching ~480k long strings (same text as blockGroupDisplayName).
    if (type === 'block_group') {
      const fips = L.fips[i]!;
      // Rows are sorted by FIPS: consecutive block groups mostly share their tract.
      if (!fips.startsWith(this.lastTract)) {
        this.lastTract = fips.slice(0, 11);
        this.lastTractName = this.tractName(this.lastTract);
      }
      return `Block Group ${fips.slice(11, 12)}, ${this.lastTractName}`;
    }
    // Tract rows keep a direct pointer to their (shared) name: no hashing on the hot path.
    const cache = (this.tractNameAt ??= new Array<string | undefined>(L.size));
    return (cache[i] ??= this.tractName(L.fips[i]!));
  }

  /** A tract's display name by FIPS (whichever definition: the name depends on the FIPS only). */
  private tractName(tractFips: string): string {
    let name = this.tractNames.get(tractFips);
    if (name === undefined) {
      name = tractDisplayName(tractFips, this.countyNameOf(tractFips));
      this.tractNames.set(tractFips, name);
    }
    return name;
  }

  private countyNameOf(fips: string): string {
    return this.countyName.get(fips.slice(0, 5)) ?? `County ${fips.slice(0, 5)}`;
  }

  private parentKeyAt(type: GeoType, i: number): string | null {
    const cache = (this.parentCache[type] ??= new Array<string | null | undefined>(this.tables[type].size));
    let p = cache[i];
    if (p === undefined) {
      const L = this.tables[type];
      p = parentKeyOf(type, L.fips[i]!, L.states?.[i]);
      cache[i] = p === null ? null : this.intern(p);
    }
    return p;
  }

  /** A fresh array (callers may mutate it) of interned `state:XX` strings. */
  private stateKeysOf(type: GeoType, i: number): string[] {
    if (type === 'nation') return [];
    const L = this.tables[type];
    if (type === 'metro') return (L.states?.[i] ?? []).map((s) => this.intern(`state:${s}`));
    return [this.intern(`state:${L.fips[i]!.slice(0, 2)}`)];
  }

  /** One string instance per distinct parent/state key (a few hundred thousand at most). */
  private intern(s: string): string {
    let v = this.interned.get(s);
    if (v === undefined) {
      v = s;
      this.interned.set(s, v);
    }
    return v;
  }

  /**
   * The geography of a canonical key in an ACS vintage; without a vintage, its latest definition.
   * Null when the key does not exist in that vintage.
   */
  get(key: string, vintage?: number): GeographyRecord | null {
    const k = splitKey(key);
    if (!k) return null;
    const i = this.tables[k.type].find(k.fips, vintage);
    return i < 0 ? null : this.record(k.type, i);
  }

  /** The name `get(key)` would give (latest definition), without building the record: geocode names every hit. */
  latestName(key: string): string | undefined {
    const k = splitKey(key);
    if (!k) return undefined;
    const i = this.tables[k.type].find(k.fips, undefined);
    return i < 0 ? undefined : this.nameOf(k.type, i);
  }

  /** Whether the value files define `type`'s geographies in `vintage` (else the reference files do). */
  isPublished(type: GeoType, vintage: number): boolean {
    return this.published[type]?.includes(vintage) ?? false;
  }

  /**
   * The definition of a key nearest to `vintage` (the latest on a tie), for a key that does not
   * exist in that vintage but does in others; null when it never existed.
   */
  nearest(key: string, vintage: number): GeographyRecord | null {
    const k = splitKey(key);
    if (!k) return null;
    const L = this.tables[k.type];
    let best = -1;
    let gap = Infinity;
    for (const i of L.rowsOf(k.fips)) {
      const d = vintage < L.from[i]! ? L.from[i]! - vintage : vintage > L.to[i]! ? vintage - L.to[i]! : 0;
      if (d <= gap) {
        gap = d;
        best = i;
      }
    }
    return best < 0 ? null : this.record(k.type, best);
  }

  /** Every definition of a key across vintages (empty when the key never existed). */
  versions(key: string): GeographyRecord[] {
    const k = splitKey(key);
    if (!k) return [];
    return this.tables[k.type].rowsOf(k.fips).map((i) => this.record(k.type, i));
  }

  /** Geographies of `type` whose FIPS starts with `fipsPrefix` in `vintage` (wildcards). */
  byPrefix(type: GeoType, fipsPrefix: string, vintage: number): GeographyRecord[] {
    return this.records(type, this.tables[type].rowsWithPrefix(fipsPrefix, vintage));
  }

  countByPrefix(type: GeoType, fipsPrefix: string, vintage: number): number {
    return this.tables[type].countWithPrefix(fipsPrefix, vintage);
  }

  /** Keys (not records) matching a prefix: cheap enough to count and gate before building records. */
  keysByPrefix(type: GeoType, fipsPrefix: string, vintage: number): string[] {
    const L = this.tables[type];
    return L.keysOf(L.rowsWithPrefix(fipsPrefix, vintage));
  }

  /** Every geography of a type valid in a vintage. */
  all(type: GeoType, vintage: number): GeographyRecord[] {
    return this.byPrefix(type, '', vintage);
  }

  /**
   * Child keys of a parent for a child type in a vintage, through containment (FIPS prefixes) or
   * the crosswalks (metro→county, district→tract). Unsupported pairs are the caller's to reject.
   */
  members(parentKey: string, childType: GeoType, vintage: number): Members {
    const k = splitKey(parentKey);
    if (!k) return { keys: [], notes: [], unsupported: `not a geography key: ${parentKey}` };
    return membersOf(this, k.type, k.fips, childType, vintage);
  }

  children(parentKey: string, childType: GeoType, vintage: number): GeographyRecord[] {
    return this.members(parentKey, childType, vintage)
      .keys.map((key) => this.get(key, vintage))
      .filter((r): r is GeographyRecord => r !== null);
  }

  /** The containment chain above a geography, nearest first, ending with the nation. */
  hierarchy(key: string, vintage?: number): GeographyRecord[] {
    const out: GeographyRecord[] = [];
    let rec = this.get(key, vintage);
    const seen = new Set<string>();
    while (rec?.parent_key && !seen.has(rec.parent_key)) {
      seen.add(rec.parent_key);
      const parent = this.get(rec.parent_key, vintage) ?? this.get(rec.parent_key);
      if (!parent) break;
      out.push(parent);
      rec = parent;
    }
    return out;
  }

  /** The name index (states, counties, metros, districts), built on first use. */
  names(): NameIndex {
    this.nameIndex ??= buildNameIndex(this);
    return this.nameIndex;
  }

  /**
   * Search names of states, counties, metros and districts (tracts and block groups have
   * generated names: reach them by their parent). Best matches first.
   */
  search(name: string, opts: { type?: GeoType; limit: number; vintage?: number }): NameSearch {
    return searchNames(this, name, opts);
  }
}
