// A `geo` parameter read once: its custom regions taken out first (their commas separate members,
// not specifiers), then the ordinary specifiers split and parsed. Everything downstream (the
// default vintage's levels, the heavy-queue rule, resolution) reads this, not the text again.
import { extractRegions, type RegionSpec } from './region-specifier.js';
import { mayExpand, parseGeoList, type GeoSpecifier } from './specifier.js';

export interface ParsedGeoParam {
  /** The listed geographies' specifiers, in the order written. */
  specifiers: GeoSpecifier[];
  /** The custom regions (`region(…)`, `region:<name>`), in the order written. */
  regions: RegionSpec[];
}

/** Parse a `geo` parameter. Throws AppError `invalid-geo-format` for a specifier or region outside the grammar. */
export function parseGeoParam(values: string | readonly string[] | undefined): ParsedGeoParam {
  const { rest, regions } = extractRegions(values);
  return { specifiers: parseGeoList(rest), regions };
}

/**
 * The heavy-queue rule's reading of a parsed `geo`: a wildcard or a name anywhere (an inline
 * region's members included) may expand to hundreds of geographies. A saved region's members are
 * read from the account only in the run, so it is judged there by its size, not here.
 */
export function geoMayExpand(geo: ParsedGeoParam): boolean {
  return geo.specifiers.some(mayExpand) || geo.regions.some((r) => r.kind === 'inline' && r.members.some(mayExpand));
}
