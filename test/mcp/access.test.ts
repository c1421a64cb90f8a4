// Who may use /mcp and what it costs: the plan matrix, the cached tier validation and its bound,
// quota charged in SQLite like REST, DNS-rebinding checks, and transport-level refusals.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { periodOf } from '../../src/domain/limits/windows.js';
import { PLANS } from '../../src/domain/plans.js';
import { charge, monthlyUnits, usageByRoute } from '../../src/store/accounts/usage-repo.js';
import { adminRevokeKey } from '../../src/verbs/account-admin-revoke-key.js';
import { adminSetPlan } from '../../src/verbs/account-admin-set-plan.js';
import { INITIALIZE, call, connect, rawPost, startMcpService, textOf, type McpService } from './support.js';
import type { SqliteAccountStore } from '../../src/store/accounts/sqlite-store.js';

const TTL = 30_000;
let svc: McpService;
const clients: Client[] = [];

beforeAll(async () => {
  svc = await startMcpService({
    config: { CORS_ORIGINS: ['https://app.example.org'], MCP_ALLOWED_HOSTS: ['census.example.org'], MCP_AUTH_CACHE_TTL_MS: TTL },
  });
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await svc?.close();
});

async function clientFor(key: string): Promise<Client> {
  const c = await connect(svc.url, key);
  clients.push(c);
  return c;
}

function problemOf(r: { structuredContent?: Record<string, unknown> }) {
  return (r.structuredContent as { problem: Record<string, unknown> }).problem;
}

const TRACT = 'tract:48453000101';

describe('plan matrix', () => {
  it('Free is refused before the MCP exchange: 403 problem+json naming the plan that has access', async () => {
    const { key } = await svc.issueKey('free');
    const res = await rawPost(svc.url, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 403, required_plan: 'pioneer', upgrade_url: expect.stringContaining('plan=pioneer') });
    expect(body.type).toMatch(/\/feature-requires-upgrade$/);
    expect(body.detail).toMatch(/MCP server access requires the Pioneer plan/);
    await expect(connect(svc.url, key)).rejects.toThrow(/403/);
  });

  it('Pioneer: direct tract and block-group keys work; a tract wildcard and geometry are tool errors naming Pro', async () => {
    const { key } = await svc.issueKey('pioneer');
    const c = await clientFor(key);
    const direct = await call(c, 'get_census_data', { variables: 'B01003_001E', geo: `${TRACT};block_group:484530001011` });
    expect(direct.isError, textOf(direct)).toBeFalsy();
    expect((direct.structuredContent as { data: Array<{ geo_key: string }> }).data.map((d) => d.geo_key)).toEqual([
      TRACT,
      'block_group:484530001011',
    ]);

    const wildcard = await call(c, 'get_census_data', { variables: 'B01003_001E', geo: 'tract:48453*' });
    expect(wildcard.isError).toBe(true);
    expect(problemOf(wildcard)).toMatchObject({ status: 403, required_plan: 'pro' });
    expect(textOf(wildcard)).toMatch(/^Error: Feature requires a higher plan \(403\)/);
    expect(textOf(wildcard)).toMatch(/Next step: Ask for individual geography keys instead.*or upgrade to the pro plan/);

    const geometry = await call(c, 'get_census_data', { variables: 'B01003_001E', geo: 'state:06', include_geometry: true });
    expect(geometry.isError).toBe(true);
    expect(problemOf(geometry)).toMatchObject({ required_plan: 'pro' });
    expect(textOf(geometry)).toMatch(/Next step: Call again without the option that needs it/);
  });

  it('Pro: tract wildcards work; block-group wildcards are a tool error naming Business', async () => {
    const { key } = await svc.issueKey('pro');
    const c = await clientFor(key);
    const tracts = await call(c, 'get_census_data', { variables: 'B01003_001E', geo: 'tract:48453*' });
    expect(tracts.isError, textOf(tracts)).toBeFalsy();
    expect((tracts.structuredContent as { data: unknown[] }).data.length).toBeGreaterThan(200);
    // The text is capped; the rest is in structuredContent, and it says so.
    expect(textOf(tracts)).toMatch(/… \d+ more lines \(all \d+ are in structuredContent\.data\)/);
    const bg = await call(c, 'get_census_data', { variables: 'B01003_001E', geo: 'block_group:48453000101*' });
    expect(bg.isError).toBe(true);
    expect(problemOf(bg)).toMatchObject({ required_plan: 'business' });
  });

  it('Business and Enterprise: block-group wildcards work', async () => {
    for (const plan of ['business', 'enterprise'] as const) {
      const { key } = await svc.issueKey(plan);
      const c = await clientFor(key);
      const r = await call(c, 'get_census_data', { variables: 'B01003_001E', geo: 'block_group:48453000101*' });
      expect(r.isError, `${plan}: ${textOf(r)}`).toBeFalsy();
    }
  });
});

