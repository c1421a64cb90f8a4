// What a place name in a specifier designates: a state, a county (with or without its state), a
// metro (CBSA title, "Metro Area" name or OMB short name) or a congressional district
// ("TX-35", "Texas-35", "Texas 35th congressional district"). Exact forms are tried before
// forgiving ones (type word dropped, principal city of a metro); more than one match at the first
// tier that matches is ambiguous, and no match lists the closest names.
import type { GeographyStore } from '../geographies.js';
import type { CountyEntry, MetroEntry, NameIndex, StateEntry } from './name-index.js';
import { AppError } from '../../domain/errors.js';
import { closest, compactName, foldName, stripCountyType } from '../../domain/geo/names.js';
import { COUNTY_ALIASES, METRO_SUFFIX, parseDistrictName, prefixOf } from '../../domain/geo/place-name.js';

export { parseDistrictName };

export interface NameTarget {
  type: 'state' | 'county' | 'metro' | 'cd';
  fips: string;
  label: string;
}

export interface NameResolution {
  target: NameTarget;
  /** Other readings of the name at a lower tier, for a note ("also matches …"). */
  alternatives: NameTarget[];
  /** Set when the name is another vintage's name of the target (metro titles change). */
  note?: string;
  /** The same, as fields, for pages that word it with names (`note` names the place by its key). */
  former?: FormerName;
}

/** A name the place had in other vintages ("Austin-Round Rock, TX", ACS 2013–2017, of metro:12420). */
export interface FormerName {
  /** The name as asked for: the place's title in `from`–`to`. */
  former_name: string;
  /** The vintages that title held (`to`: null while it is also current in a later delineation). */
  from: number;
  to: number | null;
  /** The place's name in `vintage`, the vintage asked about. */
  current_name: string;
  vintage: number;
  geo_key: string;
}

function countyLabel(c: CountyEntry, states: Map<string, StateEntry>): string {
  return `${c.name}, ${states.get(c.stateFips)?.abbr ?? c.stateFips}`;
}

/**
 * `specType` is the type being asked for: `county:Anchorage, AK` prefers the county
 * (Anchorage Municipality) over the metro of the same short name.
 */
