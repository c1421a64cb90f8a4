// A request's custom regions before any value is read: saved regions' members read from the
// account, each region's members resolved with the ordinary resolver (keys, wildcards and names,
// the plan's gates and expansion limit), and what the regions cost. prepare.ts runs this; the
// answer for the resolved regions is computed in regions.ts.
import { geoInputError, type GeoSpecifier } from '../../domain/geo/specifier.js';
import type { GeoTerm } from '../../domain/cost.js';
import type { GeoType } from '../../domain/geo/keys.js';
import { memberSpecifiers, type RegionMembers, type RegionSpec } from '../../domain/geo/region-specifier.js';
import type { GeographyRecord } from '../../store/geographies.js';
import { resolveSpecifiers, type ResolvedGeographies, type ResolveOptions } from '../resolve-geographies.js';
import { geoTermsOf } from './geo-terms.js';

/** A region as answered: its own key and name, the level and the members of a vintage. */
export interface ResolvedRegion {
  spec: string;
  /** `region(county:06001,county:06013)` (members sorted) or `region:<saved name>`. */
  key: string;
  name: string;
  level: GeoType;
  members: GeographyRecord[];
  /** The members' resolution: its expansions price the region as its members (domain/cost.ts). */
  resolution: ResolvedGeographies;
}

/** Where a saved region's members come from (the caller's account, stored parsed); null when it has none of that name. */
export type SavedRegionLookup = (name: string) => Promise<{ name: string; members: RegionMembers } | null>;

const PLURAL: Record<GeoType, string> = {
  nation: 'nations',
  state: 'states',
  county: 'counties',
  metro: 'metros',
  cd: 'congressional districts',
  tract: 'tracts',
  block_group: 'block groups',
};

function regionName(level: GeoType, members: readonly GeographyRecord[], saved: string | null): string {
  const shown = members.slice(0, members.length <= 5 ? 5 : 3).map((m) => m.name);
  const more = members.length - shown.length;
  const list = `${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
  return `${saved ? `Region "${saved}"` : 'Region'} of ${members.length} ${members.length === 1 ? level.replace('_', ' ') : PLURAL[level]}: ${list}`;
}

/** A region whose members are known: written inline, or saved and read from the account. */
export type RegionWithMembers = RegionSpec & { members: readonly GeoSpecifier[] };

/**
 * Saved regions with their members read from the account (404 for a name it does not have), as
 * the specifiers of their stored keys: nothing is parsed, inline regions were parsed with `geo`.
 */
export async function readSavedRegions(specs: readonly RegionSpec[], saved?: SavedRegionLookup): Promise<RegionWithMembers[]> {
  const out: RegionWithMembers[] = [];
  for (const spec of specs) {
    if (spec.kind === 'inline' || spec.members !== undefined) {
      out.push({ ...spec, members: spec.members! });
      continue;
    }
    const found = saved ? await saved(spec.name) : null;
    if (!found) {
      throw geoInputError(
        'geography-not-found',
        spec.raw,
        (quoted) => `${quoted}: your account has no saved region named "${spec.name}" (GET /v1/account/regions lists them).`,
      );
    }
    out.push({ ...spec, members: memberSpecifiers(found.members) });
  }
  return out;
}

/** Resolve regions for one vintage; saved regions are read through `saved` (absent: refused). */
export async function resolveRegions(
  store: Parameters<typeof resolveSpecifiers>[0],
  specs: readonly RegionSpec[],
  opts: ResolveOptions,
  saved?: SavedRegionLookup,
): Promise<ResolvedRegion[]> {
  const out: ResolvedRegion[] = [];
  for (const spec of specs) {
    const [read] = await readSavedRegions([spec], saved);
    const resolution = resolveSpecifiers(store, read!.members, opts);
    const levels = [...new Set(resolution.geographies.map((g) => g.type))];
    if (levels.length !== 1) {
      throw geoInputError(
        'unprocessable-request',
        spec.raw,
        (quoted) =>
          `${quoted} mixes geography levels (${levels.join(', ')}): a region's members are of one level, e.g. region(county:06001,county:06013).`,
        { errors: [{ field: 'geo', message: 'A region has members of one level', type: 'value_error' }] },
      );
    }
    const level = levels[0]!;
    const sorted = [...resolution.geographies].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const key = spec.kind === 'saved' ? spec.raw : `region(${sorted.map((g) => g.key).join(',')})`;
    out.push({
      spec: spec.raw,
      key,
      name: regionName(level, sorted, spec.kind === 'saved' ? spec.name : null),
      level,
      members: sorted,
      resolution,
    });
  }
  return out;
}

/** What a region costs: what its members would cost asked for one by one or by their wildcard. */
export const regionGeoTerms = (regions: readonly ResolvedRegion[]): GeoTerm[] => regions.flatMap((r) => geoTermsOf(r.resolution));
