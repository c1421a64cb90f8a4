// Puerto Rico in a custom region. The ACS publishes Puerto Rico beside the 50 states and DC
// (state 72, its municipios, tracts and metro areas), so `region(state:*)` sums 52 states and is
// not the nation: the ACS nation (`nation:1`, the Bureau's `us:1`) is the 50 states and DC.
// In ACS 2018 1-year, the 52 states' households (B19001_001E) sum to 122,699,817 against the
// nation's 121,520,180, which is the sum without Puerto Rico. A region with Puerto Rican members says so in its answer (docs/regions.md).
import type { GeoType } from '../geo/keys.js';

export const PUERTO_RICO_FIPS = '72';

export interface RegionCaveat {
  code: 'includes_puerto_rico';
  /** How many of the region's members are in Puerto Rico. */
  members: number;
  detail: string;
}

/** Whether a member is in Puerto Rico: its FIPS code starts with 72, or a metro's name is a Puerto Rican one. */
export function inPuertoRico(member: { key: string; name: string }, level: GeoType): boolean {
  if (level === 'nation') return false;
  // CBSA codes are not FIPS-nested: the Bureau names Puerto Rico's "…, PR Metro Area" / "…, PR Micro Area".
  if (level === 'metro') return /, PR (Metro|Micro) Area$/.test(member.name);
  return member.key.slice(member.key.indexOf(':') + 1).startsWith(PUERTO_RICO_FIPS);
}

/** The caveat of a region with members in Puerto Rico; null when it has none. */
export function puertoRicoCaveat(members: ReadonlyArray<{ key: string; name: string }>, level: GeoType): RegionCaveat | null {
  const n = members.filter((m) => inPuertoRico(m, level)).length;
  if (n === 0) return null;
  return {
    code: 'includes_puerto_rico',
    members: n,
    detail:
      `This region includes Puerto Rico (${n} of its ${members.length} members). The ACS publishes Puerto Rico beside the 50 states and DC, ` +
      'but its nation (nation:1, the Census API’s us:1) covers the 50 states and DC only, so a region of every state (region(state:*)) is not the nation. ' +
      'For the nation ask geo=nation:1, which also has the published MOE; for the 50 states and DC, leave state:72 (and its counties, tracts and metros) out of the members.',
  };
}
