// The developer dashboard at /dashboard (docs/dashboard.md): the built single-page front end, the
// OpenID Connect sign-in (authorization code + PKCE) that turns into a server-side session
// cookie, and — in development — the in-process identity provider. Everything the pages do goes
// through the /v1/account endpoints and their verbs; this file only signs people in and out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { signInOf } from '../../config.js';
import { AppError } from '../../domain/errors.js';
import { PLANS, PLAN_IDS, isPurchasable } from '../../domain/plans.js';
import { authenticateSession } from '../../verbs/authenticate-session.js';
import { dashboardSignIn } from '../../verbs/dashboard-sign-in.js';
import { dashboardSignOut } from '../../verbs/dashboard-sign-out.js';
import { ifNoneMatch } from '../caching.js';
import { contextOf } from '../plugins/context.js';
import { AssetStore } from './assets.js';
import { LOGIN_COOKIE, SESSION_COOKIE, clearCookie, readCookies, readSessionCookie, setCookie } from './cookies.js';
import { createDevProvider, registerDevIdp } from './dev-idp.js';
import { escapeHtml, page } from './html.js';
import { DashboardOidc, type LoginTransaction } from './oidc-client.js';
import { requestOrigin } from '../request-target.js';

/** Scripts and styles come only from this origin; nothing may frame the dashboard. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('X-Frame-Options', 'DENY');
}

function htmlPage(
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
  link = '<a href="/dashboard">Back to the dashboard</a>',
) {
  return securityHeaders(reply)
    .code(status)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(page(title, `<main class="card"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p>${link}</p></main>`));
}

/** Public origin of this deployment: BASE_URL, else what the request says (honouring TRUST_PROXY). */
function originOf(req: FastifyRequest): string {
  const base = req.server.services.config.BASE_URL;
  return base ? new URL(base).origin : requestOrigin(req);
}

/**
 * Where sign-in may return to: a path of this server's own pages (the dashboard, the explorer with
 * its view, a profile), never another origin (no open redirect): no scheme, no `//host`, no
 * backslash, and the parsed URL must stay on this origin.
 */
export function safeNext(v: unknown): string {
  if (typeof v !== 'string' || v.length > 2000 || !v.startsWith('/') || v.startsWith('//') || /[\\\s]/.test(v)) return '/dashboard';
  let u: URL;
  try {
    u = new URL(v, 'http://this.invalid');
  } catch {
    return '/dashboard';
  }
  if (u.origin !== 'http://this.invalid' || !/^\/(dashboard|explore|profile)(\/|$)/.test(u.pathname)) return '/dashboard';
  return `${u.pathname}${u.search}${u.hash}`;
}

function readTransaction(req: FastifyRequest): LoginTransaction | undefined {
  const c = readCookies(req);
  const raw = c[`__Host-${LOGIN_COOKIE}`] ?? c[LOGIN_COOKIE];
  if (!raw) return undefined;
  try {
    const tx = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as LoginTransaction;
    return typeof tx.state === 'string' && typeof tx.verifier === 'string' && typeof tx.nonce === 'string' ? tx : undefined;
  } catch {
    return undefined;
  }
}

function plansPayload() {
  return PLAN_IDS.map((id) => {
    const p = PLANS[id];
    return { id: p.id, name: p.name, rank: p.rank, price: p.price, purchasable: isPurchasable(p), limits: p.limits, features: p.features };
  });
}

