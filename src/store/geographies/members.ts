// Which geographies of a child type belong to a parent in an ACS vintage. Containment levels use
// FIPS prefixes; metros and districts go through their crosswalks, which are defined on one
// geography edition (counties of July 2023, tracts of 2020) and are mapped here onto the edition
// of the requested vintage (Connecticut's legacy counties vs planning regions in particular).
import type { GeoType } from '../../domain/geo/keys.js';
import type { GeographyRows } from './record.js';

export interface Members {
  keys: string[];
  notes: string[];
  /** Set when the pair cannot be answered for this vintage; the reason, for the caller's error. */
  unsupported?: string;
  /** District expansions: population share of each split tract inside the district. */
  afact?: Map<string, number>;
  /**
   * When known: the row (in the child type's table) of each key, aligned with `keys`, every one
   * valid in the vintage. Lets callers build records without looking each key up again.
   */
  rows?: number[];
}

const CT_REGIONS_FIRST = 2022;
const TRACT_2020_FIRST = 2020;

function uniq(a: string[]): string[] {
  return [...new Set(a)];
}

/** Counties of a metro as they exist in `vintage` (CT planning regions ↔ legacy counties). */
function metroCountyFips(store: GeographyRows, cbsa: string, vintage: number, notes: string[]): string[] {
  const x = store.crosswalks;
  const out: string[] = [];
  for (const c of x.metroCounties.get(cbsa) ?? []) {
    if (store.tables.county.find(c, vintage) >= 0) {
      out.push(c);
      continue;
    }
    const regionTracts = x.ctRegionTracts.get(c);
    if (regionTracts) {
      const legacy = uniq(regionTracts.map((t) => t.slice(0, 5)));
      out.push(...legacy);
      notes.push(
        `Planning region ${c} is not a county in ${vintage}; the legacy Connecticut counties holding its tracts (${legacy.join(', ')}) are used instead.`,
      );
    } else {
      notes.push(`County ${c} of the July 2023 delineation does not exist in vintage ${vintage} and is left out.`);
    }
  }
  return uniq(out);
}

/** Rows of the tracts (2010 or 2020 edition, per vintage) of a metro's counties. */
function metroSubRows(store: GeographyRows, cbsa: string, childType: 'tract' | 'block_group', vintage: number, notes: string[]): number[] {
  const x = store.crosswalks;
  const L = store.tables[childType];
  const out: number[] = [];
  for (const c of x.metroCounties.get(cbsa) ?? []) {
    const regionTracts = x.ctRegionTracts.get(c);
    if (!regionTracts || vintage >= CT_REGIONS_FIRST) {
      for (const i of L.rowsWithPrefix(c, vintage)) out.push(i);
      continue;
    }
    // Before 2022 Connecticut tracts carry legacy county codes: take the region's tracts by code.
    for (const t of regionTracts) for (const i of L.rowsWithPrefix(t, vintage)) out.push(i);
    if (vintage < TRACT_2020_FIRST)
      notes.push(`Planning region ${c} mapped onto 2010 tracts by tract code; tracts renumbered in 2020 are not included.`);
  }
  return out;
}

/** A 2020-edition tract key as it is keyed in `vintage` (Connecticut moved to planning regions). */
function tractKeyIn(store: GeographyRows, tract2020: string, vintage: number): string {
  return vintage >= CT_REGIONS_FIRST ? (store.crosswalks.ct2022Of.get(tract2020) ?? tract2020) : tract2020;
}

