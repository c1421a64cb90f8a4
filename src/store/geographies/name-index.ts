// Name lookups over states, counties, metros and districts: the places a name in a geography
// specifier can designate. Keys are folded names (src/domain/geo/names.ts).
import type { GeoType } from '../../domain/geo/keys.js';
import { closest, compactName, foldName, stripCountyType } from '../../domain/geo/names.js';
import type { GeographyRecord, GeographyRows } from './record.js';

export interface StateEntry {
  fips: string;
  abbr: string;
  name: string;
}
export interface CountyEntry {
  fips: string;
  /** "Travis County" (the part of the ACS name before the state). */
  name: string;
  stateFips: string;
  validFrom: number;
  validTo: number;
}
/** One metro definition row: a CBSA code may have several (titles change between delineations). */
export interface MetroEntry {
  cbsa: string;
  title: string;
  shortName: string;
  states: string[];
  validFrom: number;
  validTo: number;
}

export interface NameIndex {
  states: StateEntry[];
  stateByToken: Map<string, StateEntry>;
  counties: CountyEntry[];
  /** compact(full county name) → counties (any state). */
  countyExact: Map<string, CountyEntry[]>;
  /** compact(name without type word) → counties. */
  countyBare: Map<string, CountyEntry[]>;
  metros: MetroEntry[];
  /** compact(title), compact(title + Metro/Micro Area) → metros. */
  metroExact: Map<string, MetroEntry[]>;
  /** compact(OMB short name, "Austin, TX") → metros: a forgiving form, it often equals a county's. */
  metroShort: Map<string, MetroEntry[]>;
  /** compact(title without the state part) → metros. */
  metroNoState: Map<string, MetroEntry[]>;
}

// Postal abbreviations of the 50 states, DC and PR (the ACS universe). state.txt also carries
// them, but the store holds only names, so they are restated here.
const ABBR: Record<string, string> = {
  '01': 'AL',
  '02': 'AK',
  '04': 'AZ',
  '05': 'AR',
  '06': 'CA',
  '08': 'CO',
  '09': 'CT',
  '10': 'DE',
  '11': 'DC',
  '12': 'FL',
  '13': 'GA',
  '15': 'HI',
  '16': 'ID',
  '17': 'IL',
  '18': 'IN',
  '19': 'IA',
  '20': 'KS',
  '21': 'KY',
  '22': 'LA',
  '23': 'ME',
  '24': 'MD',
  '25': 'MA',
  '26': 'MI',
  '27': 'MN',
  '28': 'MS',
  '29': 'MO',
  '30': 'MT',
  '31': 'NE',
  '32': 'NV',
  '33': 'NH',
  '34': 'NJ',
  '35': 'NM',
  '36': 'NY',
  '37': 'NC',
  '38': 'ND',
  '39': 'OH',
  '40': 'OK',
  '41': 'OR',
  '42': 'PA',
  '44': 'RI',
  '45': 'SC',
  '46': 'SD',
  '47': 'TN',
  '48': 'TX',
  '49': 'UT',
  '50': 'VT',
  '51': 'VA',
  '53': 'WA',
  '54': 'WV',
  '55': 'WI',
  '56': 'WY',
  '72': 'PR',
};

export function stateAbbr(fips: string): string {
  return ABBR[fips] ?? fips;
}

function add<T>(m: Map<string, T[]>, k: string, v: T): void {
  const a = m.get(k);
  if (!a) m.set(k, [v]);
  else if (!a.includes(v)) a.push(v);
}

