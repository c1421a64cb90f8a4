// The grammar of a place name, as pure functions: a congressional district's forms ("TX-35",
// "Texas 35th congressional district"), the trailing metro word ("Austin metro", "… MSA"), the
// county aliases people use, and when a typed name is a usable prefix of a place's name. The
// store (src/store/geographies/resolve-name.ts) matches the parts against the build's names.

const ORDINAL = /(\d+)(?:st|nd|rd|th)?/;
export const METRO_SUFFIX = /\s+(metro(politan)?( statistical)?( area)?|micro(politan)?( statistical)?( area)?|msa|cbsa)\s*$/i;

/** Names people use for New York City's boroughs, which are counties under other names. */
export const COUNTY_ALIASES: Record<string, string> = { brooklyn: '36047', manhattan: '36061', 'staten island': '36085' };

/** District forms → state token and district number (0 = at large), or null. */
export function parseDistrictName(name: string): { state: string; district: number } | null {
  const s = name
    .trim()
    .replace(/\(?\b1\d\dth congress\)?/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  // TX-35, Texas-35, WY-AL, New York-10
  let m = /^([A-Za-z .']+?)\s*-\s*(\d{1,2}|al|at[- ]large)$/i.exec(s);
  if (m) return { state: m[1]!, district: /^\d+$/.test(m[2]!) ? Number(m[2]) : 0 };
  const lower = s.toLowerCase();
  if (!/\b(congressional|district|cd)\b/.test(lower) && !/\bat[- ]large\b/.test(lower)) {
    m = /^([A-Za-z .']+?)\s+(\d{1,2})$/.exec(s); // "TX 35"
    return m ? { state: m[1]!, district: Number(m[2]) } : null;
  }
  const atLarge = /\bat[- ]large\b/.test(lower);
  const num = ORDINAL.exec(lower.replace(/\bcd\b/, ' '));
  if (!atLarge && !num) return null;
  const state = lower
    .replace(/'s\b/g, ' ')
    .replace(/\bat[- ]large\b/g, ' ')
    .replace(/\b(congressional|district|delegate|resident commissioner|the|of|cd)\b/g, ' ')
    .replace(ORDINAL, ' ')
    .replace(/[,()]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return state ? { state, district: atLarge ? 0 : Number(num![1]) } : null;
}

/** Shortest typed name (letters and digits, compacted) taken as the start of a longer name: "Aust" yes, "Au" no. */
export const MIN_PREFIX = 4;

/**
 * Whether `typed` (compacted: no spaces or punctuation) is the start of `name` (compacted) and
 * long enough to mean something: "austinround" starts "austinroundrocksanmarcos".
 */
export function prefixOf(typed: string, name: string): boolean {
  return typed.length >= MIN_PREFIX && name.length > typed.length && name.startsWith(typed);
}
