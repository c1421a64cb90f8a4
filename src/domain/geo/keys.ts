// Geography levels and their canonical keys (`{type}:{fips}`), shared by the ETL, the store and the
// operations. FIPS codes are strings: a leading zero is part of the identifier, not formatting.

/** The one list of geography levels: keys, boundaries, centroids, datasets and the ETL use it. */
export const GEO_TYPES = ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'block_group'] as const;
export type GeoType = (typeof GEO_TYPES)[number];

/** The one list of boundary resolutions (cartographic boundary scales), coarsest first. */
export const RESOLUTIONS = ['20m', '5m', '500k'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** Digits in the FIPS part of a complete key of each type (nation is the literal `1`). */
export const FIPS_LENGTH: Record<GeoType, number> = {
  nation: 1,
  state: 2,
  county: 5,
  metro: 5,
  cd: 4,
  tract: 11,
  block_group: 12,
};

/** How the FIPS part is composed, for messages that teach the format. */
export const FIPS_SHAPE: Record<GeoType, string> = {
  nation: '1',
  state: '2-digit state FIPS, e.g. state:06',
  county: '5 digits (state + county), e.g. county:06037',
  metro: '5-digit CBSA code, e.g. metro:12420',
  cd: '4 digits (state + district, 00 at-large), e.g. cd:4835',
  tract: '11 digits (state + county + tract), e.g. tract:48453001100',
  block_group: '12 digits (tract + block group), e.g. block_group:484530011001',
};

/** Parent→child pairs the children operation accepts (SPEC "Parent to child type pairs"). */
export const CHILD_TYPES: Record<GeoType, GeoType[]> = {
  nation: ['state'],
  state: ['county', 'cd', 'tract', 'block_group'],
  metro: ['county', 'tract', 'block_group'],
  cd: ['county', 'tract', 'block_group'],
  county: ['tract', 'block_group'],
  tract: ['block_group'],
  block_group: [],
};

/** Types whose specifier may carry a place name instead of FIPS digits. */
export const NAME_RESOLVABLE_TYPES: readonly GeoType[] = ['county', 'tract', 'block_group'];

export function isGeoType(s: string): s is GeoType {
  return (GEO_TYPES as readonly string[]).includes(s);
}

export function geoKey(type: GeoType, fips: string): string {
  return `${type}:${fips}`;
}

/** Split a canonical key; null when it is not `{known type}:{digits}`. */
export function splitKey(key: string): { type: GeoType; fips: string } | null {
  const i = key.indexOf(':');
  if (i < 0) return null;
  const type = key.slice(0, i);
  const fips = key.slice(i + 1);
  if (!isGeoType(type) || !/^\d+$/.test(fips)) return null;
  return { type, fips };
}

/**
 * The Census rule for tract names: the 6-digit code is a 4-digit base and a 2-digit suffix; the
 * base loses its leading zeros, and the suffix is shown after a dot only when it is not `00`.
 */
export function tractNumber(tractce: string): string {
  const base = String(Number(tractce.slice(0, 4)));
  const suffix = tractce.slice(4, 6);
  return suffix === '00' ? base : `${base}.${suffix}`;
}

/** Open-ended validity is stored as this year so ranges compare as plain numbers. */
export const OPEN_VINTAGE = 9999;
/** First ACS vintage (acs1 2005). */
export const FIRST_VINTAGE = 2005;

/**
 * The immediate parent in the containment hierarchy. Metros cross state lines, so their parent is
 * the first principal state of the CBSA title (callers that know all of them list them instead).
 */
export function parentKeyOf(type: GeoType, fips: string, metroStates?: string[]): string | null {
  switch (type) {
    case 'nation':
      return null;
    case 'state':
      return 'nation:1';
    case 'county':
    case 'cd':
      return `state:${fips.slice(0, 2)}`;
    case 'tract':
      return `county:${fips.slice(0, 5)}`;
    case 'block_group':
      return `tract:${fips.slice(0, 11)}`;
    case 'metro':
      return metroStates?.[0] ? `state:${metroStates[0]}` : 'nation:1';
  }
}

/** "Census Tract 201.01, Autauga County, Alabama" from 01001020101 and the county's name. */
export function tractDisplayName(tractFips: string, countyName: string): string {
  return `Census Tract ${tractNumber(tractFips.slice(5, 11))}, ${countyName}`;
}

export function blockGroupDisplayName(bgFips: string, countyName: string): string {
  return `Block Group ${bgFips.slice(11, 12)}, ${tractDisplayName(bgFips.slice(0, 11), countyName)}`;
}
