// Cache-Control for successful answers. A data build is immutable: the same request gives the same
// figures until the operator publishes a new build, so answers may be reused for a while — but
// only by the caller's own cache (`private`: they are keyed, and plans gate what they contain),
// and not for so long that a new build goes unseen for a day. Files that carry a strong ETag
// (codebook, boundaries) can be kept longer and revalidated; errors and account answers never.
export const BUILD_CACHE_CONTROL = 'private, max-age=3600';
export const FILE_CACHE_CONTROL = 'private, max-age=86400';
export const NO_STORE = 'no-store';

/** The request headers that carry a credential: a cached answer is only for the same one. */
const CREDENTIAL_HEADERS = ['X-API-Key', 'Authorization', 'Cookie'];

/**
 * Set Cache-Control and, for a cacheable answer, `Vary` on the credential headers: the answer
 * depends on the caller's plan, so a browser must not reuse one key's answer for another key.
 * Appends to a Vary already set (CORS adds Origin).
 */
export function setCaching(
  reply: { getHeader(name: string): unknown; header(name: string, value: string): unknown },
  cacheControl: string,
): void {
  reply.header('Cache-Control', cacheControl);
  if (cacheControl === NO_STORE) return;
  const prev = reply.getHeader('Vary');
  const have = new Set(
    String(prev ?? '')
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean),
  );
  const add = CREDENTIAL_HEADERS.filter((h) => !have.has(h.toLowerCase()));
  if (add.length) reply.header('Vary', [prev, ...add].filter(Boolean).join(', '));
}

/** The default for an enveloped or CSV answer of a route with this kind of authentication. */
export function cacheControlFor(auth: 'api-key' | 'user-token' | 'none'): string {
  return auth === 'api-key' ? BUILD_CACHE_CONTROL : NO_STORE;
}

/**
 * If-None-Match against a strong ETag, with the weak comparison of RFC 9110 §13.1.2 (`W/` prefixes
 * ignored): `*`, one tag, a list, or the header repeated. Tags are read as quoted strings, so a
 * tag holding a comma survives.
 */
export function ifNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (!header || !etag) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((t) => t.replace(/^W\//, '') === bare);
}