function districtMembers(store: GeographyRows, cd: string, childType: GeoType, vintage: number): Members {
  const x = store.crosswalks;
  const notes: string[] = [
    'Districts of the 118th Congress; tracts split between districts are listed in each (afact = population share).',
  ];
  const atLarge = cd.endsWith('00') || cd.endsWith('98');
  if (vintage < TRACT_2020_FIRST) {
    if (!atLarge) {
      return {
        keys: [],
        notes,
        unsupported: `The district→tract crosswalk uses 2020 tracts, which ACS uses from vintage 2020; vintage ${vintage} uses 2010 tracts. Ask for vintage 2020 or later, or use a county or state parent.`,
      };
    }
    // A single-district state: the district is the state.
    return {
      keys: store.keysByPrefix(childType, cd.slice(0, 2), vintage),
      notes: [...notes, `${cd} is an at-large district: all of state ${cd.slice(0, 2)}.`],
    };
  }
  const shares = x.cdTracts.get(cd) ?? [];
  if (childType === 'tract') {
    const afact = new Map<string, number>();
    const keys = shares.map((s) => {
      const k = `tract:${tractKeyIn(store, s.tract, vintage)}`;
      if (s.afact < 1) afact.set(k, s.afact);
      return k;
    });
    return { keys, notes, afact };
  }
  if (childType === 'county') {
    const counties = uniq(
      shares.map((s) => {
        const t = tractKeyIn(store, s.tract, vintage);
        return t.slice(0, 5);
      }),
    );
    return {
      keys: counties.filter((c) => store.tables.county.find(c, vintage) >= 0).map((c) => `county:${c}`),
      notes: [...notes, 'Counties with at least one tract (or part of one) in the district.'],
    };
  }
  // Block groups: all block groups of unsplit tracts, and the assigned ones of split tracts.
  const L = store.tables.block_group;
  const keys: string[] = [];
  for (const s of shares) {
    if (x.isSplit(s.tract)) continue;
    for (const i of L.rowsWithPrefix(tractKeyIn(store, s.tract, vintage), vintage)) keys.push(`block_group:${L.fips[i]}`);
  }
  for (const bg of x.cdSplitBgs.get(cd) ?? []) {
    keys.push(`block_group:${tractKeyIn(store, bg.slice(0, 11), vintage)}${bg.slice(11)}`);
  }
  keys.sort();
  return { keys, notes: [...notes, 'Block groups of split tracts follow the district holding their 2020 center of population.'] };
}

export function membersOf(store: GeographyRows, parentType: GeoType, parentFips: string, childType: GeoType, vintage: number): Members {
  const prefixed = (prefix: string): Members => {
    const L = store.tables[childType];
    const rows = L.rowsWithPrefix(prefix, vintage);
    return { keys: L.keysOf(rows), notes: [], rows };
  };
  switch (parentType) {
    case 'nation':
      return prefixed('');
    case 'state':
    case 'county':
    case 'tract':
      if (childType === 'cd' && vintage < 2022) {
        return {
          keys: [],
          notes: [],
          unsupported: `Congressional districts here are those of the 118th Congress, used by ACS from vintage 2022; vintage ${vintage} is earlier.`,
        };
      }
      return prefixed(parentFips);
    case 'metro': {
      const notes = ['Metro membership of the July 2023 delineation.'];
      // The only county lists in the sources are July 2023's: a CBSA of another delineation has
      // none, and for a vintage that published its own CBSAs the list is an approximation.
      if (!store.crosswalks.metroCounties.has(parentFips)) {
        return {
          keys: [],
          notes,
          unsupported: `metro:${parentFips} is a CBSA of ACS ${vintage}'s delineation that the July 2023 delineation does not have; the sources hold no county list for it, so its counties, tracts and block groups cannot be listed.`,
        };
      }
      if (store.isPublished('metro', vintage))
        notes.push(
          `ACS ${vintage} used an earlier delineation whose county lists are not in the sources: this CBSA's counties in ${vintage} may differ from these.`,
        );
      if (childType === 'county') return { keys: metroCountyFips(store, parentFips, vintage, notes).map((c) => `county:${c}`), notes };
      if (childType === 'tract' || childType === 'block_group') {
        const rows = metroSubRows(store, parentFips, childType, vintage, notes);
        return { keys: store.tables[childType].keysOf(rows), notes, rows };
      }
      return { keys: [], notes, unsupported: `metro has no ${childType} children` };
    }
    case 'cd':
      return districtMembers(store, parentFips, childType, vintage);
    case 'block_group':
      return { keys: [], notes: [], unsupported: 'block groups have no children' };
  }
}
