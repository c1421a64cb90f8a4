// The geography specifier grammar: `{type}:{fips}`, `{type}:{fips prefix}*` (wildcard) or, for
// county, tract and block_group, `{type}:{place name}`. Several specifiers are separated by `;`,
// or by a comma directly before the next `{type}:` (state:06,state:48); a comma anywhere else is
// part of a name ("Austin-Round Rock-San Marcos, TX").
import { AppError, quoteInput, type AppErrorOptions, type ErrorCode } from '../errors.js';
import { FIPS_SHAPE, GEO_TYPES, NAME_RESOLVABLE_TYPES, isGeoType, type GeoType } from './keys.js';

export type GeoSpecifier =
  | { kind: 'key'; raw: string; type: GeoType; fips: string }
  | { kind: 'wildcard'; raw: string; type: GeoType; prefix: string }
  | { kind: 'name'; raw: string; type: GeoType; name: string };

export const GEO_LIST_SEPARATOR = ';';

const FORMAT_HELP = `Use {type}:{fips} with type one of ${GEO_TYPES.join(', ')} and FIPS digits with their leading zeros (state:48, county:48453); add a trailing * for a wildcard (county:48*); county, tract and block_group also take a place name (tract:Travis County, TX). Separate several geographies with ${GEO_LIST_SEPARATOR}.`;

/** A comma that starts another full specifier (`,state:48`, `, block group:…`), not one inside a name. */
const COMMA_BEFORE_SPECIFIER = new RegExp(`,(?=\\s*(?:${[...GEO_TYPES, 'us'].map((t) => t.replace('_', '[_ -]')).join('|')})\\s*:)`, 'i');

/** Split `geo` parameter values (repeated parameters, `;` lists, commas before a `{type}:`) into specifiers. */
export function splitGeoParam(values: string | readonly string[] | undefined): string[] {
  const list = values === undefined ? [] : typeof values === 'string' ? [values] : values;
  return list
    .flatMap((v) => v.split(GEO_LIST_SEPARATOR))
    .flatMap((v) => v.split(COMMA_BEFORE_SPECIFIER))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * A problem about the client's `geo` text: the text as an error may repeat it (quoteInput), the
 * same in `detail` and in `extensions.geo`. Every reader of geo text (specifiers, regions) makes
 * its errors here, so none sends a long value back whole.
 */
export function geoInputError(
  code: ErrorCode,
  raw: string,
  detail: (quoted: string) => string,
  options: Omit<AppErrorOptions, 'extensions'> = {},
): AppError {
  const quoted = quoteInput(raw);
  return new AppError(code, detail(quoted), { ...options, extensions: { geo: quoted } });
}

function formatError(raw: string, why: string): AppError {
  return geoInputError('invalid-geo-format', raw, (quoted) => `"${quoted}" is not a valid geography specifier: ${why}. ${FORMAT_HELP}`);
}

/** Parse one specifier. Throws AppError `invalid-geo-format` when it is not of the grammar. */
export function parseSpecifier(input: string): GeoSpecifier {
  const raw = input.trim();
  if (!raw) throw formatError(input, 'it is empty');
  // The nation has one geography, so naming the level names it (`nation`, `us`, as the Census
  // API's `for=us:*`); everything else needs its FIPS part.
  if (/^(nation|us)$/i.test(raw)) return { kind: 'key', raw, type: 'nation', fips: '1' };
  const colon = raw.indexOf(':');
  if (colon < 0) {
    throw formatError(
      raw,
      /^[a-z]{2}$/i.test(raw) ? 'a state abbreviation alone is not a geography key (Texas is state:48)' : 'it has no {type}: part',
    );
  }
  const typePart = raw.slice(0, colon).trim().toLowerCase().replace(/[- ]/g, '_');
  const rest = raw.slice(colon + 1).trim();
  const type = typePart === 'us' ? 'nation' : typePart;
  if (!isGeoType(type)) throw formatError(raw, `"${raw.slice(0, colon)}" is not a geography type`);
  if (!rest) throw formatError(raw, `the part after "${type}:" is empty`);
  if (rest.includes('*')) {
    if (!/^\d*\*$/.test(rest)) throw formatError(raw, 'a wildcard is FIPS digits followed by a single trailing *');
    return { kind: 'wildcard', raw, type, prefix: rest.slice(0, -1) };
  }
  if (/^\d+$/.test(rest)) return { kind: 'key', raw, type, fips: rest };
  if (NAME_RESOLVABLE_TYPES.includes(type)) return { kind: 'name', raw, type, name: rest };
  throw formatError(
    raw,
    `${type} takes FIPS digits (${FIPS_SHAPE[type]}); place names are resolved only for ${NAME_RESOLVABLE_TYPES.join(', ')}`,
  );
}

/** A whole key (`county:48453`) as a specifier, built from its parts rather than from text. */
export function keySpecifier(type: GeoType, fips: string): GeoSpecifier {
  return { kind: 'key', raw: `${type}:${fips}`, type, fips };
}

/** Every `type` geography whose FIPS starts with `prefix` (`county:48*`; `county:*` with no prefix). */
export function wildcardSpecifier(type: GeoType, prefix: string): GeoSpecifier {
  return { kind: 'wildcard', raw: `${type}:${prefix}*`, type, prefix };
}

/**
 * May this specifier stand for many geographies? A wildcard does; so does a name, which is read as
 * the place holding the level asked for (`tract:Travis County, TX` is the county's 290 tracts,
 * `county:Texas` the state's 254 counties): which place a name is, is known only once the store
 * resolves it. Only a whole key is one geography.
 */
export function mayExpand(s: GeoSpecifier): boolean {
  return s.kind !== 'key';
}

/** Split and parse `geo` values: every specifier, normalised (`us` → nation, `block group` → block_group). */
export function parseGeoList(values: string | readonly string[] | undefined): GeoSpecifier[] {
  return splitGeoParam(values).map(parseSpecifier);
}
