// DNS-rebinding protection for /mcp. A page on an attacker's domain can re-point that domain at a
// server the victim's browser can reach (a local or intranet deployment) and then POST to it as
// "same origin". Two checks stop that: the Host header must name this service, and a browser's
// Origin header, when present, must be an origin we trust. Non-browser clients (agents, the SDK
// client) send no Origin and pass the second check.
//
// We validate in the route rather than through the SDK transport's allowedHosts option so the
// refusal is the service's usual 403 problem+json and the host list can match on host name
// alone (the SDK compares the whole Host header, port included).
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

export interface OriginPolicy {
  check(headers: { host?: string | string[]; origin?: string | string[] }): void;
}

function parseHost(value: string): { hostname: string; host: string } | null {
  try {
    const u = new URL(`http://${value}`);
    // Reject anything that is not a bare host[:port] (userinfo, path) rather than guess.
    if (u.username || u.password || u.pathname !== '/' || u.search || u.hash) return null;
    // Only the canonical spelling counts: the URL parser turns `2130706433`, `0x7f.1` or `127.1`
    // into 127.0.0.1 and would let them through the allow-list. The host as sent (port removed)
    // must equal its canonical form.
    const sent = value.trim().toLowerCase().replace(/:\d*$/, '');
    if (sent !== u.hostname.toLowerCase()) return null;
    return { hostname: u.hostname.toLowerCase(), host: u.host.toLowerCase() };
  } catch {
    return null;
  }
}

/** The origin of an Origin header value and its host name; null for opaque or malformed origins. */
function originOf(url: string): { origin: string; hostname: string } | null {
  try {
    const u = new URL(url);
    // file:, data: and sandboxed pages have an opaque origin (serialized "null"): never trusted.
    if (u.origin === 'null' || !/^https?:$/.test(u.protocol)) return null;
    return { origin: u.origin.toLowerCase(), hostname: u.hostname.toLowerCase() };
  } catch {
    return null;
  }
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export function originPolicy(config: Pick<Config, 'MCP_ALLOWED_HOSTS' | 'CORS_ORIGINS' | 'BASE_URL'>): OriginPolicy {
  const base = config.BASE_URL ? new URL(config.BASE_URL) : null;
  const entries = [...LOOPBACK, ...(config.MCP_ALLOWED_HOSTS ?? []), ...(base ? [base.host] : [])]
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  // An entry with a port must match host:port exactly; one without matches any port.
  const withPort = new Set(entries.filter((e) => /:\d+$/.test(e)));
  const anyPort = new Set(entries.filter((e) => !/:\d+$/.test(e)));
  const origins = new Set(
    [...(config.CORS_ORIGINS ?? []), ...(base ? [base.origin] : [])].map((o) => originOf(o)?.origin).filter((o): o is string => !!o),
  );

  return {
    check(headers) {
      const rawHost = first(headers.host);
      const host = rawHost ? parseHost(rawHost) : null;
      if (!host || !(anyPort.has(host.hostname) || withPort.has(host.host))) {
        throw new AppError(
          'forbidden',
          `The MCP endpoint does not answer to host "${(rawHost ?? '').slice(0, 100)}". Operators: add it to MCP_ALLOWED_HOSTS (or set BASE_URL).`,
        );
      }
      const rawOrigin = first(headers.origin);
      if (rawOrigin === undefined) return;
      const origin = originOf(rawOrigin);
      const loopbackOrigin = origin !== null && LOOPBACK.includes(origin.hostname);
      if (origin === null || !(origins.has(origin.origin) || loopbackOrigin)) {
        throw new AppError(
          'forbidden',
          `Browser requests from origin "${rawOrigin.slice(0, 100)}" are not allowed on the MCP endpoint. Operators: add the origin to CORS_ORIGINS.`,
        );
      }
    },
  };
}