export function buildNameIndex(store: GeographyRows): NameIndex {
  const S = store.tables.state;
  const states: StateEntry[] = [];
  const stateByToken = new Map<string, StateEntry>();
  for (let i = 0; i < S.size; i++) {
    const e = { fips: S.fips[i]!, abbr: stateAbbr(S.fips[i]!), name: S.name![i]! };
    states.push(e);
    stateByToken.set(compactName(e.name), e);
    stateByToken.set(compactName(e.abbr), e);
  }
  stateByToken.set('washingtondc', stateByToken.get('dc')!);

  const C = store.tables.county;
  const counties: CountyEntry[] = [];
  const countyExact = new Map<string, CountyEntry[]>();
  const countyBare = new Map<string, CountyEntry[]>();
  for (let i = 0; i < C.size; i++) {
    const full = C.name![i]!;
    const e: CountyEntry = {
      fips: C.fips[i]!,
      name: full.slice(0, full.lastIndexOf(', ')),
      stateFips: C.fips[i]!.slice(0, 2),
      validFrom: C.from[i]!,
      validTo: C.to[i]!,
    };
    counties.push(e);
    const folded = foldName(e.name);
    add(countyExact, folded.replace(/ /g, ''), e);
    add(countyBare, stripCountyType(folded).replace(/ /g, ''), e);
  }

  const M = store.tables.metro;
  const metros: MetroEntry[] = [];
  const metroExact = new Map<string, MetroEntry[]>();
  const metroNoState = new Map<string, MetroEntry[]>();
  const metroShort = new Map<string, MetroEntry[]>();
  for (let i = 0; i < M.size; i++) {
    const name = M.name![i]!;
    const title = name.replace(/ (Metro|Micro) Area$/, '');
    const e: MetroEntry = {
      cbsa: M.fips[i]!,
      title,
      shortName: M.shortName![i]!,
      states: M.states![i]!,
      validFrom: M.from[i]!,
      validTo: M.to[i]!,
    };
    metros.push(e);
    for (const form of [
      title,
      name,
      `${title} Metropolitan Statistical Area`,
      `${title} Micropolitan Statistical Area`,
      `${title} MSA`,
      `${title} metro`,
    ]) {
      add(metroExact, compactName(form), e);
    }
    add(metroShort, compactName(e.shortName), e);
    add(metroNoState, compactName(title.slice(0, title.lastIndexOf(', '))), e);
  }
  return { states, stateByToken, counties, countyExact, countyBare, metros, metroExact, metroShort, metroNoState };
}

export interface NameSearch {
  /** Names containing every word of the query: exact, then prefix, then the rest; larger places first. */
  matches: GeographyRecord[];
  /** Only when nothing matched: a few closest names, to suggest (never to pass off as results). */
  closest: GeographyRecord[];
}

/** Name search for the browse operation. */
export function searchNames(store: GeographyRows, query: string, opts: { type?: GeoType; limit: number; vintage?: number }): NameSearch {
  const types: GeoType[] = opts.type ? [opts.type] : ['nation', 'state', 'county', 'metro', 'cd'];
  const q = foldName(query);
  if (!q) return { matches: [], closest: [] };
  const words = q.split(' ');
  const scored: { rec: GeographyRecord; score: number }[] = [];
  for (const type of types) {
    const L = store.tables[type];
    if (!L.name) continue; // tract and block group names are generated from their county
    for (let i = 0; i < L.size; i++) {
      // Without a vintage each key appears once, in its latest definition.
      if (opts.vintage !== undefined ? !L.validAt(i, opts.vintage) : L.find(L.fips[i]!) !== i) continue;
      const name = foldName(L.name[i]!);
      const short = L.shortName ? foldName(L.shortName[i]!) : '';
      let score: number;
      if (name === q || short === q) score = 0;
      else if (name.startsWith(q) || short.startsWith(q)) score = 1;
      else if (words.every((w) => name.includes(w) || short.includes(w))) score = 2;
      else continue;
      scored.push({ rec: store.record(type, i), score });
    }
  }
  if (scored.length === 0) {
    // Nothing contains the words: suggest the closest names.
    const pool: GeographyRecord[] = [];
    for (const type of types) {
      const L = store.tables[type];
      if (!L.name) continue;
      for (let i = 0; i < L.size; i++) if (opts.vintage === undefined || L.validAt(i, opts.vintage)) pool.push(store.record(type, i));
    }
    return { matches: [], closest: closest(query, pool, (r) => r.name, 5) };
  }
  scored.sort((a, b) => a.score - b.score || (b.rec.population ?? 0) - (a.rec.population ?? 0));
  return { matches: scored.slice(0, opts.limit).map((s) => s.rec), closest: [] };
}
