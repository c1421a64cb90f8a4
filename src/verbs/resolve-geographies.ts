// The one entry point data operations use to turn `geo` specifiers into geographies of a vintage:
// parse every specifier, apply the plan gates to wildcard and name expansions, count the expansion
// against the plan's limit BEFORE any data is fetched, then build the records.
import { AppError, quoteInput } from '../domain/errors.js';
import { expansionLimitError, requireFeature, type Plan } from '../domain/plans.js';
import { FIPS_LENGTH, FIPS_SHAPE, type GeoType } from '../domain/geo/keys.js';
import { resolvePlaceName, type NameTarget } from '../store/geographies/resolve-name.js';
import { geoInputError, parseGeoList, type GeoSpecifier } from '../domain/geo/specifier.js';
import type { GeographyRecord, GeographyStore } from '../store/geographies.js';

/** The caller's plan: its wildcard gates (requireFeature) and expansion limit (plans table). */
export interface GeoGates {
  plan: Plan;
  /** The dashboard; `feature-requires-upgrade` links to its billing page with the required plan. */
  dashboardUrl?: string;
}

export interface ResolveOptions extends GeoGates {
  vintage: number;
}

export type ExpansionVia = 'key' | 'wildcard' | 'name:state' | 'name:county' | 'name:metro' | 'name:cd';

export interface Expansion {
  spec: string;
  count: number;
  via: ExpansionVia;
  /** The place a name resolved to. */
  resolved_to?: { key: string; name: string };
  keys: string[];
  /** District expansions: population share inside the district of each split tract. */
  afact?: Record<string, number>;
}

export interface DefinitionVintage {
  vintage: number;
  tracts: '2010' | '2020';
  connecticut: 'legacy_counties' | 'planning_regions';
  /** `118th`, or `as published in ACS {vintage}` when the value files define the districts. */
  congress: string;
  /** `2023-07` (OMB July 2023), or `as published in ACS {vintage}` when the value files list the CBSAs. */
  metro_delineation: string;
  description: string;
}

export interface ResolvedGeographies {
  geographies: GeographyRecord[];
  expansions: Expansion[];
  definitionVintage: DefinitionVintage;
  notes: string[];
}

/**
 * The geography definitions a vintage is served with. Where the value files publish a level's
 * geographies for the vintage they are its definition; elsewhere the reference files', and where
 * those hold nothing for the vintage (earlier metro delineations, other Congresses) the sentence
 * says which definition stands in.
 */
export function definitionOf(vintage: number, store?: Pick<GeographyStore, 'isPublished'>): DefinitionVintage {
  const tracts = vintage >= 2020 ? '2020' : '2010';
  const connecticut = vintage >= 2022 ? 'planning_regions' : 'legacy_counties';
  const metroPublished = store?.isPublished('metro', vintage) ?? false;
  const cdPublished = store?.isPublished('cd', vintage) ?? false;
  const metros = metroPublished
    ? `metros as published in the ACS ${vintage} value files (the delineation the Bureau used for that release, with its titles; county membership and shapes of those CBSAs follow the July 2023 delineation, the only one in the sources)`
    : vintage >= 2023
      ? 'metros of the July 2023 delineation'
      : `metros of the July 2023 delineation (the sources hold no delineation for ACS ${vintage}; the Bureau's own for that release may differ in codes, titles and counties)`;
  const districts = cdPublished
    ? `congressional districts as published in the ACS ${vintage} value files`
    : vintage >= 2024
      ? `districts of the 118th Congress (ACS ${vintage} tabulates the 119th Congress, whose districts are not in the sources; they differ in some states)`
      : vintage >= 2022
        ? 'districts of the 118th Congress'
        : `no congressional districts (the sources hold the 118th Congress's, used from ACS 2022)`;
  return {
    vintage,
    tracts,
    connecticut,
    congress: cdPublished ? `as published in ACS ${vintage}` : '118th',
    metro_delineation: metroPublished ? `as published in ACS ${vintage}` : '2023-07',
    description: `Geographies as defined for ACS ${vintage}: ${tracts} census tracts and block groups; Connecticut ${connecticut === 'planning_regions' ? 'planning regions' : 'legacy counties'}; ${metros}; ${districts}.`,
  };
}

