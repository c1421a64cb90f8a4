// A `geo` parameter read once: its custom regions taken out first (their commas separate members,
// not specifiers), then the ordinary specifiers split and parsed. Everything downstream (the
// default vintage's levels, the heavy-queue rule, resolution) reads this, not the text again.
import { extractRegions, type RegionSpec } from '../regions/specifier.js';
import { parseGeoList, type GeoSpecifier } from './specifier.js';

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