export function resolvePlaceName(store: GeographyStore, rawName: string, vintage: number, specType?: string): NameResolution {
  // "Austin, TX metro", "Lake Charles, LA MSA": the trailing word says which reading is meant and
  // must not hide the state in front of it.
  const metroWord = METRO_SUFFIX.exec(rawName);
  const name = metroWord ? rawName.slice(0, metroWord.index).trim() : rawName;
  const idx = store.names();
  const stateByFips = new Map(idx.states.map((s) => [s.fips, s]));
  const stateOf = (token: string): StateEntry | undefined => idx.stateByToken.get(compactName(token));
  const countyT = (c: CountyEntry): NameTarget => ({ type: 'county', fips: c.fips, label: countyLabel(c, stateByFips) });
  // A metro is matched by the titles of the vintage's delineation. A title of another vintage
  // still finds its CBSA when that code exists in this vintage (the title changed, the code did
  // not), with a note; a CBSA that does not exist in this vintage is reported, never substituted.
  const metroNotes = new Map<string, { note: string; former: FormerName }>();
  /** CBSA → its title matched and when it held (`"Longview, WA" in ACS 2017`), for candidates. */
  const formerTitles = new Map<string, string>();
  const retiredMetros: MetroEntry[] = [];
  const metroRow = (m: MetroEntry): number => store.tables.metro.find(m.cbsa, vintage);
  const metroT = (m: MetroEntry): NameTarget => {
    if (m.validFrom <= vintage && vintage <= m.validTo) return { type: 'metro', fips: m.cbsa, label: m.title };
    const row = metroRow(m);
    const now = row >= 0 ? store.tables.metro.name![row]!.replace(/ (Metro|Micro) Area$/, '') : m.title;
    // A title the CBSA still has in this vintage is no former name (the same title in another row).
    if (row >= 0 && now !== m.title) {
      const when = `ACS ${m.validFrom === m.validTo ? m.validFrom : `${m.validFrom}–${m.validTo === 9999 ? 'present' : m.validTo}`}`;
      formerTitles.set(m.cbsa, `"${m.title}" in ${when}`);
      metroNotes.set(m.cbsa, {
        note: `"${m.title}" is the ${when} title of metro:${m.cbsa}; in ${vintage} it is "${now}".`,
        former: {
          former_name: m.title,
          from: m.validFrom,
          to: m.validTo === 9999 ? null : m.validTo,
          current_name: now,
          vintage,
          geo_key: `metro:${m.cbsa}`,
        },
      });
    }
    return { type: 'metro', fips: m.cbsa, label: now };
  };
  const metroHere = (m: MetroEntry): boolean => {
    if ((m.validFrom <= vintage && vintage <= m.validTo) || metroRow(m) >= 0) return true;
    retiredMetros.push(m);
    return false;
  };
  const tiers: NameTarget[][] = [[], []];
  const retired: CountyEntry[] = [];
  const validCounty = (c: CountyEntry): boolean => {
    if (c.validFrom <= vintage && vintage <= c.validTo) return true;
    retired.push(c);
    return false;
  };

  const cd = parseDistrictName(name);
  if (cd) {
    const st = stateOf(cd.state);
    if (st) {
      const candidates = cd.district === 0 || cd.district === 1 ? [0, 98, cd.district] : [cd.district];
      for (const n of candidates) {
        const fips = `${st.fips}${String(n).padStart(2, '0')}`;
        // Districts are matched in any vintage: a 118th-Congress district names an area whose
        // 2020 tracts exist from ACS 2020 (members.ts decides what it can expand to).
        if (store.tables.cd.find(fips) >= 0) {
          tiers[0]!.push({ type: 'cd', fips, label: `${st.abbr}-${n === 0 || n === 98 ? 'AL' : n}` });
          break;
        }
      }
      if (tiers[0]!.length === 0) {
        const count = store.tables.cd.prefixRange(st.fips);
        throw new AppError(
          'geography-not-found',
          `${st.name} has no congressional district ${cd.district} in the 118th Congress (it has ${count[1] - count[0]}).`,
          { extensions: { geo_name: name } },
        );
      }
    }
  }

  const whole = compactName(name);
  const st = idx.stateByToken.get(whole);
  if (st) tiers[0]!.push({ type: 'state', fips: st.fips, label: st.name });
  for (const m of (idx.metroExact.get(whole) ?? []).filter(metroHere)) tiers[0]!.push(metroT(m));

  const comma = name.lastIndexOf(',');
  const left = comma >= 0 ? name.slice(0, comma) : name;
  const stateTok = comma >= 0 ? stateOf(name.slice(comma + 1)) : undefined;
  const inState = (c: CountyEntry): boolean => stateTok === undefined || c.stateFips === stateTok.fips;
  if (comma < 0 || stateTok) {
    const folded = foldName(left);
    const exact = (idx.countyExact.get(folded.replace(/ /g, '')) ?? []).filter(inState);
    // "Charles City" is the bare name of Charles City County: try the words as given, then without
    // a trailing type word.
    const bareKeys = [folded.replace(/ /g, ''), stripCountyType(folded).replace(/ /g, '')];
    const bare = [...new Set(bareKeys.flatMap((k) => idx.countyBare.get(k) ?? []))].filter(inState);
    // Without a state a county name must be unique nationwide, so it is never better than tier 2.
    const exactTier = stateTok ? 0 : 1;
    for (const c of exact.filter(validCounty)) tiers[exactTier]!.push(countyT(c));
    for (const c of bare.filter((c) => !exact.includes(c)).filter(validCounty)) tiers[1]!.push(countyT(c));
  }
  const alias = COUNTY_ALIASES[foldName(left)];
  if (alias && (!stateTok || stateTok.fips === alias.slice(0, 2))) {
    for (const c of idx.counties.filter((c) => c.fips === alias).filter(validCounty)) tiers[stateTok ? 0 : 1]!.push(countyT(c));
  }
  // Metro by short name, by title without its states, or by a principal city with a state.
  // Forgiving forms only among the vintage's own titles: an old title's city is no evidence.
  const current = (m: MetroEntry): boolean => m.validFrom <= vintage && vintage <= m.validTo;
  for (const m of (idx.metroShort.get(whole) ?? []).filter(current)) tiers[1]!.push(metroT(m));
  for (const m of (idx.metroNoState.get(compactName(left)) ?? []).filter(current)) {
    if (!stateTok || m.states.includes(stateTok.fips)) tiers[1]!.push(metroT(m));
  }
  // A former title without its state ("Austin-Round Rock", the ACS 2017 title of metro:12420),
  // as the build's value files published it, of a CBSA that exists in the vintage: a reading
  // beside the current titles, with its note, so a name that is one place's title and another's
  // former one ("Longview": Longview, TX and Longview-Kelso, WA, "Longview, WA" in 2017) answers
  // with both as candidates rather than silently with one.
  for (const m of (idx.metroNoState.get(compactName(left)) ?? []).filter((m) => !current(m))) {
    if ((!stateTok || m.states.includes(stateTok.fips)) && metroHere(m)) tiers[1]!.push(metroT(m));
  }
  // "Austin metro", "Portland metro": with the metro word and no state, a metro whose first
  // principal city has the name is a reading too (else Austin, MN, a micro area titled "Austin",
  // would be the only one, and "Portland metro" would match nothing).
  if (metroWord && !stateTok) {
    const city = compactName(left);
    for (const m of idx.metros) {
      const first = m.title.slice(0, m.title.lastIndexOf(', ')).split('-')[0];
      if (current(m) && first !== undefined && compactName(first) === city) tiers[1]!.push(metroT(m));
    }
  }
  if (stateTok) {
    const city = compactName(left);
    for (const m of idx.metros) {
      if (!current(m) || !m.states.includes(stateTok.fips)) continue;
      const cities = m.title.slice(0, m.title.lastIndexOf(', ')).split('-').map(compactName);
      if (cities.includes(city)) tiers[1]!.push(metroT(m));
    }
  }

  const dedupe = (ts: NameTarget[]): NameTarget[] => [...new Map(ts.map((t) => [`${t.type}:${t.fips}`, t])).values()];
  const t0 = dedupe(tiers[0]!);
  const t1 = dedupe(tiers[1]!).filter((t) => !t0.some((u) => u.type === t.type && u.fips === t.fips));
  // Only when nothing matched more exactly: an earlier title without its state, or the start of a name.
  const t2 =
    t0.length || t1.length || cd
      ? []
      : dedupe(loosestReadings({ idx, left, stateTok, vintage, current, metroHere, metroT, countyT, inState }));
  let best: NameTarget[] = t0.length ? t0 : t1.length ? t1 : t2;
  let others: NameTarget[] = t0.length ? t1 : [];
  // Metro titles often equal a county's bare name ("Anchorage, AK"): for a county specifier the
  // county is the reading that names the requested type itself.
  const t1Counties = t1.filter((t) => t.type === 'county');
  if (specType === 'county' && t0.length && t0.every((t) => t.type === 'metro') && t1Counties.length === 1) {
    best = t1Counties;
    others = [...t0, ...t1.filter((t) => t !== t1Counties[0])];
  }
  // "Richmond, VA" is the Richmond metro's exact title, and the bare name of both Richmond city and
  // Richmond County: with several counties behind the name, no reading is safe to pick.
  if (metroWord) {
    const metros = [...best, ...others].filter((t) => t.type === 'metro');
    if (metros.length) {
      others = [...best, ...others].filter((t) => t.type !== 'metro');
      best = metros;
    }
    // "metro"/"MSA" names a metropolitan area and "micro" a micropolitan one: the only one of that
    // kind among several of the same name wins ("Austin metro" is Austin-Round Rock, not Austin, MN).
    const kind = /^micro/i.test(metroWord[1]!) ? ' Micro Area' : /^(metro|msa)/i.test(metroWord[1]!) ? ' Metro Area' : undefined;
    const ofKind = kind
      ? best.filter((t) => {
          const row = store.tables.metro.find(t.fips, vintage);
          return row >= 0 && store.tables.metro.name![row]!.endsWith(kind);
        })
      : [];
    if (best.length > 1 && ofKind.length === 1) {
      others = [...best.filter((t) => t !== ofKind[0]), ...others];
      best = ofKind;
    }
  } else if (specType !== 'metro' && t0.length && t0.every((t) => t.type === 'metro') && t1Counties.length > 1 && best === t0) {
    best = [...t0, ...t1Counties];
  }
  const sameType = best.filter((t) => t.type === specType);
  if (best.length > 1 && sameType.length === 1) {
    others = [...best.filter((t) => t !== sameType[0]), ...others];
    best = sameType;
  }
  // A county named with its type word ("St. Louis city") is unmistakable: no "could also mean".
  if (best.length === 1 && best[0]!.type === 'county' && t0.includes(best[0]!)) others = others.filter((t) => t.type !== 'county');
  if (best.length === 1) {
    const former = best[0]!.type === 'metro' ? metroNotes.get(best[0]!.fips) : undefined;
    return former ? { target: best[0]!, alternatives: others, ...former } : { target: best[0]!, alternatives: others };
  }
  if (best.length > 1) {
    throw new AppError(
      'ambiguous-geography-name',
      `"${name}" matches ${best.length} places: ${best.map((t) => describe(t, t.type === 'metro' ? formerTitles.get(t.fips) : undefined)).join('; ')}. Use one of these specifiers, or add the state ("Baltimore County, MD") or the type word ("St. Louis city, MO").`,
      {
        extensions: { geo_name: name, candidates: best.map(candidate) },
      },
    );
  }
  throw notFound({ idx, name, left, stateTok, vintage, retiredMetros, retired, stateByFips, current, inState, metroT, countyT });
}