/** Wildcards and name expansions: the plan's `wildcard` feature for the level (block groups need more). */
function gate(type: GeoType, spec: string, what: string, opts: ResolveOptions): void {
  const bg = type === 'block_group';
  requireFeature(
    opts.plan,
    { kind: 'wildcard', level: type },
    opts.dashboardUrl ?? '',
    (plan) =>
      `"${spec}" is a ${what}, which expands to many geographies: ${bg ? 'block group expansions need the Business plan or above' : 'wildcard and name expansions need the Pro plan or above'}; your plan is ${plan.id}. Request individual geography keys instead, or upgrade.`,
  );
}

function notFoundKey(store: GeographyStore, s: Extract<GeoSpecifier, { kind: 'key' }>, vintage: number): AppError {
  const want = FIPS_LENGTH[s.type];
  const key = `${s.type}:${s.fips}`;
  const other = store.versions(key);
  // The key as the client wrote its digits: quoted within the bound, like the raw text.
  const shown = quoteInput(key);
  let why: string;
  if (other.length) {
    const ranges = other.map((r) => `${r.valid_from}–${r.valid_to ?? 'present'}`).join(', ');
    why = `${key} (${other[other.length - 1]!.name}) exists in ACS vintages ${ranges}, not in ${vintage}.`;
    if (s.type !== 'cd' && s.fips.startsWith('09') && vintage >= 2022)
      why += ' From 2022 Connecticut uses 9 planning regions (county:09110…county:09190) as counties, and tract keys changed with them.';
    if (s.type !== 'cd' && s.fips.startsWith('09') && vintage < 2022 && /^09(1[1-9]0)/.test(s.fips))
      why += ' Before 2022 Connecticut used its 8 legacy counties (county:09001…county:09015).';
    if ((s.type === 'tract' || s.type === 'block_group') && vintage < 2020)
      why += ' Vintages up to 2019 use 2010 tract definitions; 2020 and later use 2020 definitions.';
  } else if (s.fips.length !== want) {
    const padded = s.fips.length < want ? s.fips.padStart(want, '0') : null;
    const hint =
      padded && store.get(`${s.type}:${padded}`, vintage) ? ` Did you mean ${s.type}:${padded}? FIPS codes keep their leading zeros.` : '';
    why = `${shown} matches nothing: a ${s.type} FIPS code is ${FIPS_SHAPE[s.type]}.${hint}`;
  } else {
    why = `${shown} matches no ${s.type} in ACS ${vintage}.`;
  }
  return geoInputError('geography-not-found', s.raw, () => why);
}

function viaOf(t: NameTarget): ExpansionVia {
  return `name:${t.type}`;
}

/** Resolve `geo` specifiers (each may hold several, `;`-separated) for one vintage. */
export function resolveGeographies(store: GeographyStore, specs: string | readonly string[], opts: ResolveOptions): ResolvedGeographies {
  // Every specifier is parsed before any is resolved: a format error anywhere fails fast.
  return resolveSpecifiers(store, parseGeoList(specs), opts);
}

