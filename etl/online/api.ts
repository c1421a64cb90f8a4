// Requests to the Census Data API for one cache file, and the fallback for groups the server
// will not return whole: the group's variable list from groups/{GROUP}.json, requested in
// chunks of at most 50 (the API's `get` limit) and joined on the geography columns.
import { BodyError, chunk, mergeByGeography, validateApiBody, serializeApiBody, type ApiTable } from './apibody.js';
import { getWithRetry, snippet, type Attempt, type Response200, type RetryOptions } from './http.js';
import { GEOGRAPHY, type ApiItem, type Dataset } from './plan.js';
import { datasetSpec } from '../../src/domain/datasets.js';

export const VARIABLE_LIMIT = 50;

export interface ApiEndpoint {
  apiBase: string;
  apiKey?: string;
}

/** Keep the separators of `get`/`for` readable in URLs and logs; the API accepts both forms. */
const enc = (s: string) => encodeURIComponent(s).replace(/%2C/g, ',').replace(/%3A/g, ':').replace(/%2F/g, '/');

const keyParam = (ep: ApiEndpoint) => (ep.apiKey ? `key=${encodeURIComponent(ep.apiKey)}` : '');

export function datasetUrl(ep: ApiEndpoint, vintage: number, dataset: Dataset, rest: string): string {
  return `${ep.apiBase.replace(/\/+$/, '')}/data/${vintage}/${datasetSpec(dataset).bureauPath}${rest}`;
}

/** `in=` clauses of one request: none, a state, or a state and a county (the API's repeated `in=`). */
export type Scope = Array<[level: 'state' | 'county', code: string]>;

export function dataUrl(ep: ApiEndpoint, item: Pick<ApiItem, 'vintage' | 'dataset' | 'level'>, get: string, scope: Scope = []): string {
  const q = [
    `get=${enc(get)}`,
    `for=${enc(GEOGRAPHY[item.level].forClause)}`,
    ...scope.map(([l, c]) => `in=${l}:${c}`),
    keyParam(ep),
  ].filter(Boolean);
  return datasetUrl(ep, item.vintage, item.dataset, `?${q.join('&')}`);
}

export function metaUrl(ep: ApiEndpoint, vintage: number, dataset: Dataset, file: string): string {
  const k = keyParam(ep);
  return datasetUrl(ep, vintage, dataset, `/${file}${k ? `?${k}` : ''}`);
}

/** The API answers a bad key with an HTML page and status 200; no retry can fix that. */
export class FatalFetchError extends Error {
  override name = 'FatalFetchError';
}

/**
 * The API answers a missing or bad key with an HTML page and status 200 (after a redirect), and
 * no retry can fix that: recognise those pages so the run stops with a message that says so.
 */
export function keyPage(res: Response200): string | undefined {
  const head = res.body.subarray(0, 8192).toString('utf8');
  if (!res.headers.has('x-datawebapi-keyerror') && !/^\s*</.test(head)) return undefined;
  const text = head.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
  if (/invalid key|not valid/i.test(text) || res.headers.has('x-datawebapi-keyerror'))
    return 'the Census Data API rejected the API key ("Invalid Key" page); check --census-api-key';
  if (/missing key|valid key must be included/i.test(text))
    return 'the Census Data API requires an API key ("Missing Key" page); pass --census-api-key';
  return undefined;
}

type DataAnswer =
  { kind: 'table'; table: ApiTable; raw: Buffer } | { kind: 'nodata' } | { kind: 'too-wide' } | { kind: 'unknown-variable' };

