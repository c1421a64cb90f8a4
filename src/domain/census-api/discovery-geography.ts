// /data/{vintage}/acs/{ds}/geography.json: the levels a dataset and vintage can be asked for, in
// the Bureau's shape ({"fips": [{name, geoLevelDisplay, referenceDate, requires, wildcard,
// optionalWithWCFor}]}), listing only the levels whose values this build holds. Names and summary
// level codes are the Bureau's; a `requires` list names the `in=` clauses the level nests in, and
// `optionalWithWCFor` the one that may be left out when `for=` is a wildcard (`for=county:*`).
import type { GeoType } from '../geo/keys.js';
import type { ServedDataset } from './discovery-served.js';

export interface GeographyEntry {
  name: string;
  geoLevelDisplay: string;
  referenceDate: string;
  requires?: string[];
  wildcard?: string[];
  optionalWithWCFor?: string;
}

export interface GeographyDocument {
  fips: GeographyEntry[];
}

const LEVELS: Record<GeoType, Omit<GeographyEntry, 'referenceDate'>> = {
  nation: { name: 'us', geoLevelDisplay: '010' },
  state: { name: 'state', geoLevelDisplay: '040' },
  county: { name: 'county', geoLevelDisplay: '050', requires: ['state'], wildcard: ['state'], optionalWithWCFor: 'state' },
  metro: { name: 'metropolitan statistical area/micropolitan statistical area', geoLevelDisplay: '310' },
  cd: { name: 'congressional district', geoLevelDisplay: '500', requires: ['state'], wildcard: ['state'], optionalWithWCFor: 'state' },
  tract: { name: 'tract', geoLevelDisplay: '140', requires: ['state', 'county'], wildcard: ['county'], optionalWithWCFor: 'county' },
  block_group: {
    name: 'block group',
    geoLevelDisplay: '150',
    requires: ['state', 'county', 'tract'],
    wildcard: ['county', 'tract'],
    optionalWithWCFor: 'tract',
  },
};

/** The Bureau's name of one of our levels (`metro` → `metropolitan statistical area/micropolitan statistical area`). */
export const bureauLevelName = (level: GeoType) => LEVELS[level].name;

export function geographyDocument(served: ServedDataset): GeographyDocument {
  // The Bureau dates a vintage's geography as of January 1 of the survey year.
  const referenceDate = `${served.vintage}-01-01`;
  return {
    fips: served.levels.map((l) => {
      const { name, geoLevelDisplay, ...nesting } = LEVELS[l];
      return { name, geoLevelDisplay, referenceDate, ...nesting };
    }),
  };
}
