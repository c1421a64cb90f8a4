// The shape of `boundaries/index.json`, written by the ETL step `boundaries` and read by the
// BoundaryStore. One entry per file so every served byte can be traced to its source.

import { BOUNDARY_LEVELS, RESOLUTIONS, type BoundaryLevel, type Resolution } from '../../domain/plans.js';

export { BOUNDARY_LEVELS, RESOLUTIONS, type BoundaryLevel, type Resolution };

export interface BoundaryFileEntry {
  level: BoundaryLevel;
  /** The served resolution slot; `null` for files only the geocoder reads. */
  resolution: Resolution | null;
  /** Boundary edition; the default edition of a level has `default: true`. */
  edition: string;
  default: boolean;
  /** Relative to the boundaries directory. */
  path: string;
  source: string;
  /** Vintage of the boundary definitions (sent as X-Boundary-Vintage). */
  boundary_vintage: string;
  /** Vintage of the geography definitions when it differs (2010 tracts drawn in 2018). */
  definition_vintage?: string;
  /** What the file really is, e.g. `20m`, `500k`, `full (TIGER/Line)`, `10m-class (us-atlas)`. */
  true_resolution: string;
  derived: boolean;
  derivation: string | null;
  feature_count: number;
  bytes: number;
  sha256: string;
  /** Whether the boundaries operations serve this file (false: geocoder-only supplement). */
  served: boolean;
  gaps: string[];
}

export interface CentroidFileEntry {
  level: BoundaryLevel;
  path: string;
  /** `internal_point`: a point guaranteed inside the shape; `population_center`: mean center of population. */
  kind: 'internal_point' | 'population_center';
  source: string;
  vintage: string;
  derived: boolean;
  derivation: string | null;
  feature_count: number;
  bytes: number;
  sha256: string;
}

export interface AbsentSlot {
  level: BoundaryLevel;
  resolution: Resolution;
  reason: string;
}

export interface BoundaryIndex {
  format: 1;
  files: BoundaryFileEntry[];
  centroids: CentroidFileEntry[];
  absent: AbsentSlot[];
  /** Address-geocoding inputs (relative paths) with their provenance. */
  address: { path: string; kind: 'addrfeat' | 'openaddresses' | 'zcta_counties'; source: string; rows: number }[];
}

/** Feature properties shared by every boundary and centroid file (FlatGeobuf needs one schema). */
export interface BoundaryProps {
  geo_key: string;
  geoid: string;
  name: string;
  /** Per-feature provenance, needed where one file mixes sources (cd 20m: DC and PR). */
  source: string;
  [k: string]: string;
}
