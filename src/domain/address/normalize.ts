// USPS-style normalisation (Publication 28 abbreviations) so that "West 26th Street",
// "W 26 ST" and "w. 26th st" compare equal. Applied to both the indexed sources and the queries.

export const DIRECTIONALS: Record<string, string> = {
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
  NORTHEAST: 'NE',
  NORTHWEST: 'NW',
  SOUTHEAST: 'SE',
  SOUTHWEST: 'SW',
  N: 'N',
  S: 'S',
  E: 'E',
  W: 'W',
  NE: 'NE',
  NW: 'NW',
  SE: 'SE',
  SW: 'SW',
};

// The common street suffixes and their USPS abbreviations (a subset of Publication 28 appendix C1).
export const SUFFIXES: Record<string, string> = {
  AVENUE: 'AVE',
  AVE: 'AVE',
  AV: 'AVE',
  AVEN: 'AVE',
  STREET: 'ST',
  ST: 'ST',
  STR: 'ST',
  ROAD: 'RD',
  RD: 'RD',
  DRIVE: 'DR',
  DR: 'DR',
  LANE: 'LN',
  LN: 'LN',
  BOULEVARD: 'BLVD',
  BLVD: 'BLVD',
  COURT: 'CT',
  CT: 'CT',
  PLACE: 'PL',
  PL: 'PL',
  TERRACE: 'TER',
  TER: 'TER',
  HIGHWAY: 'HWY',
  HWY: 'HWY',
  PARKWAY: 'PKWY',
  PKWY: 'PKWY',
  CIRCLE: 'CIR',
  CIR: 'CIR',
  WAY: 'WAY',
  TRAIL: 'TRL',
  TRL: 'TRL',
  LOOP: 'LOOP',
  SQUARE: 'SQ',
  SQ: 'SQ',
  CREEK: 'CRK',
  CRK: 'CRK',
  EXTENSION: 'EXT',
  EXT: 'EXT',
  ALLEY: 'ALY',
  ALY: 'ALY',
  PIKE: 'PIKE',
  ROW: 'ROW',
  RUN: 'RUN',
  PATH: 'PATH',
  CROSSING: 'XING',
  XING: 'XING',
  GULCH: 'GLCH',
  GLCH: 'GLCH',
  PASS: 'PASS',
  CANYON: 'CYN',
  CYN: 'CYN',
  RIDGE: 'RDG',
  RDG: 'RDG',
  SPRINGS: 'SPGS',
  SPGS: 'SPGS',
  FORK: 'FRK',
  FRK: 'FRK',
};

const ORDINAL = /^(\d+)(ST|ND|RD|TH)$/;

/** Upper-case, strip punctuation except `-` and `#`, collapse blanks. */
export function clean(s: string): string {
  return s
    .toUpperCase()
    .replace(/[.,;]/g, ' ')
    .replace(/[^A-Z0-9#\- /&']/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** One street-name token in canonical form; suffixes only count in last position. */
function token(t: string, index: number, count: number): string {
  const ord = ORDINAL.exec(t);
  if (ord) return ord[1]!;
  if ((index === 0 || index === count - 1) && count > 1 && DIRECTIONALS[t]) return DIRECTIONALS[t]!;
  if (index === count - 1 && count > 1 && SUFFIXES[t]) return SUFFIXES[t]!;
  return t;
}

/** Canonical street key, e.g. "West 26th Street" → "W 26 ST", "Willow Avenue" → "WILLOW AVE". */
export function streetKey(street: string): string {
  const toks = clean(street).split(' ').filter(Boolean);
  const out = toks.map((t, i) => token(t, i, toks.length));
  // A suffix followed by a post-directional ("ELM STREET NORTH") is still a suffix.
  if (out.length > 2 && DIRECTIONALS[toks[toks.length - 1]!] && SUFFIXES[toks[toks.length - 2]!]) {
    out[out.length - 2] = SUFFIXES[toks[toks.length - 2]!]!;
  }
  return out.join(' ');
}
