// A local identity provider for tests: a real HTTP server on 127.0.0.1 serving an OIDC discovery
// document and a JWKS of a freshly generated RS256 key, plus a signer for tokens. Tests that need
// a wrong key, issuer or audience get them from here too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface LocalIdp {
  issuer: string;
  audience: string;
  jwksUrl: string;
  jwksHits: () => number;
  sign(
    claims: Record<string, unknown>,
    opts?: { issuer?: string; audience?: string; expiresIn?: string | number; key?: 'main' | 'rogue'; iat?: number; alg?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startLocalIdp(audience = 'census-dashboard'): Promise<LocalIdp> {
  const main = await generateKeyPair('RS256', { extractable: true });
  // Same kid as the real key, different key material: a forged token a naive verifier might take.
  const rogue = await generateKeyPair('RS256', { extractable: true });
  const kid = 'test-key-1';
  const jwk: JWK = { ...(await exportJWK(main.publicKey)), kid, alg: 'RS256', use: 'sig' };
  let hits = 0;
  let issuer = '';
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, id_token_signing_alg_values_supported: ['RS256'] }));
      return;
    }
    if (req.url === '/jwks') {
      hits++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    audience,
    jwksUrl: `${issuer}/jwks`,
    jwksHits: () => hits,
    async sign(claims, opts = {}) {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(opts.issuer ?? issuer)
        .setAudience(opts.audience ?? audience)
        .setIssuedAt(opts.iat)
        .setExpirationTime(opts.expiresIn ?? '10m');
      return jwt.sign(opts.key === 'rogue' ? rogue.privateKey : main.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
