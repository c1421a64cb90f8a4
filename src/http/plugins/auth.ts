// Authentication seam. The transport only finds the credential and hands it to the accounts
// verb (injected through buildApp's `seams`); what makes a key valid is decided there.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { API_KEY_CHALLENGE, apiKeyOf, BEARER_CHALLENGE, bearerToken, firstValue } from '../../presentation/credentials.js';
import { contextOf } from './context.js';
import { readSessionCookie } from '../dashboard/cookies.js';
import { callerOfKey } from '../../verbs/lifecycle/lifecycle.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type AuthMode = 'api-key' | 'user-token' | 'none';

export { API_KEY_CHALLENGE, BEARER_CHALLENGE };

/** The request's API key: HTTP's one reader (src/presentation/credentials.ts), for every route and unrouted answer. */
export function requestApiKey(req: FastifyRequest): string | undefined {
  return apiKeyOf(req.url, req.headers, req.query);
}

export function extractBearer(req: FastifyRequest): string | undefined {
  return bearerToken(req.headers);
}

function withChallenge(err: unknown, challenge: string): unknown {
  if (err instanceof AppError && err.status === 401 && !err.headers['WWW-Authenticate']) {
    (err.headers as Record<string, string>)['WWW-Authenticate'] = challenge;
  }
  return err;
}

export async function authenticate(req: FastifyRequest, mode: AuthMode): Promise<void> {
  if (mode === 'none') return;
  const { seams } = req.server.services;
  if (mode === 'api-key') {
    const key = requestApiKey(req);
    // The explorer page (/explore) reads data with the dashboard session instead of a key. It is
    // metered like a key; the CSRF token is required even on GET so that another site cannot
    // spend the account's quota by navigating the browser to a data URL.
    const session = key ? undefined : readSessionCookie(req);
    if (session && seams.authenticateSession && firstValue(req.headers['x-csrf-token'])) {
      req.caller = await seams.authenticateSession(
        { sessionId: session, csrfToken: firstValue(req.headers['x-csrf-token']), stateChanging: true, forData: true },
        contextOf(req),
      );
      return;
    }
    // The one key → caller step of every transport (src/verbs/lifecycle/lifecycle.ts).
    req.caller = await callerOfKey(key, {
      ctx: contextOf(req),
      verify: seams.authenticateKey,
      missing: () =>
        new AppError('missing-api-key', 'Send your API key in the X-API-Key header (or the api_key query parameter, for testing only).', {
          headers: { 'WWW-Authenticate': API_KEY_CHALLENGE },
        }),
      challenge: `${API_KEY_CHALLENGE}, error="invalid_key"`,
    });
    return;
  }
  const token = extractBearer(req);
  // The dashboard page sends its session cookie instead of a token (the token never reaches
  // browser scripts). A Bearer token, when present, wins.
  const session = token ? undefined : readSessionCookie(req);
  if (session) {
    if (!seams.authenticateSession)
      throw new AppError('dependency-unavailable', 'Sign-in verification is unavailable; retry with backoff.');
    const csrf = firstValue(req.headers['x-csrf-token']);
    req.caller = await seams.authenticateSession(
      { sessionId: session, csrfToken: csrf, stateChanging: !SAFE_METHODS.has(req.method) },
      contextOf(req),
    );
    return;
  }
  if (!token) {
    throw new AppError('invalid-token', 'Sign in and send the token as Authorization: Bearer <token>.', {
      headers: { 'WWW-Authenticate': BEARER_CHALLENGE },
    });
  }
  if (!seams.authenticateToken) throw new AppError('dependency-unavailable', 'Sign-in verification is unavailable; retry with backoff.');
  try {
    req.caller = await seams.authenticateToken(token, contextOf(req));
  } catch (e) {
    throw withChallenge(e, `${BEARER_CHALLENGE}, error="invalid_token"`);
  }
}
