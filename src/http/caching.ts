// Cache-Control for successful answers. A data build is immutable: the same request gives the same
// figures until the operator publishes a new build, so answers may be reused for a while — but
// only by the caller's own cache (`private`: they are keyed, and plans gate what they contain),
// and not for so long that a new build goes unseen for a day. Files that carry a strong ETag
// (codebook, boundaries) can be kept longer and revalidated; errors and account answers never.
export const BUILD_CACHE_CONTROL = 'private, max-age=3600';
export const FILE_CACHE_CONTROL = 'private, max-age=86400';
export const NO_STORE = 'no-store';

/** The default for an enveloped or CSV answer of a route with this kind of authentication. */
export function cacheControlFor(auth: 'api-key' | 'user-token' | 'none'): string {
  return auth === 'api-key' ? BUILD_CACHE_CONTROL : NO_STORE;
}
