// A one-line US address parser: "1016-18 WILLOW AVE, HOBOKEN, NJ 07030",
// "20 West 26th Street Apt 3 New York NY 10010". Commas help but are not required.
import { parseHouseNumber, type HouseNumber } from './house-number.js';
import { clean, streetKey, SUFFIXES } from './normalize.js';

export const STATES: Record<string, string> = {
  AL: '01',
  AK: '02',
  AZ: '04',
  AR: '05',
  CA: '06',
  CO: '08',
  CT: '09',
  DE: '10',
  DC: '11',
  FL: '12',
  GA: '13',
  HI: '15',
  ID: '16',
  IL: '17',
  IN: '18',
  IA: '19',
  KS: '20',
  KY: '21',
  LA: '22',
  ME: '23',
  MD: '24',
  MA: '25',
  MI: '26',
  MN: '27',
  MS: '28',
  MO: '29',
  MT: '30',
  NE: '31',
  NV: '32',
  NH: '33',
  NJ: '34',
  NM: '35',
  NY: '36',
  NC: '37',
  ND: '38',
  OH: '39',
  OK: '40',
  OR: '41',
  PA: '42',
  RI: '44',
  SC: '45',
  SD: '46',
  TN: '47',
  TX: '48',
  UT: '49',
  VT: '50',
  VA: '51',
  WA: '53',
  WV: '54',
  WI: '55',
  WY: '56',
  AS: '60',
  GU: '66',
  MP: '69',
  PR: '72',
  VI: '78',
};
const STATE_NAMES: Record<string, string> = {
  ALABAMA: 'AL',
  ALASKA: 'AK',
  ARIZONA: 'AZ',
  ARKANSAS: 'AR',
  CALIFORNIA: 'CA',
  COLORADO: 'CO',
  CONNECTICUT: 'CT',
  DELAWARE: 'DE',
  'DISTRICT OF COLUMBIA': 'DC',
  FLORIDA: 'FL',
  GEORGIA: 'GA',
  HAWAII: 'HI',
  IDAHO: 'ID',
  ILLINOIS: 'IL',
  INDIANA: 'IN',
  IOWA: 'IA',
  KANSAS: 'KS',
  KENTUCKY: 'KY',
  LOUISIANA: 'LA',
  MAINE: 'ME',
  MARYLAND: 'MD',
  MASSACHUSETTS: 'MA',
  MICHIGAN: 'MI',
  MINNESOTA: 'MN',
  MISSISSIPPI: 'MS',
  MISSOURI: 'MO',
  MONTANA: 'MT',
  NEBRASKA: 'NE',
  NEVADA: 'NV',
  'NEW HAMPSHIRE': 'NH',
  'NEW JERSEY': 'NJ',
  'NEW MEXICO': 'NM',
  'NEW YORK': 'NY',
  'NORTH CAROLINA': 'NC',
  'NORTH DAKOTA': 'ND',
  OHIO: 'OH',
  OKLAHOMA: 'OK',
  OREGON: 'OR',
  PENNSYLVANIA: 'PA',
  'RHODE ISLAND': 'RI',
  'SOUTH CAROLINA': 'SC',
  'SOUTH DAKOTA': 'SD',
  TENNESSEE: 'TN',
  TEXAS: 'TX',
  UTAH: 'UT',
  VERMONT: 'VT',
  VIRGINIA: 'VA',
  WASHINGTON: 'WA',
  'WEST VIRGINIA': 'WV',
  WISCONSIN: 'WI',
  WYOMING: 'WY',
  'PUERTO RICO': 'PR',
};
const UNIT_WORDS = new Set(['APT', 'APARTMENT', 'UNIT', 'STE', 'SUITE', '#', 'FL', 'FLOOR', 'RM', 'ROOM', 'BLDG']);

export interface ParsedAddress {
  number: HouseNumber;
  /** The street as written (cleaned), e.g. "WILLOW AVE". */
  street: string;
  /** Canonical key used for matching, e.g. "WILLOW AVE". */
  street_key: string;
  unit: string | null;
  city: string | null;
  /** USPS state abbreviation. */
  state: string | null;
  zip: string | null;
}

export type ParseResult = { ok: true; address: ParsedAddress } | { ok: false; reason: string };

export function parseAddress(input: string): ParseResult {
  const parts = input.split(',').map(clean).filter(Boolean);
  if (parts.length === 0) return { ok: false, reason: 'empty address' };
  let tail = parts.length > 1 ? parts.slice(1).join(' ') : '';
  let line = parts[0]!;
  let toks = (parts.length > 1 ? tail : line).split(' ').filter(Boolean);

  let zip: string | null = null;
  const last = toks[toks.length - 1];
  if (last && /^\d{5}(-\d{4})?$/.test(last) && (parts.length > 1 || toks.length > 2)) {
    zip = last.slice(0, 5);
    toks.pop();
  }
  let state: string | null = null;
  for (const n of [3, 2, 1]) {
    if (toks.length < n) continue;
    const cand = toks.slice(-n).join(' ');
    const abbr = n === 1 && STATES[cand] ? cand : STATE_NAMES[cand];
    // Without commas the state must follow a street, never be the first token.
    if (abbr && (parts.length > 1 || toks.length > n + 1)) {
      state = abbr;
      toks = toks.slice(0, -n);
      break;
    }
  }
  if (parts.length > 1) tail = toks.join(' ');
  else line = toks.join(' ');

  const words = line.split(' ').filter(Boolean);
  const number = words.length ? parseHouseNumber(words[0]!) : null;
  if (!number) return { ok: false, reason: 'no house number at the start of the address' };
  let rest = words.slice(1);
  let unit: string | null = null;
  let city: string | null = parts.length > 1 ? tail || null : null;
  const unitAt = rest.findIndex((w) => UNIT_WORDS.has(w) || w.startsWith('#'));
  if (unitAt > 0) {
    const unitToks = rest.slice(unitAt, unitAt + (rest[unitAt]!.length > 1 && rest[unitAt]!.startsWith('#') ? 1 : 2));
    unit = unitToks.join(' ').replace(/^#\s*/, '#');
    if (parts.length === 1) city = rest.slice(unitAt + unitToks.length).join(' ') || null;
    rest = rest.slice(0, unitAt);
  } else if (parts.length === 1) {
    // No commas: the street ends at the first suffix word not followed by another suffix
    // ("SPRING CREEK RD", "WILLOW AVENUE EXTENSION"), plus a post-directional; the rest is the
    // city — so "MAIN ST WHITE SULPHUR SPRINGS" is not read as a street ending in SPRINGS.
    const end0 = rest.findIndex((w, i) => i > 0 && SUFFIXES[w] !== undefined && !(rest[i + 1] && SUFFIXES[rest[i + 1]!]));
    let end = end0;
    if (end >= 0) {
      if (rest[end + 1] && /^(N|S|E|W|NE|NW|SE|SW)$/.test(rest[end + 1]!)) end += 1;
      city = rest.slice(end + 1).join(' ') || null;
      rest = rest.slice(0, end + 1);
    }
  }
  if (rest.length === 0) return { ok: false, reason: 'no street name after the house number' };
  const street = rest.join(' ');
  return { ok: true, address: { number, street, street_key: streetKey(street), unit, city, state, zip } };
}
