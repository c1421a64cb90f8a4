// County-equivalent changes between the 2010 county list and the ACS 2023 universe, with the first
// ACS vintage that uses the new code. ACS tabulates on the geography in effect on January 1 of the
// vintage year, so a change effective during year Y first appears in vintage Y+1 (or Y when it
// took effect on January 1). Sources: Census "Substantial Changes to Counties and County
// Equivalent Entities" notes.

export interface CountyChange {
  retired: string[];
  /** Last ACS vintage that publishes the retired codes. */
  lastVintage: number;
  added: string[];
  /**
   * When a county only changed its code (tracts kept their 6-digit codes), 2010-definition tract
   * and block group keys move to the new county code from `lastVintage + 1`.
   */
  rekeysTracts: boolean;
  why: string;
}

export const COUNTY_CHANGES: CountyChange[] = [
  // The Bureau applied these three in the products of the year they took effect (ACS 2013 has no
  // Bedford city; ACS 2015 publishes Kusilvak and Oglala Lakota), not from the following year.
  {
    retired: ['51515'],
    added: [],
    lastVintage: 2012,
    rekeysTracts: false,
    why: 'Bedford city, VA merged into Bedford County (51019), July 2013; gone from ACS 2013',
  },
  {
    retired: ['02270'],
    added: ['02158'],
    lastVintage: 2014,
    rekeysTracts: true,
    why: 'Wade Hampton Census Area, AK renamed Kusilvak Census Area with a new code, July 2015; Kusilvak from ACS 2015',
  },
  {
    retired: ['46113'],
    added: ['46102'],
    lastVintage: 2014,
    rekeysTracts: true,
    why: 'Shannon County, SD renamed Oglala Lakota County with a new code, May 2015; Oglala Lakota from ACS 2015',
  },
  {
    retired: ['02261'],
    added: ['02063', '02066'],
    lastVintage: 2019,
    rekeysTracts: false,
    why: 'Valdez-Cordova Census Area, AK split into Chugach and Copper River, January 2, 2019',
  },
  {
    retired: ['09001', '09003', '09005', '09007', '09009', '09011', '09013', '09015'],
    added: ['09110', '09120', '09130', '09140', '09150', '09160', '09170', '09180', '09190'],
    lastVintage: 2021,
    rekeysTracts: false,
    why: 'Connecticut replaced its 8 counties by 9 planning regions as county equivalents from ACS 2022',
  },
];

/** Bedford city's 2010 tract continued under Bedford County with the same tract code. */
export const TRACT_REKEY_EXTRA: { from: string; to: string; lastVintage: number }[] = [{ from: '51515', to: '51019', lastVintage: 2012 }];