function acceptData(geo: string[], expected: string[] | undefined, canBeTooWide: boolean) {
  return (res: Response200): Attempt<DataAnswer> => {
    // 204: the query is valid but no geography has data (e.g. a table not published at a level).
    if (res.status === 204) return { ok: true, value: { kind: 'nodata' } };
    if (res.status === 400 && canBeTooWide && /limited to \d+ variables/i.test(res.body.toString('utf8')))
      return { ok: true, value: { kind: 'too-wide' } };
    // A variable this vintage does not publish (the catalogue spans vintages): the caller narrows the list.
    if (res.status === 400 && expected && /unknown variable/i.test(res.body.toString('utf8')))
      return { ok: true, value: { kind: 'unknown-variable' } };
    if (res.status !== 200) return { ok: false, retry: false, reason: `HTTP ${res.status}${snippet(res.body)}` };
    const keyProblem = keyPage(res);
    if (keyProblem) throw new FatalFetchError(keyProblem);
    try {
      return { ok: true, value: { kind: 'table', table: validateApiBody(res.body, geo, expected), raw: res.body } };
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      // A gateway's error page or a cut-off body is usually transient: worth the bounded retries.
      return { ok: false, retry: true, reason: `malformed body: ${err.message}` };
    }
  };
}

function acceptJson(res: Response200): Attempt<unknown> {
  if (res.status !== 200) return { ok: false, retry: false, reason: `HTTP ${res.status}${snippet(res.body)}` };
  const keyProblem = keyPage(res);
  if (keyProblem) throw new FatalFetchError(keyProblem);
  try {
    return { ok: true, value: JSON.parse(res.body.toString('utf8')) };
  } catch {
    return { ok: false, retry: true, reason: `malformed body: not JSON${snippet(res.body)}` };
  }
}

export async function getJson(url: string, retry: RetryOptions): Promise<unknown> {
  return getWithRetry(url, acceptJson, retry);
}

/** Names of the variables of a group, in the order of groups/{GROUP}.json. */
export async function groupVariables(ep: ApiEndpoint, item: ApiItem, retry: RetryOptions): Promise<string[]> {
  const url = metaUrl(ep, item.vintage, item.dataset, `groups/${item.group}.json`);
  const body = (await getJson(url, retry)) as { variables?: Record<string, { predicateOnly?: boolean; group?: string }> } | null;
  const vars = body?.variables;
  if (!vars || typeof vars !== 'object') throw new BodyError(`groups/${item.group}.json has no "variables" object`);
  const geo = GEOGRAPHY[item.level].columns;
  // The Bureau marks margins and annotations `predicateOnly` (not usable in a predicate); they can
  // still be asked for by name, so the group's own variables are kept whatever that flag says.
  return Object.entries(vars)
    .filter(
      ([name, v]) =>
        (name === 'NAME' || name === 'GEO_ID' || v?.group === item.group || !v?.predicateOnly) &&
        !['for', 'in', 'ucgid', ...geo].includes(name),
    )
    .map(([name]) => name);
}

/** The counties of a state in a vintage, from the API itself (`get=NAME&for=county:*&in=state:SS`). */
export async function countiesOf(ep: ApiEndpoint, item: ApiItem, state: string, retry: RetryOptions): Promise<string[]> {
  const url = dataUrl(ep, { ...item, level: 'county' }, 'NAME', [['state', state]]);
  const answer = await getWithRetry(url, acceptData(GEOGRAPHY.county.columns, ['NAME'], false), retry);
  if (answer.kind !== 'table') return [];
  return answer.table.rows.map((r) => r[r.length - 1]!).sort();
}

/** The requests' scopes for an item: the nation, each state, or each county of each state. */
async function scopesOf(ep: ApiEndpoint, item: ApiItem, retry: RetryOptions): Promise<Scope[]> {
  const { scope } = GEOGRAPHY[item.level];
  if (scope === 'none') return [[]];
  if (!item.states?.length) throw new BodyError(`the level ${item.level} is requested per state: the plan item names no states`);
  if (scope === 'state') return item.states.map((s) => [['state', s]]);
  const out: Scope[] = [];
  for (const s of item.states)
    for (const c of await countiesOf(ep, item, s, retry))
      out.push([
        ['state', s],
        ['county', c],
      ]);
  return out;
}

