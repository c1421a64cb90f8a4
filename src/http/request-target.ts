// What a request names itself by: its target and its Host, made safe before anything is routed,
// linked or streamed.
//
// * Absolute-form targets (`GET http://host:port/v1/topics`, what a client behind a forward proxy
//   sends; RFC 9112 §3.2.2) are accepted: the path and query are routed as usual, and the target's
//   authority replaces the Host header, as the RFC requires of a server.
// * The Host (or, from a trusted proxy, X-Forwarded-Host) goes into every `links` member and the
//   dashboard's `api_base_url` and `mcp_url` when BASE_URL is not set. It must be a host name or IP
//   address with an optional port, nothing else: `evil.example/x?y=` or `a@evil.example` would
//   otherwise put a path, a query or userinfo of the client's choosing into those URLs. Any other
//   value is refused with 400 (RFC 9112 §3.2: "a server MUST respond with a 400 … to any request
//   message that … contains a Host header field with an invalid field value").
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';

const ABSOLUTE_FORM = /^https?:\/\//i;

/**
 * The longest path parameter the router takes (fastify's maxParamLength, its default); a longer
 * one is 414 uri-too-long before any route runs. /openapi.json states it as every path
 * parameter's maxLength, so a client never builds a path the description allows and we refuse.
 */
export const MAX_PATH_SEGMENT = 100;

/**
 * fastify's rewriteUrl: runs before routing. An absolute-form target becomes origin-form and its
 * authority the Host; anything else is left as it came (the router answers 404 for a target that
 * is not a path).
 */
export function originFormTarget(raw: IncomingMessage): string {
  const target = raw.url ?? '/';
  if (!ABSOLUTE_FORM.test(target)) return target;
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return target; // not a URL: no route matches it, so the answer is a 404 problem
  }
  raw.headers.host = u.host;
  return u.pathname + u.search;
}

// RFC 3986 host: a bracketed IPv6 literal, or a name / IPv4 of letters, digits, '-', '.', '_'
// (the underscore occurs in real internal names); then an optional decimal port.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9_.])?)(?::\d{1,5})?$/;

/** Whether a Host value is a host[:port] and nothing more. */
export function isValidHost(host: string): boolean {
  return HOST.test(host) && !host.includes('..');
}

/** onRequest: refuse a request whose Host cannot be put into a URL as it is. */
export async function checkHost(req: FastifyRequest): Promise<void> {
  const host = req.host;
  // No Host at all (HTTP/1.0): links fall back to the address the request came in on.
  if (host === undefined || host === '') return;
  if (!isValidHost(host)) throw new AppError('bad-request', 'The Host header must be a host name or IP address with an optional port.');
}

/**
 * `scheme://host[:port]` of this request as the client addressed it: the (validated) Host, else
 * the local address of the connection.
 */
export function requestOrigin(req: FastifyRequest): string {
  let host = req.host;
  if (host === undefined || host === '' || !isValidHost(host)) {
    const addr = req.socket?.localAddress ?? '127.0.0.1';
    const port = req.socket?.localPort;
    host = `${addr.includes(':') ? `[${addr}]` : addr}${port ? `:${port}` : ''}`;
  }
  return `${req.protocol}://${host}`;
}
