// The development identity provider: a real OpenID Connect provider (oidc-provider) mounted in
// this process at /dev-idp, so `npm start` gives a working dashboard sign-in with no set-up. It
// asks for an e-mail address only and vouches for it: anyone can sign in as anyone. That is why
// it is on by default only when NODE_ENV=development and no OIDC_ISSUER is configured, and why a
// warning is logged whenever it runs (docs/dashboard.md).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exportJWK, generateKeyPair } from 'jose';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import { DEV_IDP_PATH, type Config } from '../../config.js';
import { escapeHtml, page } from './html.js';

const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']{1,190}$/;
const SUB_PREFIX = 'dev-email:';

/**
 * Where the dashboard may be reached on this machine: localhost and each of this machine's own
 * network addresses (a phone or another computer on the LAN opens http://192.0.2.2:PORT), at the
 * server's port. The callback must be one of these exactly: never an address of another machine.
 */
export function redirectUris(config: Config, issuer: string, interfaces = os.networkInterfaces()): string[] {
  const origins = new Set([new URL(issuer).origin]);
  if (config.PORT > 0) {
    const hosts = ['localhost', '127.0.0.1', '[::1]'];
    for (const list of Object.values(interfaces))
      for (const a of list ?? []) if (!a.address.startsWith('fe80:')) hosts.push(a.family === 'IPv6' ? `[${a.address}]` : a.address);
    for (const h of hosts) origins.add(`http://${h}:${config.PORT}`);
  }
  return [...origins].map((o) => `${o}/dashboard/auth/callback`);
}

export async function createDevProvider(config: Config, issuer: string, clientId: string): Promise<Provider> {
  // A signing key per process: tokens from a previous run stop verifying, which is what we want.
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const configuration: Configuration = {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: `dev-${randomBytes(4).toString('hex')}`, alg: 'RS256', use: 'sig' }] as never },
    ttl: { Interaction: 600, Session: 12 * 3600, Grant: 14 * 86_400, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    clients: [
      {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: redirectUris(config, issuer),
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    // The ID token carries the e-mail itself: the dashboard reads it from there, not from userinfo.
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'email'],
    findAccount: async (_ctx, sub) => {
      if (!sub.startsWith(SUB_PREFIX)) return undefined;
      const email = sub.slice(SUB_PREFIX.length);
      return { accountId: sub, claims: async () => ({ sub, email, email_verified: true }) };
    },
    interactions: { url: (_ctx, interaction) => `${DEV_IDP_PATH}/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page(
        'Sign-in error',
        `<main class="card"><h1>Sign-in error</h1><p>${escapeHtml(String(out.error_description ?? out.error))}</p><p><a href="/dashboard">Back to the dashboard</a></p></main>`,
      );
    },
  };
  // Loaded here, not at the top: oidc-provider (with koa and jose) is about 270 modules, some 230 ms
  // of CPU at every start, and only a development server runs it.
  const { default: OidcProvider } = await import('oidc-provider');
  const provider = new OidcProvider(issuer, configuration);
  provider.proxy = config.TRUST_PROXY;
  return provider;
}

function loginForm(uid: string, error?: string, email = ''): string {
  return page(
    'Sign in (development)',
    `<main class="card">
  <h1>Sign in to Census Data Service</h1>
  <p class="warn" role="note"><strong>Development sign-in.</strong> This local identity provider accepts any e-mail address without a password. Never expose it on a public server.</p>
  <form method="post" action="${DEV_IDP_PATH}/interaction/${escapeHtml(uid)}">
    <label for="email">E-mail address</label>
    <input id="email" name="email" type="email" autocomplete="email" required autofocus value="${escapeHtml(email)}"${error ? ' aria-invalid="true" aria-describedby="email-error"' : ''}>
    ${error ? `<p id="email-error" class="error">${escapeHtml(error)}</p>` : ''}
    <button type="submit">Continue</button>
  </form>
</main>`,
  );
}

async function finishConsent(provider: Provider, req: IncomingMessage, reply: FastifyReply): Promise<void> {
  const details = await provider.interactionDetails(req, reply.raw);
  const accountId = details.session?.accountId;
  if (!accountId) throw new Error('consent without a session');
  // The dashboard is this deployment's own first-party client: consent is implied.
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  if (!grant) throw new Error('grant not found');
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  const grantId = await grant.save();
  reply.hijack();
  await provider.interactionFinished(req, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

export function registerDevIdp(app: FastifyInstance, provider: Provider): void {
  const callback = provider.callback();
  /** The interaction is gone (expired or replayed): offer a fresh sign-in. */
  const expired = (reply: FastifyReply) =>
    reply
      .code(400)
      .type('text/html')
      .send(
        page(
          'Sign-in expired',
          '<main class="card"><h1>This sign-in has expired</h1><p><a href="/dashboard/auth/login">Start again</a></p></main>',
        ),
      );

  app.register(async (scope) => {
    // oidc-provider reads request bodies itself: leave the stream untouched.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));

    scope.get<{ Params: { uid: string } }>(`${DEV_IDP_PATH}/interaction/:uid`, { schema: { hide: true } }, async (req, reply) => {
      const details = await provider.interactionDetails(req.raw, reply.raw).catch(() => undefined);
      if (!details) return expired(reply);
      if (details.prompt.name === 'consent') return finishConsent(provider, req.raw, reply);
      return reply.type('text/html').header('Cache-Control', 'no-store').send(loginForm(details.uid));
    });

    scope.post<{ Params: { uid: string } }>(`${DEV_IDP_PATH}/interaction/:uid`, { schema: { hide: true } }, async (req, reply) => {
      const details = await provider.interactionDetails(req.raw, reply.raw).catch(() => undefined);
      if (!details) return expired(reply);
      const body = await readForm(req.raw);
      const email = (body.get('email') ?? '').trim().toLowerCase();
      if (!EMAIL.test(email)) {
        return reply
          .code(422)
          .type('text/html')
          .send(loginForm(details.uid, 'Enter an e-mail address such as you@example.org.', email));
      }
      reply.hijack();
      await provider.interactionFinished(
        req.raw,
        reply.raw,
        { login: { accountId: `${SUB_PREFIX}${email}` } },
        { mergeWithLastSubmission: false },
      );
    });

    const mount = async (req: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      const raw = req.raw as IncomingMessage & { originalUrl?: string };
      raw.originalUrl = raw.url;
      raw.url = (raw.url ?? '/').slice(DEV_IDP_PATH.length) || '/';
      await callback(raw, reply.raw);
    };
    scope.all(`${DEV_IDP_PATH}/*`, { schema: { hide: true } }, mount);
  });
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 16_384) break;
    chunks.push(c as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
