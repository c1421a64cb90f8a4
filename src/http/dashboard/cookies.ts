// The dashboard's cookies. Names get the __Host- prefix behind https, which makes the browser
// insist on Secure, Path=/ and no Domain (no sibling sub-domain can plant or read one).
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'cds_session';
export const LOGIN_COOKIE = 'cds_login';

export function isHttps(req: FastifyRequest): boolean {
  return req.protocol === 'https';
}

export function cookieName(req: FastifyRequest, base: string): string {
  return isHttps(req) ? `__Host-${base}` : base;
}

export function readCookies(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const header = req.headers.cookie;
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name in out) continue; // the first (most specific path) wins, as browsers order them
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      /* a malformed value is ignored like a missing one */
    }
  }
  return out;
}

/** The session cookie's value, whichever name it was set under. */
export function readSessionCookie(req: FastifyRequest): string | undefined {
  const c = readCookies(req);
  const v = c[`__Host-${SESSION_COOKIE}`] ?? c[SESSION_COOKIE];
  return v && /^[A-Za-z0-9_-]{20,100}$/.test(v) ? v : undefined;
}

export function setCookie(req: FastifyRequest, reply: FastifyReply, base: string, value: string, opts: { maxAgeSeconds: number }): void {
  const parts = [
    `${cookieName(req, base)}=${encodeURIComponent(value)}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`,
  ];
  if (isHttps(req)) parts.push('Secure');
  reply.header('Set-Cookie', parts.join('; ')); // fastify appends Set-Cookie values
}

export function clearCookie(req: FastifyRequest, reply: FastifyReply, base: string): void {
  setCookie(req, reply, base, '', { maxAgeSeconds: 0 });
}