interface NotFoundContext {
  idx: NameIndex;
  name: string;
  left: string;
  stateTok: StateEntry | undefined;
  vintage: number;
  retiredMetros: MetroEntry[];
  retired: CountyEntry[];
  stateByFips: Map<string, StateEntry>;
  current: (m: MetroEntry) => boolean;
  inState: (c: CountyEntry) => boolean;
  metroT: (m: MetroEntry) => NameTarget;
  countyT: (c: CountyEntry) => NameTarget;
}

/** No reading: a place of another vintage when the name is one, else the closest names. */
function notFound(x: NotFoundContext): AppError {
  const { idx, name, left, stateTok, vintage, retiredMetros, retired, stateByFips, current, inState, metroT, countyT } = x;
  if (retiredMetros.length) {
    const m = retiredMetros[0]!;
    const when = m.validFrom === m.validTo ? `ACS ${m.validFrom}` : `ACS ${m.validFrom}–${m.validTo === 9999 ? 'present' : m.validTo}`;
    return new AppError(
      'geography-not-found',
      `"${name}" is metro:${m.cbsa} (${m.title}), a CBSA of ${when}'s delineation that does not exist in vintage ${vintage}.`,
      {
        extensions: { geo_name: name, candidates: [candidate({ type: 'metro', fips: m.cbsa, label: m.title })] },
      },
    );
  }
  if (retired.length) {
    const r = retired[0]!;
    const last = r.validTo;
    const when = r.validFrom > vintage ? `from vintage ${r.validFrom}` : `up to vintage ${last}`;
    const ct =
      r.stateFips === '09' && vintage >= 2022
        ? ' From 2022 Connecticut is divided into 9 planning regions (county:09110…county:09190) instead of its 8 counties.'
        : '';
    return new AppError(
      'geography-not-found',
      `"${name}" is ${countyLabel(r, stateByFips)} (county:${r.fips}), which exists in ACS ${when}, not in vintage ${vintage}.${ct}`,
      {
        extensions: { geo_name: name, candidates: [candidate({ type: 'county', fips: r.fips, label: countyLabel(r, stateByFips) })] },
      },
    );
  }
  const pool: NameTarget[] = [
    ...idx.states.map((s): NameTarget => ({ type: 'state', fips: s.fips, label: s.name })),
    ...idx.counties.filter((c) => c.validFrom <= vintage && vintage <= c.validTo && inState(c)).map(countyT),
    ...idx.metros.filter(current).map(metroT),
  ];
  const near = closest(
    stateTok ? left : name,
    pool,
    (t) => (t.type === 'county' && stateTok ? t.label.slice(0, t.label.lastIndexOf(',')) : t.label),
    5,
  );
  return new AppError(
    'geography-not-found',
    `No state, county, metro or congressional district is named "${name}" (vintage ${vintage}). Closest names: ${near.map((t) => describe(t)).join('; ')}.`,
    {
      extensions: { geo_name: name, candidates: near.map(candidate) },
    },
  );
}

