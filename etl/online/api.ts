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

export function dataUrl(ep: ApiEndpoint, item: ApiItem, get: string): string {
  const q = [`get=${enc(get)}`, `for=${enc(GEOGRAPHY[item.level].forClause)}`, keyParam(ep)].filter(Boolean);
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

type DataAnswer = { kind: 'table'; table: ApiTable; raw: Buffer } | { kind: 'nodata' } | { kind: 'too-wide' };

function acceptData(geo: string[], expected: string[] | undefined, canBeTooWide: boolean) {
  return (res: Response200): Attempt<DataAnswer> => {
    // 204: the query is valid but no geography has data (e.g. a table not published at a level).
    if (res.status === 204) return { ok: true, value: { kind: 'nodata' } };
    if (res.status === 400 && canBeTooWide && /limited to \d+ variables/i.test(res.body.toString('utf8')))
      return { ok: true, value: { kind: 'too-wide' } };
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
  const body = (await getJson(url, retry)) as { variables?: Record<string, { predicateOnly?: boolean }> } | null;
  const vars = body?.variables;
  if (!vars || typeof vars !== 'object') throw new BodyError(`groups/${item.group}.json has no "variables" object`);
  const geo = GEOGRAPHY[item.level].columns;
  return Object.entries(vars)
    .filter(([name, v]) => !v?.predicateOnly && !['for', 'in', 'ucgid', ...geo].includes(name))
    .map(([name]) => name);
}

/**
 * The body to store for one item, or null when the API has no data for it. Raw bytes when one
 * request answered; the merged body in the API's layout when chunks had to be joined.
 */
export async function fetchApiBody(ep: ApiEndpoint, item: ApiItem, retry: RetryOptions, limit = VARIABLE_LIMIT): Promise<Buffer | null> {
  const geo = GEOGRAPHY[item.level].columns;
  let variables = item.variables;
  if (!variables) {
    const answer = await getWithRetry(dataUrl(ep, item, `group(${item.group})`), acceptData(geo, undefined, true), retry);
    if (answer.kind === 'nodata') return null;
    if (answer.kind === 'table') return answer.raw;
    retry.log.info(`${item.group} ${item.vintage} ${item.dataset} ${item.level}: group too wide for one request, fetching by variable`);
    variables = await groupVariables(ep, item, retry);
  }
  const parts = chunk(variables, limit);
  const tables: ApiTable[] = [];
  let raw: Buffer | undefined;
  for (const part of parts) {
    const answer = await getWithRetry(dataUrl(ep, item, part.join(',')), acceptData(geo, part, false), retry);
    if (answer.kind === 'nodata') {
      if (tables.length > 0) throw new BodyError('one chunk had data and another none');
      if (parts.length === 1) return null;
      continue;
    }
    if (answer.kind !== 'table') throw new BodyError('unexpected answer');
    tables.push(answer.table);
    raw = answer.raw;
  }
  if (tables.length === 0) return null;
  if (tables.length !== parts.length) throw new BodyError('one chunk had data and another none');
  if (parts.length === 1 && raw) return raw;
  return Buffer.from(serializeApiBody(mergeByGeography(tables, geo)), 'utf8');
}
