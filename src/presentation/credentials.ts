// Where a client puts its credential, how a 401 challenges it, and how a credential is kept out of
// every log line: shared by the HTTP API and the MCP endpoint (both served over HTTP). Reads raw
// headers and query values only, so neither transport imports the other.
import type { IncomingHttpHeaders } from 'node:http';
import { unescape } from 'node:querystring';

const REALM = 'census-data-service';
export const API_KEY_CHALLENGE = `ApiKey realm="${REALM}", header="X-API-Key"`;
export const BEARER_CHALLENGE = `Bearer realm="${REALM}"`;

/** The query parameter a key may travel in (testing only: URLs end up in proxies' logs). */
export const API_KEY_PARAMETER = 'api_key';
/** The Census Data API's own key parameter, read on its paths (CENSUS_API_PREFIX) only. */
export const CENSUS_API_KEY_PARAMETER = 'key';
/** The paths of the Census-Data-API-compatible routes, where `key=` is the key. */
export const CENSUS_API_PREFIX = '/data/';

/** The first non-blank value of a header or query parameter. */
export function firstValue(v: unknown): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
}

/** `Authorization: Bearer <token>` → the token. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const h = firstValue(headers.authorization);
  const m = h ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1];
}

/**
 * The API key of an HTTP request, read in this one place: the X-API-Key header (Node lower-cases
 * header names, so any spelling works) wins; then, on the Census Data API's paths, its `key=`;
 * then `api_key=`. `query` is the parsed query string, whose names are already percent-decoded
 * (`k%65y=` is `key`), which is why the redaction below decodes names too.
 */
export function apiKeyOf(path: string, headers: IncomingHttpHeaders, query: unknown): string | undefined {
  const header = firstValue(headers['x-api-key']);
  if (header) return header;
  const q = (query ?? {}) as Record<string, unknown>;
  if (path.startsWith(CENSUS_API_PREFIX)) {
    const key = firstValue(q[CENSUS_API_KEY_PARAMETER]);
    if (key) return key;
  }
  return firstValue(q[API_KEY_PARAMETER]);
}

export const REDACTED = '[REDACTED]';

/** Names whose value is a credential wherever they appear in a query string (compared decoded, case-blind). */
const SECRET_NAMES = new Set([API_KEY_PARAMETER, CENSUS_API_KEY_PARAMETER]);

/**
 * `name=value` pairs of a query string inside any text (a URL, a log line's JSON): the name up to
 * `=`, the value up to the next separator, quote, backslash or blank.
 */
const PAIR = /([?&;])([^=&;?#\s"\\]{1,200})=([^&;#\s"\\]*)/g;

function isSecretName(encoded: string): boolean {
  // As the query parser reads it (node:querystring: `+` is a space, %XX decoded, malformed escapes
  // left as they are), then case- and blank-blind: redacting one name too many costs nothing.
  const name = unescape(encoded.replace(/\+/g, ' ')).trim().toLowerCase();
  return SECRET_NAMES.has(name);
}

/**
 * The one redaction rule for everything the service logs (request lines, the shutdown log's
 * in-flight URLs, errors): the value of every query parameter whose decoded name is `api_key` or
 * `key` is replaced, whatever spelling authenticated it (`k%65y=`, `api%5Fkey=`, `API_KEY=`).
 */
export function redactSecrets(text: string): string;
export function redactSecrets(text: string | undefined): string | undefined;
export function redactSecrets(text: string | undefined): string | undefined {
  if (text === undefined || !text.includes('=')) return text;
  return text.replace(PAIR, (pair, sep: string, name: string) => (isSecretName(name) ? `${sep}${name}=${REDACTED}` : pair));
}