/** One scope's body: the whole group in one request, or the variables in chunks of 50, joined. */
async function fetchScope(
  ep: ApiEndpoint,
  item: ApiItem,
  scope: Scope,
  retry: RetryOptions,
  limit: number,
  variables: { list?: string[]; narrowed?: boolean },
): Promise<{ table: ApiTable; raw?: Buffer } | null> {
  const geo = GEOGRAPHY[item.level].columns;
  if (!variables.list) {
    const answer = await getWithRetry(dataUrl(ep, item, `group(${item.group})`, scope), acceptData(geo, undefined, true), retry);
    if (answer.kind === 'nodata') return null;
    if (answer.kind === 'table') return answer;
    retry.log.info(`${item.group} ${item.vintage} ${item.dataset} ${item.level}: group too wide for one request, fetching by variable`);
    variables.list = await groupVariables(ep, item, retry);
  }
  const parts = chunk(variables.list, limit);
  const tables: ApiTable[] = [];
  let raw: Buffer | undefined;
  for (const part of parts) {
    const answer = await getWithRetry(dataUrl(ep, item, part.join(','), scope), acceptData(geo, part, false), retry);
    if (answer.kind === 'nodata') {
      if (tables.length > 0) throw new BodyError('one chunk had data and another none');
      if (parts.length === 1) return null;
      continue;
    }
    if (answer.kind === 'unknown-variable') {
      if (variables.narrowed) throw new BodyError(`unknown variable after narrowing the list to groups/${item.group}.json`);
      // Keep the variables the vintage's groups/{GROUP}.json lists (NAME always), once, and start over.
      const published = new Set(await groupVariables(ep, item, retry).catch(() => [] as string[]));
      const kept = variables.list.filter((v) => v === 'NAME' || v === 'GEO_ID' || published.has(v));
      retry.log.info(
        `${item.group} ${item.vintage} ${item.dataset}: ${variables.list.length - kept.length} variable(s) not published in this vintage, left out`,
      );
      variables.narrowed = true;
      variables.list = kept;
      if (!kept.some((v) => v !== 'NAME' && v !== 'GEO_ID')) return null;
      return fetchScope(ep, item, scope, retry, limit, variables);
    }
    if (answer.kind !== 'table') throw new BodyError('unexpected answer');
    tables.push(answer.table);
    raw = answer.raw;
  }
  if (tables.length === 0) return null;
  if (tables.length !== parts.length) throw new BodyError('one chunk had data and another none');
  if (parts.length === 1) return { table: tables[0]!, raw };
  return { table: mergeByGeography(tables, geo) };
}

/**
 * The body to store for one item (or for one state of a tract / block-group item: `item.states`
 * = [that state]), or null when the API has no data for it. Raw bytes when one request answered;
 * otherwise the body in the API's layout, chunks joined on the geography and the scopes' rows
 * (counties) one after another under their common header.
 */
export async function fetchApiBody(ep: ApiEndpoint, item: ApiItem, retry: RetryOptions, limit = VARIABLE_LIMIT): Promise<Buffer | null> {
  const variables: { list?: string[]; narrowed?: boolean } = { list: item.variables };
  const found: Array<{ table: ApiTable; raw?: Buffer }> = [];
  for (const scope of await scopesOf(ep, item, retry)) {
    const got = await fetchScope(ep, item, scope, retry, limit, variables);
    if (got) found.push(got);
  }
  if (found.length === 0) return null;
  if (found.length === 1 && found[0]!.raw) return found[0]!.raw;
  return Buffer.from(serializeApiBody(joinRows(found.map((f) => f.table))), 'utf8');
}

/** Tables of disjoint geographies (states, counties) under one header: their rows in order. */
export function joinRows(tables: ApiTable[]): ApiTable {
  const header = tables[0]!.header;
  for (const t of tables)
    if (t.header.join('\u0001') !== header.join('\u0001'))
      throw new BodyError(`two scopes answered different columns (${header.join(',')} and ${t.header.join(',')})`);
  return { header, rows: tables.flatMap((t) => t.rows) };
}
