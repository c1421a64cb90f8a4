import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { fixtureRoutes } from './fixture-routes.js';
import { KEYS, makeApp } from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const auth = { 'x-api-key': KEYS.free };

describe('envelope', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp({ extraRoutes: fixtureRoutes });
  });
  afterAll(() => app.close());

  it('wraps data with meta and links', async () => {
    const res = await app.inject({ url: '/t/items?geo=state:06&vintage=2023', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'links', 'meta']);
    expect(body.data).toHaveLength(10);
    expect(body.meta.source).toEqual({
      dataset: 'acs5',
      vintage_year: 2023,
      reference_period: '2020-2024',
      census_program: 'U.S. Census Bureau',
    });
    expect(body.meta.total_count).toBe(25);
    expect(body.meta.variable_count).toBeNull();
    expect(body.meta.geography_count).toBeNull();
    expect(body.meta.hint).toBeNull();
    expect(body.meta.request_id).toMatch(UUID);
    expect(Number.isInteger(body.meta.elapsed_ms)).toBe(true);
    expect(body.meta.elapsed_ms).toBeGreaterThanOrEqual(0);
    expect(body.meta.request_id).toBe(res.headers['x-request-id']);
  });

  it('meta.source is null when the verb gives none', async () => {
    const body = (await app.inject({ url: '/t/public' })).json();
    expect(body.meta.source).toBeNull();
    expect(body.links).toEqual({ self: 'http://localhost/t/public', next: null, prev: null });
  });

  it('builds next/prev from the page and keeps other parameters', async () => {
    const first = (await app.inject({ url: '/t/items?geo=state:06&limit=10', headers: auth })).json();
    expect(first.links.prev).toBeNull();
    const next = new URL(first.links.next);
    expect(next.pathname).toBe('/t/items');
    expect(next.searchParams.get('geo')).toBe('state:06');
    expect(next.searchParams.get('offset')).toBe('10');
    expect(next.searchParams.get('limit')).toBe('10');

    const middle = (await app.inject({ url: '/t/items?geo=state:06&limit=10&offset=10', headers: auth })).json();
    expect(new URL(middle.links.prev).searchParams.get('offset')).toBe('0');
    expect(new URL(middle.links.next).searchParams.get('offset')).toBe('20');

    const last = (await app.inject({ url: '/t/items?geo=state:06&limit=10&offset=20', headers: auth })).json();
    expect(last.data).toHaveLength(5);
    expect(last.links.next).toBeNull();
    expect(new URL(last.links.prev).searchParams.get('offset')).toBe('10');
  });

  it('never puts api_key into links', async () => {
    const body = (await app.inject({ url: `/t/items?geo=state:06&limit=5&api_key=${KEYS.free}` })).json();
    for (const link of [body.links.self, body.links.next]) {
      expect(link).not.toContain(KEYS.free);
      expect(link).not.toContain('api_key');
    }
  });
});

describe('request id', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp({ extraRoutes: fixtureRoutes });
  });
  afterAll(() => app.close());

  it('propagates a supplied UUID to the header, meta and problem bodies', async () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const ok = await app.inject({ url: '/t/public', headers: { 'x-request-id': id } });
    expect(ok.headers['x-request-id']).toBe(id);
    expect(ok.json().meta.request_id).toBe(id);
    const err = await app.inject({ url: '/t/items', headers: { 'X-Request-ID': id } });
    expect(err.statusCode).toBe(401);
    expect(err.headers['x-request-id']).toBe(id);
    expect(err.json().request_id).toBe(id);
  });

  it('replaces a non-UUID id and generates one when absent', async () => {
    for (const headers of [{ 'x-request-id': 'abc\ninjected log line' }, { 'x-request-id': '' }, {}]) {
      const res = await app.inject({ url: '/t/public', headers });
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.json().meta.request_id).toBe(res.headers['x-request-id']);
    }
  });

  it('gives each request its own id', async () => {
    const a = await app.inject({ url: '/t/public' });
    const b = await app.inject({ url: '/t/public' });
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('self links behind a proxy', () => {
  it('uses https and the forwarded host when the proxy is trusted', async () => {
    const app = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { TRUST_PROXY: true } });
    const body = (
      await app.inject({ url: '/t/public?x=1', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' } })
    ).json();
    expect(body.links.self).toBe('https://api.example.org/t/public?x=1');
    await app.close();
  });

  it('ignores forwarded headers when TRUST_PROXY is off', async () => {
    const app = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { TRUST_PROXY: false } });
    const body = (
      await app.inject({ url: '/t/public', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' } })
    ).json();
    expect(body.links.self).toBe('http://localhost/t/public');
    await app.close();
  });

  it("by default a client's X-Forwarded-Host does not rewrite links.self or links.next (was: TRUST_PROXY=true by default let any client do it)", async () => {
    const app = await makeApp({ extraRoutes: fixtureRoutes });
    const body = (
      await app.inject({
        url: '/t/items?geo=state:06&limit=1',
        headers: { ...auth, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
      })
    ).json();
    expect(body.links.self).toMatch(/^http:\/\/localhost\//);
    expect(JSON.stringify(body.links)).not.toContain('evil.example');
    await app.close();
  });

  it('TRUSTED_PROXIES: forwarded headers honoured from a listed proxy only', async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' };
    const listed = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { TRUSTED_PROXIES: ['127.0.0.1/8'] } });
    expect((await listed.inject({ url: '/t/public', headers, remoteAddress: '127.0.0.1' })).json().links.self).toBe(
      'https://api.example.org/t/public',
    );
    expect((await listed.inject({ url: '/t/public', headers, remoteAddress: '203.0.113.9' })).json().links.self).toBe(
      'http://localhost/t/public',
    );
    await listed.close();
    const other = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { TRUSTED_PROXIES: ['10.0.0.2'] } });
    expect((await other.inject({ url: '/t/public', headers })).json().links.self).toBe('http://localhost/t/public');
    await other.close();
  });

  it('prefers BASE_URL, keeping its path prefix', async () => {
    const app = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { BASE_URL: 'https://census.example.org/api/' } });
    const body = (await app.inject({ url: '/t/items?geo=state:06&limit=5', headers: { ...auth, 'x-forwarded-proto': 'http' } })).json();
    expect(body.links.self).toBe('https://census.example.org/api/t/items?geo=state%3A06&limit=5');
    expect(body.links.next).toMatch(/^https:\/\/census\.example\.org\/api\/t\/items\?/);
    await app.close();
  });
});
