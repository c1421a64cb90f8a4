// A Census Data API query (`get=`, `for=`, `in=`, `ucgid=`) read into what the service asks its
// data operation: the columns in the order asked, the level whose geography columns end each row,
// and geography specifiers of our own grammar (`county:06*`). Everything the Bureau refuses is
// refused here with its error text, before any store is read.
import { API_GROUP, API_VARIABLE } from '../census-codes.js';
import { CensusApiError, quoted, unknownVariable, unsupportedGeography } from './errors.js';
import { levelNamed, parseGeoId, type CensusApiLevel } from './levels.js';

/** The Census Data API's own limit on `get=` items. */
export const MAX_GET_ITEMS = 50;

export type AnnotationSuffix = 'E' | 'M' | 'EA' | 'MA';

export type GetItem =
  | { kind: 'NAME' }
  | { kind: 'GEO_ID' }
  /** One published column: `B19013_001EA` is variable B19013_001 (estimate code B19013_001E), suffix EA. */
  | { kind: 'code'; column: string; table: string; variable: string; suffix: AnnotationSuffix }
  | { kind: 'group'; table: string };

export interface CensusApiQuery {
  items: GetItem[];
  level: CensusApiLevel;
  /** Our geography specifiers (src/domain/geo/specifier.ts), one or more. */
  geo: string[];
  /** `ucgid`: the answer's one geography column is `ucgid` (the GEO_ID asked for), else the level's columns. */
  byUcgid: boolean;
  /** With `ucgid`: each geography key's GEO_ID as the client wrote it, echoed in the `ucgid` column. */
  ucgids?: Map<string, string>;
}

// Table ids as the Bureau writes them (src/domain/census-codes.ts).
const CODE = API_VARIABLE;
const GROUP = API_GROUP;

export type RawQuery = Record<string, string | string[] | undefined>;

