// Dashboard sign-in and session security over real HTTP (no browser): the OIDC code flow with the
// in-process development provider, the session cookie's attributes, CSRF on state-changing calls,
// state/PKCE binding, sign-out, open-redirect protection, and when the development provider runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, signInOf } from '../../src/config.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

let svc: LiveService;

/** A tiny cookie jar + manual redirects, as a browser would do them. */
class Client {
  cookies = new Map<string, string>();
  setCookies: string[] = [];
  constructor(private readonly headers: Record<string, string> = {}) {}
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...this.headers,
        ...(init.headers as Record<string, string>),
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      this.setCookies.push(c);
      const [pair] = c.split(';');
      const [k, v] = pair!.split('=');
      if (/Max-Age=0/.test(c)) this.cookies.delete(k!);
      else this.cookies.set(k!, v!);
    }
    return res;
  }
  /** Follows redirects (GET) until a non-redirect or a URL matching `stop`. */
  async follow(url: string, stop?: RegExp): Promise<{ res: Response; url: string }> {
    let current = url;
    for (let i = 0; i < 10; i++) {
      if (stop?.test(current)) return { res: new Response(null), url: current };
      const res = await this.go(current);
      const loc = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !loc) return { res, url: current };
      current = new URL(loc, current).href;
    }
    throw new Error('too many redirects');
  }
}

async function signIn(email: string, c = new Client()): Promise<Client> {
  const { url: form } = await c.follow(`${svc.base}/dashboard/auth/login?next=/dashboard/keys`);
  expect(form).toMatch(/\/dev-idp\/interaction\//);
  const posted = await c.go(form, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email }).toString(),
  });
  expect(posted.status).toBe(303);
  const { url } = await c.follow(new URL(posted.headers.get('location')!, form).href, /\/dashboard\/keys$/);
  expect(url).toBe(`${svc.base}/dashboard/keys`);
  return c;
}

async function csrfOf(c: Client): Promise<string> {
  const s = (await (await c.go(`${svc.base}/dashboard/session`)).json()) as { csrf_token: string };
  return s.csrf_token;
}

beforeAll(async () => {
  // The https case stands for a reverse proxy on this host: forwarded headers are honoured only
  // from configured proxies (TRUSTED_PROXIES; docs/operations.md).
  svc = await startLiveService({ config: { TRUSTED_PROXIES: ['loopback'] } });
}, 120_000);
afterAll(async () => svc?.close());

describe('sign-in', () => {
  it('uses authorization code with PKCE (S256), state and nonce, and sets an httpOnly SameSite=Lax session cookie', async () => {
    const c = new Client();
    const start = await c.go(`${svc.base}/dashboard/auth/login`);
    expect(start.status).toBe(302);
    const auth = new URL(start.headers.get('location')!);
    expect(auth.origin + auth.pathname).toBe(`${svc.base}/dev-idp/auth`);
    expect(auth.searchParams.get('response_type')).toBe('code');
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(auth.searchParams.get('state')).toBeTruthy();
    expect(auth.searchParams.get('nonce')).toBeTruthy();
    await signIn('cookie@example.org', c);
    const session = c.setCookies.find((s) => s.startsWith('cds_session=') && !/Max-Age=0/.test(s))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Path=\//);
    expect(session).not.toMatch(/Secure/); // plain http on loopback
    const me = await c.go(`${svc.base}/v1/account`);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { email: string } }).data.email).toBe('cookie@example.org');
  });

  it('behind https (X-Forwarded-Proto) the cookies are __Host- prefixed and Secure', async () => {
    const c = new Client({ 'x-forwarded-proto': 'https' });
    const start = await c.go(`${svc.base}/dashboard/auth/login`);
    expect(start.headers.getSetCookie()[0]).toMatch(/^__Host-cds_login=.*; Path=\/; HttpOnly; SameSite=Lax; .*Secure/);
  });

  it('a callback whose state does not match the browser’s login cookie opens no session', async () => {
    const victim = new Client();
    const { url: form } = await victim.follow(`${svc.base}/dashboard/auth/login`);
    const posted = await victim.go(form, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=victim%40example.org',
    });
    const { url: callback } = await victim.follow(new URL(posted.headers.get('location')!, form).href, /\/dashboard\/auth\/callback/);
    // Another browser (no login cookie, or a different one) replays the callback URL.
    const attacker = new Client();
    await attacker.go(`${svc.base}/dashboard/auth/login`);
    const res = await attacker.go(callback);
    expect(res.status).toBe(400);
    expect(attacker.cookies.has('cds_session')).toBe(false);
    const res2 = await new Client().go(callback);
    expect(res2.status).toBe(400);
  });

  it('never redirects outside the dashboard after sign-in', async () => {
    const c = new Client();
    await c.go(`${svc.base}/dashboard/auth/login?next=${encodeURIComponent('//evil.example/x')}`);
    const tx = JSON.parse(Buffer.from(c.cookies.get('cds_login')!, 'base64url').toString()) as { next: string };
    expect(tx.next).toBe('/dashboard');
  });
});

