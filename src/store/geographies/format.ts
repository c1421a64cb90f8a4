// The on-disk shape of `geo/geographies.json`, written by the ETL step `geographies` and read by
// GeographyStore at boot. Columnar arrays instead of one object per row: 600k+ tract and block
// group rows parse several times faster this way and become typed arrays without copying objects.

import type { GeoType } from '../../domain/geo/keys.js';

export const GEO_FORMAT_VERSION = 1;

/** Where a row's population and point come from (rows reference an entry by index). */
export interface GeoProvenance {
  population_source: string;
  point_kind: 'population_center' | 'internal_point' | 'derived_population_center';
  point_source: string;
  /** The boundary set the row belongs to, e.g. `tract-2020`, `county-2010`, `cbsa-2023-07`. */
  definition: string;
}

/** One level's rows, sorted by fips then valid_from. All arrays have the same length. */
export interface LevelColumns {
  fips: string[];
  /** Only for levels whose names are not derived from their parent (nation…cd). */
  name?: string[];
  valid_from: number[];
  /** Inclusive last ACS vintage; OPEN_VINTAGE when still current. */
  valid_to: number[];
  population: (number | null)[];
  lat: (number | null)[];
  lon: (number | null)[];
  /** Index into `provenance`. */
  prov: number[];
  /** Metro rows only: `;`-joined principal state FIPS from the CBSA title. */
  states?: string[];
  /** Metro rows only: `metro` or `micro`. */
  kind?: string[];
  /** Metro rows only: the OMB short title ("Austin, TX") from the Gazetteer. */
  short_name?: string[];
}

export interface GeoCrosswalks {
  /** July 2023 delineation: each CBSA's counties (2023 county universe, CT planning regions). */
  metro_county: { cbsa: string[]; county: string[]; central: boolean[] };
  /** 2020 tract → 118th Congress district, with the tract's population share in it. */
  cd_tract: { tract: string[]; cd: string[]; afact: number[] };
  /** Block groups of split tracts only: every other block group follows its tract. */
  cd_bg_split: { bg: string[]; cd: string[] };
  /** Connecticut 2020 tract (legacy county code) → planning region and 2022+ tract key. */
  ct_tract: { tract2020: string[]; region: string[]; tract2022: string[] };
}

export interface GeoFile {
  format: number;
  // No build time: two builds of the same inputs write the same bytes (the manifest's created_at
  // says when; a time here made every resumed build differ from an uninterrupted one).
  provenance: GeoProvenance[];
  levels: Record<GeoType, LevelColumns>;
  crosswalks: GeoCrosswalks;
  /**
   * Per level, the ACS vintages whose geographies (at least in part of the country) are those the
   * value files publish rather than the reference files' (absent in files written before it).
   */
  published?: Partial<Record<GeoType, number[]>>;
  notes: string[];
}
