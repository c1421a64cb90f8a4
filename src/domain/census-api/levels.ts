// The Census Data API's geography levels as this service holds them: the name used in `for=` and
// `in=`, the geography columns an answer ends with (named as the Bureau names them), how a row's
// FIPS parts make our key, and the summary level of its GEO_ID (`0500000US06037`).
import type { GeoType } from '../geo/keys.js';

export interface CensusApiLevel {
  /** The `for=` name, as the Bureau writes it. */
  name: string;
  type: GeoType;
  /** The geography columns of an answer at this level, in the Bureau's order; the last is the level's own. */
  columns: readonly string[];
  /** Digits of each column's code. */
  widths: readonly number[];
  /** The parents an `in=` may name, in order (each needs those before it, as the Bureau requires). */
  parents: readonly string[];
  /** How many leading parents the Bureau requires (a tract needs its state). */
  requiredParents: number;
  /** The GEO_ID's summary-level part, where it does not change with the vintage. */
  geoIdPrefix: string | null;
}

const METRO = 'metropolitan statistical area/micropolitan statistical area';
const CD = 'congressional district';

export const CENSUS_API_LEVELS: readonly CensusApiLevel[] = [
  { name: 'us', type: 'nation', columns: ['us'], widths: [1], parents: [], requiredParents: 0, geoIdPrefix: '0100000US' },
  { name: 'state', type: 'state', columns: ['state'], widths: [2], parents: [], requiredParents: 0, geoIdPrefix: '0400000US' },
  {
    name: 'county',
    type: 'county',
    columns: ['state', 'county'],
    widths: [2, 3],
    parents: ['state'],
    requiredParents: 0,
    geoIdPrefix: '0500000US',
  },
  // The CBSA GEO_ID's middle part names the delineation (310M300US…, 310M700US…), which changes
  // with the vintage: served only where the source published it.
  { name: METRO, type: 'metro', columns: [METRO], widths: [5], parents: [], requiredParents: 0, geoIdPrefix: null },
  { name: CD, type: 'cd', columns: ['state', CD], widths: [2, 2], parents: ['state'], requiredParents: 0, geoIdPrefix: null },
  {
    name: 'tract',
    type: 'tract',
    columns: ['state', 'county', 'tract'],
    widths: [2, 3, 6],
    parents: ['state', 'county'],
    requiredParents: 1,
    geoIdPrefix: '1400000US',
  },
  {
    name: 'block group',
    type: 'block_group',
    columns: ['state', 'county', 'tract', 'block group'],
    widths: [2, 3, 6, 1],
    parents: ['state', 'county', 'tract'],
    requiredParents: 1,
    geoIdPrefix: '1500000US',
  },
];

const BY_NAME = new Map(CENSUS_API_LEVELS.map((l) => [l.name, l]));
const BY_TYPE = new Map(CENSUS_API_LEVELS.map((l) => [l.type, l]));

/** The level a `for=` name means; the Bureau matches names exactly, but `+` and `%20` both reach us as a space. */
export function levelNamed(name: string): CensusApiLevel | undefined {
  return BY_NAME.get(name.trim().replace(/\s+/g, ' '));
}

export function levelOfType(type: GeoType): CensusApiLevel {
  const l = BY_TYPE.get(type);
  if (!l) throw new Error(`no Census API level for ${type}`);
  return l;
}

/** A key's FIPS split into the level's geography columns (`county:06037` → ["06", "037"]; the nation → ["1"]). */
export function geographyColumns(level: CensusApiLevel, fips: string): string[] {
  if (level.type === 'nation') return ['1'];
  const out: string[] = [];
  let at = 0;
  for (const w of level.widths) {
    out.push(fips.slice(at, at + w));
    at += w;
  }
  return out;
}

/** The GEO_ID the Bureau gives a geography, where its form is fixed (null for metros and districts). */
export function geoIdOf(level: CensusApiLevel, fips: string): string | null {
  if (level.geoIdPrefix === null) return null;
  return level.type === 'nation' ? level.geoIdPrefix : level.geoIdPrefix + fips;
}

/** Summary levels of the GEO_IDs a `ucgid=` may list (and the Summary File's SUMLEVEL), and the level each means. */
export const SUMMARY_LEVELS: Record<string, GeoType> = {
  '010': 'nation',
  '040': 'state',
  '050': 'county',
  '310': 'metro',
  '500': 'cd',
  '140': 'tract',
  '150': 'block_group',
};

/** A GEO_ID (`0400000US06`, `310M700US12420`) as a level and FIPS; undefined when it is not one we hold. */
export function parseGeoId(geoId: string): { level: CensusApiLevel; fips: string } | undefined {
  const m = /^(\d{3})[0-9A-Z]{4}US(\d*)$/.exec(geoId);
  if (!m) return undefined;
  const type = SUMMARY_LEVELS[m[1]!];
  if (!type) return undefined;
  const level = levelOfType(type);
  const fips = type === 'nation' ? '1' : m[2]!;
  const width = level.widths.reduce((a, b) => a + b, 0);
  if (type !== 'nation' && fips.length !== width) return undefined;
  if (type === 'nation' && m[2] !== '') return undefined;
  return { level, fips };
}