describe('authentication', () => {
  it('no key → 401 missing-api-key with a Bearer challenge; an unknown key → 401 invalid-api-key', async () => {
    const none = await rawPost(svc.url, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    expect(((await none.json()) as { type: string }).type).toMatch(/\/missing-api-key$/);
    // X-API-Key is the REST header; MCP takes the key as a Bearer token only.
    const { key } = await svc.issueKey('pro');
    expect((await rawPost(svc.url, { 'x-api-key': key })).status).toBe(401);
    const unknown = await rawPost(svc.url, { authorization: `Bearer svc_live_${'x'.repeat(32)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(((await unknown.json()) as { type: string }).type).toMatch(/\/invalid-api-key$/);
  });

  it('revoked key on /mcp: refused on the very next request, no TTL wait (was: kept working for up to 30 s, every call charged)', async () => {
    const { key, keyId } = await svc.issueKey('pro');
    const c = await clientFor(key);
    expect((await call(c, 'list_datasets')).isError).toBeFalsy();
    // A cached key stays cached while nothing changes…
    svc.clock.advance(TTL - 1_000);
    expect((await call(c, 'list_datasets')).isError).toBeFalsy();
    // …and revocation (here through the admin operation, as the CLI does) empties the cache.
    await adminRevokeKey({ ctx: svc.adminCtx(), input: { key: keyId } });
    await expect(call(c, 'list_datasets')).rejects.toThrow(/401/);
    await expect(connect(svc.url, key)).rejects.toThrow(/401/);
  });

  it('plan changes take effect on the next request: an upgrade unlocks wildcards, a downgrade to Free blocks', async () => {
    const { key, accountId } = await svc.issueKey('pioneer');
    const c = await clientFor(key);
    const wildcard = { variables: 'B01003_001E', geo: 'tract:48453*' };
    expect((await call(c, 'get_census_data', wildcard)).isError).toBe(true);
    await adminSetPlan({ ctx: svc.adminCtx(), input: { account: accountId, plan: 'pro' } });
    expect((await call(c, 'get_census_data', wildcard)).isError).toBeFalsy();
    await adminSetPlan({ ctx: svc.adminCtx(), input: { account: accountId, plan: 'free' } });
    await expect(call(c, 'list_topics')).rejects.toThrow(/403/);
  });

  it('/mcp responses carry RateLimit and RateLimit-Policy headers, as REST does (was: none)', async () => {
    const { key } = await svc.issueKey('pro');
    const init = await rawPost(svc.url, { authorization: `Bearer ${key}` });
    expect(init.status).toBe(200);
    expect(init.headers.get('ratelimit')).toMatch(/"monthly";r=\d+/);
    expect(init.headers.get('ratelimit-policy')).toMatch(/"monthly";q=\d+/);
    const before = Number(/"monthly";r=(\d+)/.exec(init.headers.get('ratelimit')!)![1]);
    const tool = await rawPost(
      svc.url,
      { authorization: `Bearer ${key}`, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_topics', arguments: {} } },
    );
    expect(tool.status).toBe(200);
    // The header shows the state after the call's own charge (1 unit).
    expect(Number(/"monthly";r=(\d+)/.exec(tool.headers.get('ratelimit')!)![1])).toBe(before - 1);
  });
});

describe('quota', () => {
  it('tool calls are charged in SQLite like REST: data by expansion, lookups 1 unit, bad arguments free; slots released', async () => {
    const { key, accountId } = await svc.issueKey('pro');
    const c = await clientFor(key);
    const db = (svc.accounts.accounts as SqliteAccountStore).db;
    const period = () => periodOf(new Date(svc.clock.t));
    expect(monthlyUnits(db, accountId, period())).toBe(0);
    // 254 Texas counties: ceil(254 / 10) = 26 units (the same cost the REST route charges).
    expect((await call(c, 'get_census_data', { variables: 'B01003_001E', geo: 'county:48*', vintage: 2023 })).isError).toBeFalsy();
    expect(monthlyUnits(db, accountId, period())).toBe(26);
    expect((await call(c, 'list_topics')).isError).toBeFalsy();
    expect((await call(c, 'search_geographies', { search: 'Travis' })).isError).toBeFalsy();
    expect(monthlyUnits(db, accountId, period())).toBe(28);
    expect((await call(c, 'get_census_data', { geo: 'state:06' })).isError).toBe(true);
    expect(monthlyUnits(db, accountId, period())).toBe(28);
    const routes = usageByRoute(db, accountId, 0, Number.MAX_SAFE_INTEGER);
    expect(routes).toEqual(
      expect.arrayContaining([
        { key: 'mcp:get_census_data', units: 26, requests: 1 },
        { key: 'mcp:list_topics', units: 1, requests: 1 },
        { key: 'mcp:search_geographies', units: 1, requests: 1 },
      ]),
    );
    expect((svc.accounts.accounts as SqliteAccountStore).concurrency.inFlight(accountId)).toBe(0);
  });

  it('an exhausted monthly quota is a tool error with when it resets; a call that still fits passes', async () => {
    const { key, accountId, keyId } = await svc.issueKey('pioneer');
    const c = await clientFor(key);
    const db = (svc.accounts.accounts as SqliteAccountStore).db;
    const now = new Date(svc.clock.t);
    const quota = PLANS.pioneer.limits.monthlyUnits;
    charge(db, {
      accountId,
      keyId,
      period: periodOf(now),
      minute: 0,
      cost: quota - 1,
      monthlyQuota: quota,
      burstQuota: 1e9,
      route: '/v1/data',
      ip: null,
      now: now.getTime(),
    });
    const r = await call(c, 'get_census_data', { variables: 'B01003_001E', geo: 'state:06;state:48' });
    expect(r.isError).toBe(true);
    expect(problemOf(r)).toMatchObject({ status: 429, limit_type: 'monthly', instance: 'mcp:get_census_data' });
    expect(textOf(r)).toMatch(/Next step: The monthly quota is used up; it resets in \d+ seconds/);
    expect((await call(c, 'list_topics')).isError).toBeFalsy();
    expect(monthlyUnits(db, accountId, periodOf(now))).toBe(quota);
    expect((svc.accounts.accounts as SqliteAccountStore).concurrency.inFlight(accountId)).toBe(0);
  });
});

describe('transport', () => {
  function postWithHost(host: string, key: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const payload = JSON.stringify(INITIALIZE);
      const req = http.request(
        {
          host: '127.0.0.1',
          port: svc.port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host,
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  it('a foreign Host is refused (DNS rebinding); configured and loopback hosts are served', async () => {
    const { key } = await svc.issueKey('pro');
    const evil = await postWithHost('evil.example.com', key);
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body)).toMatchObject({ detail: expect.stringMatching(/does not answer to host "evil.example.com"/) });
    expect((await postWithHost('census.example.org', key)).status).toBe(200);
    expect((await postWithHost(`localhost:${svc.port}`, key)).status).toBe(200);
  });

  it('a foreign Origin is refused before the key is even checked; an allowed origin is served', async () => {
    const { key } = await svc.issueKey('pro');
    const foreign = await rawPost(svc.url, { authorization: `Bearer ${key}`, origin: 'https://evil.example.com' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { detail: string }).detail).toMatch(/origin "https:\/\/evil.example.com" are not allowed/);
    expect((await rawPost(svc.url, { origin: 'null' })).status).toBe(403);
    const allowed = await rawPost(svc.url, { authorization: `Bearer ${key}`, origin: 'https://app.example.org' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
    expect(allowed.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('Host 2130706433 (127.0.0.1 as a decimal) and other non-canonical spellings of allowed hosts are refused (was: passed the Host check)', async () => {
    const { key } = await svc.issueKey('pro');
    for (const host of [`2130706433:${svc.port}`, '0x7f.0.0.1', '127.1', '0177.0.0.1', 'LOCALHOST.', '[0:0::1]']) {
      const res = await postWithHost(host, key);
      expect(res.status, host).toBe(403);
    }
    expect((await postWithHost(`127.0.0.1:${svc.port}`, key)).status).toBe(200);
    expect((await postWithHost(`[::1]:${svc.port}`, key)).status).toBe(200);
  });

  it('Origin: file:// (opaque origin) is a 403, never a 500, with or without a key (was: 500 "Invalid URL")', async () => {
    const { key } = await svc.issueKey('pro');
    for (const origin of ['file://', 'file:///etc/passwd', 'data:text/html,x', 'chrome-extension://abc', '::::', 'http://']) {
      const bare = await rawPost(svc.url, { origin });
      expect(bare.status, origin).toBe(403);
      const keyed = await rawPost(svc.url, { authorization: `Bearer ${key}`, origin });
      expect(keyed.status, origin).toBe(403);
    }
  });

  it('an Accept without text/event-stream (or without application/json) is 406 problem+json, not a JSON-RPC error', async () => {
    const { key } = await svc.issueKey('pro');
    for (const accept of ['application/json', 'text/event-stream', '*/*']) {
      const res = await rawPost(svc.url, { authorization: `Bearer ${key}`, accept });
      expect(res.status, accept).toBe(406);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as { type: string; status: number; detail: string; request_id: string };
      expect(body).toMatchObject({ type: expect.stringMatching(/\/not-acceptable$/), status: 406 });
      expect(body.detail).toContain('text/event-stream');
      expect(body.request_id).toBe(res.headers.get('x-request-id'));
      expect(body).not.toHaveProperty('jsonrpc');
    }
  });

  it('stateless: no session id is issued; GET /mcp is 405', async () => {
    const { key } = await svc.issueKey('pro');
    const res = await rawPost(svc.url, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(((await res.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('census-data-service');
    const get = await fetch(svc.url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