/** Resolve parsed specifiers (domain/geo/specifier.ts) for one vintage. */
export function resolveSpecifiers(store: GeographyStore, parsed: readonly GeoSpecifier[], opts: ResolveOptions): ResolvedGeographies {
  if (parsed.length === 0) {
    throw new AppError('unprocessable-request', 'geo is required: give at least one geography specifier such as state:48.', {
      errors: [{ field: 'geo', message: 'Field required', type: 'missing' }],
    });
  }
  const notes: string[] = [];
  const expansions: Expansion[] = [];
  // Aligned with `expansions`: the table rows of its keys when known, so records are built straight
  // from rows instead of looking every key up again (the bulk of the time for large expansions).
  const rowsOf: ({ type: GeoType; rows: number[] } | undefined)[] = [];
  // Keys asked for that exist in other vintages only: served under their nearest definition.
  const undefinedHere: GeographyRecord[] = [];
  for (const s of parsed) {
    rowsOf.length = expansions.length;
    if (s.kind === 'key') {
      const key = `${s.type}:${s.fips}`;
      const row = store.tables[s.type].find(s.fips, opts.vintage);
      if (row < 0) {
        // A geography of other vintages is answered, not refused: its values in this vintage are
        // null with `geography_not_defined` (never another area's), and a note says why.
        const near = store.nearest(key, opts.vintage);
        if (!near) throw notFoundKey(store, s, opts.vintage);
        notes.push(`${notFoundKey(store, s, opts.vintage).message} Its values for ${opts.vintage} are null (geography_not_defined).`);
        undefinedHere.push(near);
        expansions.push({ spec: s.raw, count: 1, via: 'key', keys: [key] });
        continue;
      }
      rowsOf[expansions.length] = { type: s.type, rows: [row] };
      expansions.push({ spec: s.raw, count: 1, via: 'key', keys: [key] });
    } else if (s.kind === 'wildcard') {
      gate(s.type, s.raw, 'wildcard', opts);
      const L = store.tables[s.type];
      const rows = L.rowsWithPrefix(s.prefix, opts.vintage);
      const keys = L.keysOf(rows);
      if (keys.length === 0) {
        const needed = FIPS_LENGTH[s.type];
        throw geoInputError(
          'geography-not-found',
          s.raw,
          (quoted) =>
            `${quoted} matches no ${s.type} in ACS ${opts.vintage}${s.prefix.length >= needed ? ` (a ${s.type} FIPS has ${needed} digits)` : ''}. FIPS prefixes keep their leading zeros, e.g. county:06* for California.`,
        );
      }
      rowsOf[expansions.length] = { type: s.type, rows };
      expansions.push({ spec: s.raw, count: keys.length, via: 'wildcard', keys });
    } else {
      const { target, alternatives, note } = resolvePlaceName(store, s.name, opts.vintage, s.type);
      if (note && !notes.includes(note)) notes.push(note);
      const targetKey = `${target.type}:${target.fips}`;
      const targetName = store.get(targetKey, opts.vintage)?.name ?? store.get(targetKey)?.name ?? target.label;
      if (alternatives.length) {
        notes.push(
          `"${s.name}" was read as ${targetName} (${targetKey}); it could also mean ${alternatives.map((a) => `${a.label} (${a.type}:${a.fips})`).join(', ')}.`,
        );
      }
      if (target.type === s.type) {
        // The name designates the geography itself (county:Travis County, TX): a direct lookup.
        expansions.push({
          spec: s.raw,
          count: 1,
          via: viaOf(target),
          resolved_to: { key: targetKey, name: targetName },
          keys: [targetKey],
        });
        continue;
      }
      gate(s.type, s.raw, `place name expanded to every ${s.type} of ${targetName}`, opts);
      const m = store.members(targetKey, s.type, opts.vintage);
      if (m.unsupported) throw geoInputError('validation-error', s.raw, (quoted) => `${quoted}: ${m.unsupported}`);
      for (const n of m.notes) if (!notes.includes(n)) notes.push(n);
      if (m.keys.length === 0)
        throw geoInputError('geography-not-found', s.raw, (quoted) => `${quoted}: ${targetName} has no ${s.type} in ACS ${opts.vintage}.`);
      const e: Expansion = {
        spec: s.raw,
        count: m.keys.length,
        via: viaOf(target),
        resolved_to: { key: targetKey, name: targetName },
        keys: m.keys,
      };
      if (m.afact?.size) e.afact = Object.fromEntries(m.afact);
      if (m.rows) rowsOf[expansions.length] = { type: s.type, rows: m.rows };
      expansions.push(e);
    }
  }

  const expanded = new Set<string>();
  for (const e of expansions) if (e.via !== 'key' && e.keys.length > 1) for (const k of e.keys) expanded.add(k);
  const maxExpansion = opts.plan.limits.wildcardExpansionMax;
  if (expanded.size > maxExpansion) {
    const parts = expansions
      .filter((e) => e.via !== 'key' && e.keys.length > 1)
      .map((e) => `${e.spec} → ${e.count}`)
      .join(', ');
    throw expansionLimitError(
      opts.plan,
      expanded.size,
      opts.dashboardUrl ?? '',
      `The geography expansion asks for ${expanded.size} geographies (${parts}); the ${opts.plan.id} plan allows ${maxExpansion} per request. Narrow it with a longer FIPS prefix (e.g. one county: tract:48453* instead of tract:48*), a smaller parent (a county instead of a state or metro), or split the request.`,
    );
  }

  const seen = new Set<string>();
  const geographies: GeographyRecord[] = [];
  for (let x = 0; x < expansions.length; x++) {
    const keys = expansions[x]!.keys;
    const known = rowsOf[x];
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j]!;
      if (seen.has(k)) continue;
      seen.add(k);
      if (known) {
        geographies.push(store.record(known.type, known.rows[j]!));
      } else {
        const r = store.get(k, opts.vintage) ?? undefinedHere.find((u) => u.key === k);
        if (r) geographies.push(r);
      }
    }
  }
  const def = definitionOf(opts.vintage, store);
  notes.unshift(def.description);
  return { geographies, expansions, definitionVintage: def, notes };
}