function values(q: RawQuery, name: string): string[] {
  const v = q[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

export function parseGet(raw: string[]): GetItem[] {
  if (raw.length === 0 || raw.every((v) => v.trim() === '')) throw new CensusApiError('missing-get', "missing 'get' argument");
  const names = raw.flatMap((v) => v.split(','));
  if (names.length > MAX_GET_ITEMS)
    throw new CensusApiError('too-many-variables', `a query may name at most ${MAX_GET_ITEMS} variables; ${names.length} were given`);
  return names.map((name): GetItem => {
    if (name === 'NAME') return { kind: 'NAME' };
    if (name === 'GEO_ID') return { kind: 'GEO_ID' };
    const g = GROUP.exec(name);
    if (g) return { kind: 'group', table: g[1]! };
    const c = CODE.exec(name);
    if (!c) throw unknownVariable(name);
    return { kind: 'code', column: name, table: c[1]!, variable: `${c[1]}_${c[2]}`, suffix: c[3] as AnnotationSuffix };
  });
}

/** `level:codes` → the level and its codes (`*` or a comma list of the level's digits). */
function clause(text: string, what: 'for' | 'in'): { level: CensusApiLevel; codes: string[] | '*' } {
  const colon = text.lastIndexOf(':');
  const invalid = () => new CensusApiError(what === 'for' ? 'invalid-for' : 'invalid-in', `invalid '${what}' argument`);
  if (colon <= 0) throw invalid();
  const level = levelNamed(text.slice(0, colon));
  if (!level) throw unsupportedGeography();
  const rest = text.slice(colon + 1).trim();
  if (rest === '*') return { level, codes: '*' };
  const width = level.widths[level.widths.length - 1]!;
  const codes = rest.split(',');
  if (codes.some((c) => !/^\d+$/.test(c) || (level.type !== 'nation' && c.length !== width))) throw invalid();
  if (level.type === 'nation' && codes.some((c) => c !== '1')) throw invalid();
  return { level, codes };
}

/**
 * Several `in=` clauses: repeated (`in=state:06&in=county:037`) or in one value separated by a
 * space or a `+` (`in=state:06 county:037`, `in=state:06+county:037`). The query string is
 * decoded once (src/http/query-string.ts): a bare `+` arrives as a space, but an encoded one
 * (`%2B`, as R's httr and curl::curl_escape send tidycensus's and censusapi's `state:48+county:453`)
 * arrives as a literal `+`, and the Bureau's API accepts both as the separator, so a `+` is read
 * as a space here. Level names contain spaces themselves, so a clause starts where a known level
 * name is followed by `:`.
 */
function inClauses(raw: string[]): string[] {
  const out: string[] = [];
  for (const v of raw) {
    const parts = v
      .replace(/\+/g, ' ')
      .trim()
      .split(/\s+(?=(?:state|county|tract|congressional district|block group):)/);
    for (const p of parts) if (p.trim() !== '') out.push(p.trim());
  }
  return out;
}

function ucgidQuery(items: GetItem[], raw: string[]): CensusApiQuery {
  const ids = raw.flatMap((v) => v.split(',')).map((s) => s.trim());
  if (ids.length === 0 || ids.some((s) => s === '')) throw new CensusApiError('invalid-ucgid', "invalid 'ucgid' argument");
  const parsed = ids.map((id) => {
    const g = parseGeoId(id);
    if (!g) throw new CensusApiError('invalid-ucgid', `invalid 'ucgid' argument: ${quoted(id)}`);
    return g;
  });
  const level = parsed[0]!.level;
  if (parsed.some((p) => p.level !== level)) throw unsupportedGeography();
  const ucgids = new Map(parsed.map((p, i) => [`${level.type}:${p.fips}`, ids[i]!]));
  return { items, level, geo: [...ucgids.keys()], byUcgid: true, ucgids };
}

export function parseCensusApiQuery(q: RawQuery): CensusApiQuery {
  const items = parseGet(values(q, 'get'));
  const ucgid = values(q, 'ucgid');
  const forValues = values(q, 'for');
  const inValues = values(q, 'in');
  if (ucgid.length > 0) {
    if (forValues.length > 0 || inValues.length > 0) throw unsupportedGeography();
    return ucgidQuery(items, ucgid);
  }
  if (forValues.length === 0 || forValues.every((v) => v.trim() === '')) throw new CensusApiError('missing-for', "missing 'for' argument");
  if (forValues.length > 1) throw new CensusApiError('invalid-for', "invalid 'for' argument");
  const target = clause(forValues[0]!, 'for');
  const level = target.level;

  // The parents named in `in=`, each once and in the level's order with no gap.
  const given = new Map<string, string[] | '*'>();
  for (const c of inClauses(inValues)) {
    const p = clause(c, 'in');
    if (!level.parents.includes(p.level.name) || given.has(p.level.name)) throw unsupportedGeography();
    given.set(p.level.name, p.codes);
  }
  const chain: Array<string[] | '*'> = [];
  for (const name of level.parents) {
    const v = given.get(name);
    if (v === undefined) break;
    chain.push(v);
  }
  if (chain.length !== given.size || chain.length < level.requiredParents) throw unsupportedGeography();

  // Parent codes make the key's leading FIPS; a `*` parent or a missing one leaves the rest open.
  let prefixes = [''];
  let open = false;
  for (const codes of chain) {
    if (codes === '*') {
      open = true;
      continue;
    }
    if (open) throw unsupportedGeography(); // a code below a `*` cannot be a FIPS prefix
    prefixes = prefixes.flatMap((p) => codes.map((c) => p + c));
  }
  const complete = !open && chain.length === level.parents.length;
  let geo: string[];
  if (level.type === 'nation') geo = ['nation:1'];
  else if (target.codes === '*') geo = open ? [`${level.type}:*`] : prefixes.map((p) => `${level.type}:${p}*`);
  else if (complete) geo = prefixes.flatMap((p) => (target.codes as string[]).map((c) => `${level.type}:${p}${c}`));
  else throw unsupportedGeography(); // a county code needs its state: our keys are whole FIPS codes
  return { items, level, geo: [...new Set(geo)], byUcgid: false };
}