interface LooseContext {
  idx: NameIndex;
  left: string;
  stateTok: StateEntry | undefined;
  vintage: number;
  current: (m: MetroEntry) => boolean;
  metroHere: (m: MetroEntry) => boolean;
  metroT: (m: MetroEntry) => NameTarget;
  countyT: (c: CountyEntry) => NameTarget;
  inState: (c: CountyEntry) => boolean;
}

/** More prefix readings than this are not a usable answer: the closest names are offered instead. */
const MAX_PREFIX_READINGS = 10;

/**
 * The loosest readings, tried only when no exact or forgiving form matched: a metro's earlier
 * title without its state ("Austin-Round Rock", the ACS 2013–2017 title of metro:12420, whose
 * title the build holds from the Bureau's 2017 file) for a CBSA that exists in the vintage, and
 * a name that is the start of a metro title (states left out) or of a county name
 * ("Austin-Round" → Austin-Round Rock-San Marcos). Several readings are ambiguous: the caller
 * answers with candidates, never one of them silently.
 */
function loosestReadings(x: LooseContext): NameTarget[] {
  const typed = compactName(x.left);
  const inStateMetro = (m: MetroEntry) => !x.stateTok || m.states.includes(x.stateTok.fips);
  const former = (x.idx.metroNoState.get(typed) ?? []).filter((m) => !x.current(m) && inStateMetro(m) && x.metroHere(m));
  if (former.length) return former.map(x.metroT);
  const noState = (m: MetroEntry) => compactName(m.title.slice(0, m.title.lastIndexOf(', ')));
  const readings = [
    ...x.idx.metros.filter((m) => x.current(m) && inStateMetro(m) && prefixOf(typed, noState(m))).map(x.metroT),
    ...x.idx.counties
      .filter((c) => c.validFrom <= x.vintage && x.vintage <= c.validTo && x.inState(c) && prefixOf(typed, compactName(c.name)))
      .map(x.countyT),
  ];
  return readings.length <= MAX_PREFIX_READINGS ? readings : [];
}

/** `formerly`: the other vintage's title the name matched (`"Longview, WA" in ACS 2017`). */
function describe(t: NameTarget, formerly?: string): string {
  return `${t.label} (${t.type}:${t.fips}${formerly ? `; ${formerly}` : ''})`;
}

function candidate(t: NameTarget): { key: string; name: string; type: string } {
  return { key: `${t.type}:${t.fips}`, name: t.label, type: t.type };
}