describe('session and CSRF', () => {
  it('state-changing calls need the session’s X-CSRF-Token; reads do not', async () => {
    const c = await signIn('csrf@example.org');
    const token = await csrfOf(c);
    const post = (headers: Record<string, string>) =>
      c.go(`${svc.base}/v1/account/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ name: 'k' }),
      });
    const none = await post({});
    expect(none.status).toBe(403);
    expect(((await none.json()) as { detail: string }).detail).toMatch(/CSRF/);
    expect((await post({ 'x-csrf-token': 'wrong' })).status).toBe(403);
    const other = await signIn('other@example.org');
    expect((await post({ 'x-csrf-token': await csrfOf(other) })).status).toBe(403);
    expect((await post({ 'x-csrf-token': token })).status).toBe(201);
    expect((await c.go(`${svc.base}/v1/account/keys`)).status).toBe(200);
  });

  it('the session id is stored hashed, never in clear', async () => {
    const c = await signIn('hash@example.org');
    const id = c.cookies.get('cds_session')!;
    const db = (svc.stores.accounts as unknown as { db: { prepare(s: string): { all(): { id_hash: string }[] } } }).db;
    const rows = db.prepare('SELECT id_hash FROM dashboard_sessions').all();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.id_hash === id)).toBe(false);
  });

  it('sign-out needs the CSRF token and ends the session server-side', async () => {
    const c = await signIn('bye@example.org');
    const stolen = c.cookies.get('cds_session')!;
    expect((await c.go(`${svc.base}/dashboard/auth/logout`, { method: 'POST' })).status).toBe(403);
    const out = await c.go(`${svc.base}/dashboard/auth/logout`, { method: 'POST', headers: { 'x-csrf-token': await csrfOf(c) } });
    expect(out.status).toBe(200);
    expect(c.cookies.has('cds_session')).toBe(false);
    const replay = await fetch(`${svc.base}/v1/account`, { headers: { cookie: `cds_session=${stolen}` } });
    expect(replay.status).toBe(401);
  });

  it('data endpoints take the session only with its CSRF token, and meter it', async () => {
    const c = await signIn('explorer@example.org');
    await c.go(`${svc.base}/dashboard/session`);
    const url = `${svc.base}/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018`;
    const bare = await c.go(url);
    expect(bare.status).toBe(401); // a cookie alone (a cross-site navigation) is not enough
    const ok = await c.go(url, { headers: { 'x-csrf-token': await csrfOf(c) } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit')).toMatch(/"monthly";r=999/);
    const usage = (await (await c.go(`${svc.base}/v1/account/usage`)).json()) as {
      data: { by_key: { key_id: string; requests: number }[] };
    };
    expect(usage.data.by_key).toEqual([{ key_id: 'explorer', units: 1, requests: 1 }]);
  });

  it('a Bearer token still works for API clients of the account endpoints', async () => {
    const res = await fetch(`${svc.base}/v1/account`, { headers: { authorization: 'Bearer not-a-jwt' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});

describe('development identity provider switch', () => {
  it('is on in development without OIDC_ISSUER, off in production and test unless DEV_IDP=true, off when a real provider is set', () => {
    expect(signInOf(loadConfig({ NODE_ENV: 'development' })).mode).toBe('dev');
    expect(signInOf(loadConfig({ NODE_ENV: 'production' })).mode).toBe('none');
    expect(signInOf(loadConfig({ NODE_ENV: 'test' })).mode).toBe('none');
    expect(signInOf(loadConfig({ NODE_ENV: 'production', DEV_IDP: 'true' })).mode).toBe('dev');
    const real = signInOf(
      loadConfig({
        NODE_ENV: 'development',
        OIDC_ISSUER: 'https://id.example.org/realms/census',
        OIDC_CLIENT_ID: 'dash',
        OIDC_AUDIENCE: 'api',
      }),
    );
    expect(real).toMatchObject({ mode: 'external', clientId: 'dash', audiences: ['dash', 'api'] });
  });

  it('DASHBOARD_URL defaults to this server’s /dashboard', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).DASHBOARD_URL).toBe('http://localhost:8080/dashboard');
    expect(loadConfig({ BASE_URL: 'https://census.example.org' }).DASHBOARD_URL).toBe('https://census.example.org/dashboard');
  });
});
