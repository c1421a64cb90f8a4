// Custom regions in a `geo` parameter: `region(county:06001,county:06013,county:06075)` (an inline
// set of geographies of one level, written with the ordinary specifier grammar, names included) or
// `region:my-service-area` (a region saved to the caller's account). They are taken out of the
// parameter before the ordinary specifiers are split, because the commas inside the parentheses
// separate members, not specifiers. This is the one reader of region syntax: a region's members
// are parsed here (with specifier.ts's grammar) and a saved region's members are stored parsed
// (RegionMembers), so nothing downstream reads region text again.
import { quoteInput, type AppError } from '../errors.js';
import type { GeoType } from './keys.js';
import { geoInputError, keySpecifier, parseGeoList, type GeoSpecifier } from './specifier.js';

export type RegionSpec =
  | { kind: 'inline'; raw: string; members: GeoSpecifier[] }
  /** `members` once read from the account (its keys as saved). */
  | { kind: 'saved'; raw: string; name: string; members?: GeoSpecifier[] };

/**
 * A saved region's members as the accounts store keeps them (src/store/accounts/shared/regions.ts):
 * resolved when the region was saved, so whole keys of one level, held as the level and the FIPS
 * codes (sorted, without duplicates) rather than as text to parse again.
 */
export interface RegionMembers {
  level: GeoType;
  fips: readonly string[];
}

/** The members' keys (`county:06001`), in the stored order. */
export const memberKeys = (m: RegionMembers): string[] => m.fips.map((f) => `${m.level}:${f}`);

/** The members as specifiers, built from their parts (keySpecifier), not parsed from text. */
export const memberSpecifiers = (m: RegionMembers): GeoSpecifier[] => m.fips.map((f) => keySpecifier(m.level, f));

/** A saved region's name: a slug, so `region:<name>` needs no quoting in a URL or a `;` list. */
export const REGION_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const REGION_NAME_HELP = 'lower-case letters, digits, "-" and "_", starting with a letter or digit, at most 63 characters';

// `region(` or `region:` at the start of a specifier (start of the value, or after `;` or `,`).
const REGION_START = /(^|[;,])\s*region\s*([(:])/gi;

function formatError(raw: string, why: string): AppError {
  return geoInputError(
    'invalid-geo-format',
    raw,
    (quoted) =>
      `"${quoted}" is not a valid region: ${why}. Write an inline region as region(county:06001,county:06013) (geographies of one level, separated by commas) or a saved region as region:<name>.`,
  );
}

/** The `geo` values without their regions, and the regions in the order written. */
export function extractRegions(values: string | readonly string[] | undefined): { rest: string[]; regions: RegionSpec[] } {
  const list = values === undefined ? [] : typeof values === 'string' ? [values] : values;
  const rest: string[] = [];
  const regions: RegionSpec[] = [];
  for (const value of list) {
    let kept = '';
    let from = 0;
    // A regex of this call's own: its lastIndex is this loop's position (the members' parse recurses).
    const starts = new RegExp(REGION_START);
    for (let m = starts.exec(value); m; m = starts.exec(value)) {
      const start = m.index + m[1]!.length;
      kept += value.slice(from, m.index) + ';';
      const open = starts.lastIndex;
      if (m[2] === '(') {
        let depth = 1;
        let i = open;
        for (; i < value.length && depth > 0; i++) {
          if (value[i] === '(') depth++;
          else if (value[i] === ')') depth--;
        }
        const raw = value.slice(start, i).trim();
        if (depth > 0) throw formatError(raw, 'its parenthesis is not closed');
        const text = value.slice(open, i - 1);
        // The members are read by this same parser: a region among them is refused, the rest are specifiers.
        const inner = extractRegions(text);
        if (inner.regions.length > 0) throw formatError(raw, 'a region cannot contain another region');
        const members = parseGeoList(inner.rest);
        if (members.length === 0) throw formatError(raw, 'it has no members');
        regions.push({ kind: 'inline', raw, members });
        from = i;
      } else {
        const name = /^\s*([^;,\s]*)/.exec(value.slice(open))![1]!;
        const raw = `region:${name}`;
        if (!REGION_NAME.test(name)) throw formatError(raw, `a saved region's name is ${REGION_NAME_HELP}`);
        regions.push({ kind: 'saved', raw, name });
        from = open + /^\s*/.exec(value.slice(open))![0].length + name.length;
      }
      const after = /^\s*(?:[;,]|$)/.exec(value.slice(from));
      if (!after) throw formatError(regions.at(-1)!.raw, `unexpected "${quoteInput(value.slice(from).trim())}" after it`);
      starts.lastIndex = from;
    }
    kept += value.slice(from);
    if (kept.split(';').some((s) => s.trim() && !/^[\s,]*$/.test(s))) rest.push(kept);
  }
  return { rest, regions };
}
