// The dashboard's OpenID Connect client (openid-client): discovery, authorization code with PKCE
// (S256), state and nonce. The provider's metadata is discovered lazily, on the first sign-in, so
// the development provider in this same process can be discovered once the server listens.
import * as client from 'openid-client';
import type { SignIn } from '../../config.js';

type Active = Exclude<SignIn, { mode: 'none' }>;

export interface LoginTransaction {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  next: string;
}

export class DashboardOidc {
  private config: Promise<client.Configuration> | undefined;

  constructor(private readonly signIn: Active) {}

  get mode(): Active['mode'] {
    return this.signIn.mode;
  }

  private discovered(): Promise<client.Configuration> {
    const s = this.signIn;
    // Plain http is allowed only for the in-process development provider and loopback issuers.
    const loopback = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/.test(s.issuer);
    const execute = s.mode === 'dev' || loopback ? [client.allowInsecureRequests] : [];
    const auth = s.mode === 'external' && s.clientSecret ? client.ClientSecretPost(s.clientSecret) : client.None();
    this.config ??= client.discovery(new URL(s.issuer), s.clientId, undefined, auth, { execute, timeout: 10 }).catch((e) => {
      this.config = undefined; // retry on the next sign-in instead of caching the outage
      throw e;
    });
    return this.config;
  }

  /** The provider's authorization URL and the transaction to keep (in a short-lived cookie) until the callback. */
  async begin(redirectUri: string, next: string): Promise<{ url: string; tx: LoginTransaction }> {
    const config = await this.discovered();
    const verifier = client.randomPKCECodeVerifier();
    const tx: LoginTransaction = { state: client.randomState(), nonce: client.randomNonce(), verifier, redirectUri, next };
    const params: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: this.signIn.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: tx.state,
      nonce: tx.nonce,
    };
    // The development provider asks for an e-mail every time, so signing out lets you switch users.
    if (this.signIn.mode === 'dev') params.prompt = 'login';
    const url = client.buildAuthorizationUrl(config, params);
    // The in-process development provider is on every address of this server: the browser stays
    // on the address it came from (a LAN address is not the issuer's localhost).
    if (this.signIn.mode === 'dev') {
      const back = new URL(redirectUri);
      url.protocol = back.protocol;
      url.host = back.host;
    }
    return { url: url.href, tx };
  }

  /** Exchanges the code (checking state, PKCE, issuer, nonce); returns the raw ID token. */
  async complete(callbackUrl: URL, tx: LoginTransaction): Promise<string> {
    const config = await this.discovered();
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: tx.verifier,
      expectedState: tx.state,
      expectedNonce: tx.nonce,
      idTokenExpected: true,
    });
    if (!tokens.id_token) throw new Error('no id_token in the token response');
    return tokens.id_token;
  }
}
