// The Bureau's own published files that stand for the derived files of ../shared/census/geo
// (issue 34 §1): county and CBSA names and points from the 2023 Gazetteer, 118th Congress
// districts from the 2020 CD-SLD relationship file, Connecticut's 2020 block groups in its
// 2022 planning regions from the 2022 Connecticut relationship file. Each is stored as
// census.gov serves it; etl/steps/geographies/bureau.ts reads them (docs/sources.md cites the
// record layouts). `replaces` names the derived file of the shared tree each one stands for:
// the build reads the Bureau's file when it is present and the derived one otherwise.

/** An entry of REFERENCE_FILES (reference.ts, which lists these), stored byte for byte. */
export interface BureauReferenceFile {
  path: string;
  url: string;
  transform: 'verbatim';
  note: string;
  /** The derived file(s) of the shared tree this file stands for. */
  replaces: string[];
}

const GAZ = '/geo/docs/maps-data/data/gazetteer/2023_Gazetteer';

export const BUREAU_REFERENCE_FILES: readonly BureauReferenceFile[] = [
  {
    path: 'geo/gazetteer/2023_Gaz_counties_national.zip',
    url: `${GAZ}/2023_Gaz_counties_national.zip`,
    transform: 'verbatim',
    note: 'Gazetteer 2023 counties (names of the ACS 2023 county universe, internal points)',
    replaces: ['geo/county_names_acs2023.csv.gz'],
  },
  {
    path: 'geo/gazetteer/2023_Gaz_cbsa_national.zip',
    url: `${GAZ}/2023_Gaz_cbsa_national.zip`,
    transform: 'verbatim',
    note: 'Gazetteer 2023 core based statistical areas (internal points)',
    replaces: ['geo/gazetteer2023/cbsa.csv.gz'],
  },
  {
    path: 'geo/gazetteer/2023_Gaz_118CDs_national.zip',
    url: `${GAZ}/2023_Gaz_118CDs_national.zip`,
    transform: 'verbatim',
    note: 'Gazetteer 2023 118th Congress districts (internal points)',
    replaces: ['geo/cd118/cd118_list.csv'],
  },
  {
    path: 'geo/rel2020/cd-sld/tab20_cd11820_tract20_natl.txt',
    url: '/geo/docs/maps-data/data/rel2020/cd-sld/tab20_cd11820_tract20_natl.txt',
    transform: 'verbatim',
    note: '118th Congress district to 2020 tract relationship file (land area of each part)',
    replaces: ['geo/cd118/tract2020_to_cd118.csv.gz', 'geo/cd118/bg2020_to_cd118.csv.gz'],
  },
  {
    path: 'geo/rel2022/acs22_cousub22_blkgrp20_st09.txt',
    url: '/geo/docs/maps-data/data/rel2022/acs22_cousub22_blkgrp20_st09.txt',
    transform: 'verbatim',
    note: 'Connecticut 2022 county subdivisions (in planning regions) to 2020 block groups',
    replaces: ['geo/ct_tract2020_to_planning_region.csv'],
  },
];
