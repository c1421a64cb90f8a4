// Who the caller is and what admitting them costs: the seams a transport calls with what it read
// from the request (a key, a token, a session), and their production wiring to the accounts
// verbs. A key goes from the transport (src/http/plugins/auth.ts, src/mcp/server.ts) to
// authenticateKey here, becomes the Caller on the request's context, and reaches admit through
// the request's scope (request-scope.ts), without going back through the transport. Tests may
// pass their own seams to buildApp; everything else gets these.
import type { Caller, VerbContext } from '../../context/verb-context.js';
import { admitRequest, currentRateLimitHeaders, releaseAdmission } from '../admit-request.js';
import { authenticate } from '../authenticate.js';
import { authenticateDashboard } from '../authenticate-dashboard.js';
import { authenticateSession } from '../authenticate-session.js';
import type { Admission } from './request-scope.js';

export type { Admission } from './request-scope.js';

/** Verifies a raw API key; throws AppError('invalid-api-key') for unknown, malformed or revoked keys. */
export type KeyAuthenticator = (rawKey: string, ctx: VerbContext) => Promise<Caller>;
/** Verifies a dashboard sign-in token (Authorization: Bearer); throws AppError('invalid-token'). */
export type TokenAuthenticator = (token: string, ctx: VerbContext) => Promise<Caller>;
/** Verifies a dashboard session cookie (and its CSRF token on state-changing calls). */
export type SessionAuthenticator = (
  session: { sessionId: string; csrfToken?: string; stateChanging: boolean; forData?: boolean },
  ctx: VerbContext,
) => Promise<Caller>;

export interface Seams {
  authenticateKey?: KeyAuthenticator;
  authenticateToken?: TokenAuthenticator;
  authenticateSession?: SessionAuthenticator;
  admit?: Admission;
  /** Current rate-limit headers without charging, for authenticated responses that skipped admission. */
  rateLimitHeaders?: (ctx: VerbContext) => Record<string, string>;
  /** Called when every authenticated response ends; returns a concurrency slot a verb took (idempotent). */
  release?: (ctx: VerbContext) => void;
}

export function defaultSeams(): Seams {
  return {
    authenticateKey: async (apiKey, ctx) => (await authenticate({ ctx, input: { apiKey } })).data,
    authenticateToken: async (token, ctx) => {
      const { accountId, keyId, plan } = (await authenticateDashboard({ ctx, input: { token } })).data;
      return { accountId, keyId, plan };
    },
    authenticateSession: async (input, ctx) => {
      const { accountId, keyId, plan } = (await authenticateSession({ ctx, input })).data;
      return { accountId, keyId, plan };
    },
    admit: async ({ ctx, cost, ip, instance, route }) => {
      const { headers, release, refund } = (await admitRequest({ ctx, input: { cost, instance, route, ip } })).data;
      return { headers, release, refund };
    },
    rateLimitHeaders: (ctx) => currentRateLimitHeaders(ctx),
    release: (ctx) => releaseAdmission(ctx),
  };
}
