// Verification of the dashboard's sign-in tokens (OIDC access or ID tokens, JWT). Signature via
// the provider's JWKS (createRemoteJWKSet caches keys and refetches on an unknown `kid`), plus
// issuer, audience and expiry. Asymmetric algorithms only: an `alg: none` or HS256 token signed
// with a public key must never verify.
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

export interface IdentityClaims {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export class TokenRejected extends Error {}

export interface IdentityOptions {
  issuer: string;
  /** Accepted `aud` values: the API audience and the dashboard's client id (ID tokens). */
  audience: string | string[];
  jwksUrl?: string;
  /** Allowed clock skew, seconds. */
  clockTolerance?: number;
}

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export class IdentityVerifier {
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  private discovering: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  constructor(private readonly opts: IdentityOptions) {}

  private async keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.jwks) return this.jwks;
    this.discovering ??= (async () => {
      let url = this.opts.jwksUrl;
      if (!url) {
        const res = await fetch(`${this.opts.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
        if (!res.ok) throw new Error(`OIDC discovery failed: HTTP ${res.status}`);
        const doc = (await res.json()) as { jwks_uri?: string; issuer?: string };
        if (!doc.jwks_uri) throw new Error('OIDC discovery document has no jwks_uri');
        url = doc.jwks_uri;
      }
      this.jwks = createRemoteJWKSet(new URL(url), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
      return this.jwks;
    })().finally(() => {
      this.discovering = undefined;
    });
    return this.discovering;
  }

  /** Throws TokenRejected for anything wrong with the token; other errors mean the IdP is down. */
  async verify(token: string, now: Date): Promise<IdentityClaims> {
    const jwks = await this.keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: this.opts.issuer,
        audience: this.opts.audience,
        algorithms: ALGORITHMS,
        clockTolerance: this.opts.clockTolerance ?? 30,
        currentDate: now,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      // A JWKS fetch failure is the provider's outage, not the caller's bad token.
      if (code === 'ERR_JWKS_TIMEOUT' || (e instanceof TypeError && /fetch/i.test(e.message))) throw e;
      throw new TokenRejected(code ? `${code}: ${(e as Error).message}` : (e as Error).message);
    }
    return {
      issuer: payload.iss!,
      subject: payload.sub!,
      email: typeof payload.email === 'string' ? payload.email : null,
      emailVerified: payload.email_verified === true,
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  }
}
