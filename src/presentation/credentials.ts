// Where a client puts its credential and how a 401 challenges it, shared by the HTTP API and the
// MCP endpoint (both served over HTTP). Reads raw headers only, so neither transport imports the other.
import type { IncomingHttpHeaders } from 'node:http';

const REALM = 'census-data-service';
export const API_KEY_CHALLENGE = `ApiKey realm="${REALM}", header="X-API-Key"`;
export const BEARER_CHALLENGE = `Bearer realm="${REALM}"`;

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