export async function registerDashboard(app: FastifyInstance): Promise<void> {
  const { config } = app.services;
  const signIn = signInOf(config);
  const oidc = signIn.mode === 'none' ? undefined : new DashboardOidc(signIn);
  if (signIn.mode === 'dev') {
    app.log.warn(
      { issuer: signIn.issuer },
      'DEV_IDP is on: the development identity provider lets anyone sign in to the dashboard as any e-mail address. Configure OIDC_ISSUER for a real provider before exposing this server.',
    );
    registerDevIdp(app, await createDevProvider(config, signIn.issuer, signIn.clientId));
  }
  const assets = new AssetStore();
  const sessionTtlSeconds = config.DASHBOARD_SESSION_HOURS * 3600;

  app.get('/dashboard/session', { schema: { hide: true } }, async (req, reply) => {
    reply.header('Cache-Control', 'no-store');
    const origin = originOf(req);
    const common = {
      sign_in: signIn.mode,
      invite_required: config.INVITE_REQUIRED,
      billing: Boolean(config.STRIPE_SECRET_KEY),
      api_base_url: origin,
      mcp_url: `${origin}/mcp`,
      plans: plansPayload(),
    };
    const sessionId = readSessionCookie(req);
    if (!sessionId) return { ...common, signed_in: false };
    try {
      const s = (await authenticateSession({ ctx: contextOf(req), input: { sessionId, stateChanging: false } })).data;
      return { ...common, signed_in: true, csrf_token: s.csrfToken, email: s.email };
    } catch (e) {
      if (e instanceof AppError && e.status === 401) {
        clearCookie(req, reply, SESSION_COOKIE);
        return { ...common, signed_in: false };
      }
      throw e;
    }
  });

  app.get<{ Querystring: { next?: string } }>('/dashboard/auth/login', { schema: { hide: true } }, async (req, reply) => {
    if (!oidc) {
      return htmlPage(
        reply,
        503,
        'Sign-in is not configured',
        'This server has no identity provider. Set OIDC_ISSUER and OIDC_CLIENT_ID (see docs/dashboard.md), or run with NODE_ENV=development for the local development sign-in.',
      );
    }
    let begun;
    try {
      // The development provider answers on every address of this machine (localhost and the LAN
      // address alike), so its callback is the address the browser used; the provider accepts
      // only this machine's own addresses (dev-idp.ts). A real provider gets the configured origin.
      const origin = oidc.mode === 'dev' ? requestOrigin(req) : originOf(req);
      begun = await oidc.begin(`${origin}/dashboard/auth/callback`, safeNext(req.query.next));
    } catch (err) {
      req.log.warn({ err }, 'identity provider discovery failed');
      return htmlPage(reply, 503, 'The sign-in provider is unavailable', 'Try again in a moment.');
    }
    setCookie(req, reply, LOGIN_COOKIE, Buffer.from(JSON.stringify(begun.tx)).toString('base64url'), { maxAgeSeconds: 600 });
    return securityHeaders(reply).header('Cache-Control', 'no-store').redirect(begun.url, 302);
  });

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/dashboard/auth/callback',
    { schema: { hide: true } },
    async (req, reply) => {
      const again = '<a href="/dashboard/auth/login">Sign in again</a>';
      if (!oidc) return htmlPage(reply, 503, 'Sign-in is not configured', 'This server has no identity provider.');
      const tx = readTransaction(req);
      clearCookie(req, reply, LOGIN_COOKIE);
      if (req.query.error)
        return htmlPage(
          reply,
          400,
          'Sign-in was not completed',
          `The provider said: ${req.query.error_description ?? req.query.error}`,
          again,
        );
      if (!tx)
        return htmlPage(
          reply,
          400,
          'This sign-in has expired',
          'Sign-in must finish within 10 minutes, in the browser where it started.',
          again,
        );
      let idToken: string;
      try {
        idToken = await oidc.complete(new URL(req.url, originOf(req)), tx);
      } catch (err) {
        req.log.warn({ err }, 'dashboard sign-in: code exchange refused');
        return htmlPage(reply, 400, 'Sign-in failed', 'The identity provider’s answer could not be verified. Start again.', again);
      }
      try {
        const s = (await dashboardSignIn({ ctx: contextOf(req), input: { idToken } })).data;
        setCookie(req, reply, SESSION_COOKIE, s.sessionId, { maxAgeSeconds: sessionTtlSeconds });
      } catch (err) {
        if (err instanceof AppError && err.status < 500) return htmlPage(reply, err.status, 'Sign-in failed', err.message, again);
        req.log.warn({ err }, 'dashboard sign-in failed');
        return htmlPage(reply, 503, 'Sign-in is temporarily unavailable', 'Try again in a moment.', again);
      }
      return securityHeaders(reply).header('Cache-Control', 'no-store').redirect(safeNext(tx.next), 303);
    },
  );

  app.post('/dashboard/auth/logout', { schema: { hide: true } }, async (req, reply) => {
    const sessionId = readSessionCookie(req);
    if (sessionId) {
      const csrf = req.headers['x-csrf-token'];
      await authenticateSession({
        ctx: contextOf(req),
        input: { sessionId, csrfToken: typeof csrf === 'string' ? csrf : undefined, stateChanging: true },
      }).catch((e) => {
        // An already-ended session signs out fine; a CSRF failure must not.
        if (!(e instanceof AppError && e.status === 401)) throw e;
      });
      await dashboardSignOut({ ctx: contextOf(req), input: { sessionId } });
    }
    clearCookie(req, reply, SESSION_COOKIE);
    return reply.header('Cache-Control', 'no-store').send({ signed_out: true });
  });

  // The dashboard, the explorer (/explore) and the place profiles (/profile/{geo_key}) are apps
  // of the same front-end build; a profile's geography is read from the path by the page itself.
  for (const name of ['dashboard', 'explore', 'profile'] as const) {
    app.get<{ Params: { name: string } }>(`/${name}/assets/:name`, { schema: { hide: true } }, async (req, reply) => {
      const a = assets.get(name, req.params.name);
      if (!a) return reply.code(404).type('text/plain').send('Not found');
      // no-cache means "revalidate each time": with the ETag an unchanged file is a 304 without a body.
      reply.header('Cache-Control', 'no-cache').header('ETag', a.etag).header('X-Content-Type-Options', 'nosniff');
      if (ifNoneMatch(req.headers['if-none-match'], a.etag)) return reply.code(304).send();
      return reply.type(a.type).send(a.body);
    });
    const shell = async (_req: FastifyRequest, reply: FastifyReply) => {
      const index = assets.get(name, 'index.html');
      if (!index)
        return htmlPage(reply, 503, 'The web pages are not built', 'Run `npm run build:web` (npm start does it for you), then reload.', '');
      return securityHeaders(reply).type(index.type).header('Cache-Control', 'no-cache').send(index.body);
    };
    app.get(`/${name}`, { schema: { hide: true } }, shell);
    app.get(`/${name}/*`, { schema: { hide: true } }, shell);
  }
}
