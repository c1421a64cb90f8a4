// A geography as the store hands it out, and what the store's helpers (members.ts, name-index.ts)
// read from it: the level tables, the crosswalks and the few lookups they share. The store
// (../geographies.ts) implements GeographyRows and calls those helpers, so they name this interface
// rather than the store class.
import type { GeoType } from '../../domain/geo/keys.js';
import type { Crosswalks } from './crosswalks.js';
import type { GeoProvenance } from './format.js';
import type { LevelTable } from './level-table.js';

export interface GeographyPoint {
  lat: number;
  lon: number;
  kind: GeoProvenance['point_kind'];
  source: string;
}

export interface GeographyRecord {
  key: string;
  type: GeoType;
  fips: string;
  name: string;
  /** Immediate parent; for metros the first principal state. */
  parent_key: string | null;
  /** States the geography belongs to (metros: every state in the CBSA title). */
  state_keys: string[];
  population: number | null;
  population_source: string;
  point: GeographyPoint | null;
  /** Boundary set: `tract-2010`, `tract-2020`, `county`, `cbsa-2023-07`, `cd118`, … */
  definition: string;
  /** First and last ACS vintage (inclusive) using this definition; null last = still current. */
  valid_from: number;
  valid_to: number | null;
  /** Metro rows only. */
  metro?: { kind: 'metro' | 'micro'; short_name: string };
}

/** The store as members.ts and name-index.ts read it. */
export interface GeographyRows {
  readonly tables: Record<GeoType, LevelTable>;
  readonly crosswalks: Crosswalks;
  /** The record of row `i` of a level table. */
  record(type: GeoType, i: number): GeographyRecord;
  /** Whether the value files publish this level's geographies for `vintage`. */
  isPublished(type: GeoType, vintage: number): boolean;
  keysByPrefix(type: GeoType, fipsPrefix: string, vintage: number): string[];
}
