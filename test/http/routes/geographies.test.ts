// /v1/geographies, /v1/geographies/{geo_key}, /v1/geographies/{geo_key}/children through HTTP, on
// the real data build with real keys per plan.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertAuthMatrix } from '../auth-matrix.js';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const as = (plan: keyof Service['keys']) => ({ 'x-api-key': svc.keys[plan] });

interface Body {
  data: { geo_key: string; name: string; type: string; parent_key: string | null; afact?: number }[];
  meta: { total_count: number; hint: string | null; request_id: string; parent?: { geo_key: string } };
  links: { self: string; next: string | null; prev: string | null };
}

async function get(url: string, plan: keyof Service['keys'] = 'pro') {
  return svc.app.inject({ url, headers: as(plan) });
}

function pageOf(link: string | null): { offset: string | null; limit: string | null } | null {
  if (!link) return null;
  const u = new URL(link);
  return { offset: u.searchParams.get('offset'), limit: u.searchParams.get('limit') };
}

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const AUSTIN_METRO_COUNTIES = ['county:48021', 'county:48055', 'county:48209', 'county:48453', 'county:48491'];

describe('GET /v1/geographies/{geo_key}/children', () => {
  it("lists the Austin metro's five counties (Bastrop, Caldwell, Hays, Travis, Williamson)", async () => {
    const res = await get('/v1/geographies/metro:12420/children?type=county');
    expect(res.statusCode).toBe(200);
    const body = res.json() as Body;
    expect(body.data.map((g) => g.geo_key).sort()).toEqual(AUSTIN_METRO_COUNTIES);
    expect(body.data.find((g) => g.geo_key === 'county:48453')?.name).toBe('Travis County, Texas');
    expect(body.meta.total_count).toBe(5);
    expect(body.meta.parent?.geo_key).toBe('metro:12420');
    expect(body.links).toMatchObject({ next: null, prev: null });
  });

  it('resolves a URL-encoded parent name (metro name, county name) to the same children', async () => {
    const metro = await get(`/v1/geographies/${encodeURIComponent('Austin-Round Rock-San Marcos, TX')}/children?type=county`);
    expect(metro.statusCode).toBe(200);
    expect((metro.json() as Body).data.map((g) => g.geo_key).sort()).toEqual(AUSTIN_METRO_COUNTIES);
    const travis = await get(`/v1/geographies/${encodeURIComponent('Travis County, TX')}/children?type=tract&limit=5`);
    expect(travis.statusCode).toBe(200);
    const body = travis.json() as Body;
    expect(body.meta.parent?.geo_key).toBe('county:48453');
    expect(body.data).toHaveLength(5);
    for (const t of body.data) expect(t.geo_key).toMatch(/^tract:48453\d{6}$/);
    // A name holding a slash (%2F) stays one path segment.
    const louisville = await get(`/v1/geographies/${encodeURIComponent('Louisville/Jefferson County, KY-IN')}/children?type=county`);
    expect(louisville.statusCode).toBe(200);
    const lb = louisville.json() as Body;
    expect(lb.meta.parent?.geo_key).toBe('metro:31140');
    expect(lb.data.map((g) => g.geo_key)).toEqual(expect.arrayContaining(['county:21111', 'county:18019']));
  });

  it("lists Texas's 254 counties, paged with next/prev links; the whole set on one Enterprise page", async () => {
    const first = await get('/v1/geographies/state:48/children?type=county&limit=100');
    expect(first.statusCode).toBe(200);
    const a = first.json() as Body;
    expect(a.meta.total_count).toBe(254);
    expect(a.data).toHaveLength(100);
    expect(pageOf(a.links.next)).toEqual({ offset: '100', limit: '100' });
    expect(a.links.prev).toBeNull();

    const last = await get('/v1/geographies/state:48/children?type=county&limit=100&offset=200');
    const c = last.json() as Body;
    expect(c.data).toHaveLength(54);
    expect(c.links.next).toBeNull();
    expect(pageOf(c.links.prev)).toEqual({ offset: '100', limit: '100' });

    // Following the links walks the whole set without gaps or repeats.
    const seen: string[] = [];
    let url: string | null = '/v1/geographies/state:48/children?type=county&limit=100';
    while (url) {
      const page = (await svc.app.inject({ url, headers: as('pro') })).json() as Body;
      seen.push(...page.data.map((g) => g.geo_key));
      url = page.links.next ? new URL(page.links.next).pathname + new URL(page.links.next).search : null;
    }
    expect(new Set(seen).size).toBe(254);

    const all = (await get('/v1/geographies/state:48/children?type=county&limit=1000', 'enterprise')).json() as Body;
    expect(all.data).toHaveLength(254);
    expect(all.data.every((g) => g.geo_key.startsWith('county:48') && g.parent_key === 'state:48')).toBe(true);
    expect(all.links.next).toBeNull();
  });

  it('refuses an unsupported parent→child pair with 400 naming the allowed child types', async () => {
    const res = await get('/v1/geographies/state:48/children?type=metro');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.type).toMatch(/\/unsupported-child-type$/);
    expect(body.allowed_child_types).toEqual(['county', 'cd', 'tract', 'block_group']);
    expect(body.detail).toMatch(/county, cd, tract, block_group/);
    const up = await get('/v1/geographies/tract:48453000101/children?type=county');
    expect(up.statusCode).toBe(400);
    expect(up.json().allowed_child_types).toEqual(['block_group']);
  });

  it('needs a valid type (422) and a parent that exists (404)', async () => {
    const missing = await get('/v1/geographies/state:48/children');
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toEqual([expect.objectContaining({ field: 'query → type' })]);
    const bad = await get('/v1/geographies/state:48/children?type=zip');
    expect([400, 422]).toContain(bad.statusCode);
    expect(bad.json().type).toMatch(/\/validation-error$/);
    const nf = await get('/v1/geographies/state:6/children?type=county');
    expect(nf.statusCode).toBe(404);
    expect(nf.json().type).toMatch(/\/geography-not-found$/);
  });

  it('gives congressional-district tracts their population share (afact)', async () => {
    const res = await get('/v1/geographies/cd:4835/children?type=tract&limit=1000');
    expect(res.statusCode).toBe(200);
    const body = res.json() as Body;
    expect(body.meta.total_count).toBeGreaterThan(100);
    expect(body.data).toHaveLength(body.meta.total_count);
    // Only tracts split between districts carry a share; it is a fraction of the tract.
    const split = body.data.filter((t) => t.afact !== undefined);
    expect(split.length).toBeGreaterThan(0);
    expect(split.length).toBeLessThan(body.data.length);
    expect(split.every((t) => t.afact! > 0 && t.afact! < 1)).toBe(true);
  });
});

describe('GET /v1/geographies', () => {
  it('lists the 52 states with total_count and pagination links', async () => {
    const res = await get('/v1/geographies?type=state&limit=20&offset=20', 'free');
    expect(res.statusCode).toBe(200);
    const body = res.json() as Body;
    expect(body.meta.total_count).toBe(52);
    expect(body.data).toHaveLength(20);
    expect(body.data.every((g) => g.type === 'state')).toBe(true);
    expect(pageOf(body.links.next)).toEqual({ offset: '40', limit: '20' });
    expect(pageOf(body.links.prev)).toEqual({ offset: '0', limit: '20' });
    expect(body.links.self).not.toContain('api_key');
  });

  it('uses the default page size of 50 and reduces a limit above the plan maximum to it', async () => {
    const def = (await get('/v1/geographies?type=county', 'free')).json() as Body;
    expect(def.data).toHaveLength(50);
    expect(pageOf(def.links.next)).toEqual({ offset: '50', limit: '50' });

    const free = await get('/v1/geographies?type=county&limit=5000', 'free');
    expect(free.statusCode).toBe(200);
    expect((free.json() as Body).data).toHaveLength(100);
    expect(pageOf((free.json() as Body).links.next)?.limit).toBe('100');

    const pioneer = (await get('/v1/geographies?type=county&limit=5000', 'pioneer')).json() as Body;
    expect(pioneer.data).toHaveLength(1000);
    const pro = (await get('/v1/geographies?type=county&limit=5000', 'pro')).json() as Body;
    expect(pro.data).toHaveLength(pro.meta.total_count);
    expect(pro.meta.total_count).toBeGreaterThan(3000);
    expect(pro.links.next).toBeNull();
  });

  it('finds Travis County by name search, and lists children by parent + type', async () => {
    const res = await get('/v1/geographies?search=travis');
    expect(res.statusCode).toBe(200);
    expect((res.json() as Body).data.map((g) => g.geo_key)).toContain('county:48453');

    const byParent = (await get('/v1/geographies?parent=metro:12420&type=county')).json() as Body;
    expect(byParent.data.map((g) => g.geo_key).sort()).toEqual(AUSTIN_METRO_COUNTIES);
  });

  it('answers bad combinations with 4xx problems', async () => {
    const nothing = await get('/v1/geographies');
    expect(nothing.statusCode).toBe(422);
    const tractSearch = await get('/v1/geographies?type=tract&search=travis');
    expect(tractSearch.statusCode).toBe(400);
    expect(tractSearch.json().type).toMatch(/\/validation-error$/);
    const noType = await get('/v1/geographies?parent=state:48');
    expect(noType.statusCode).toBe(422);
    const limit0 = await get('/v1/geographies?type=state&limit=0');
    expect(limit0.statusCode).toBeGreaterThanOrEqual(400);
    expect(limit0.statusCode).toBeLessThan(500);
    const limitText = await get('/v1/geographies?type=state&limit=ten');
    expect(limitText.statusCode).toBe(422);
    expect(limitText.json().errors).toEqual([expect.objectContaining({ field: 'query → limit', type: 'int_parsing' })]);
  });
});

describe('GET /v1/geographies/{geo_key}', () => {
  it('returns Travis County with its hierarchy (Texas, then the nation) and its metro', async () => {
    const res = await get('/v1/geographies/county:48453');
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data).toMatchObject({
      geo_key: 'county:48453',
      type: 'county',
      fips: '48453',
      name: 'Travis County, Texas',
      parent_key: 'state:48',
      metro_key: 'metro:12420',
    });
    expect(data.hierarchy).toEqual([
      { geo_key: 'state:48', type: 'state', name: 'Texas' },
      { geo_key: 'nation:1', type: 'nation', name: 'United States' },
    ]);
    expect(data.child_types).toEqual(['tract', 'block_group']);
    expect(data.definitions.length).toBeGreaterThan(0);
    expect(data.population).toBeGreaterThan(1_000_000);
  });

  it('matches keys with a colon, also percent-encoded', async () => {
    const res = await get('/v1/geographies/state%3A06');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ geo_key: 'state:06', name: 'California' });
  });

  it('answers a key without its leading zero with 404 and a malformed key with 400', async () => {
    const nf = await get('/v1/geographies/state:6');
    expect(nf.statusCode).toBe(404);
    expect(nf.json().type).toMatch(/\/geography-not-found$/);
    const bad = await get('/v1/geographies/tx');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().type).toMatch(/\/invalid-geo-format$/);
    const vintage = await get('/v1/geographies/county:09001?vintage=2023');
    expect(vintage.statusCode).toBe(404);
    expect(vintage.json().detail).toMatch(/2005|2021/);
  });
});

describe('metering and auth', () => {
  it('charges one unit per lookup', async () => {
    const remaining = (h: unknown) => Number(/"monthly";r=(\d+)/.exec(String(h))?.[1]);
    const a = await get('/v1/geographies/state:48', 'business');
    const b = await get('/v1/geographies/state:48/children?type=cd', 'business');
    expect(remaining(a.headers.ratelimit) - remaining(b.headers.ratelimit)).toBe(1);
  });

  it('requires a key on every geography route (auth matrix)', async () => {
    await assertAuthMatrix(
      svc.app,
      [
        { url: '/v1/geographies?type=state' },
        { url: '/v1/geographies/state:06' },
        { url: '/v1/geographies/metro:12420/children?type=county' },
      ],
      { valid: svc.keys.enterprise },
    );
  });
});

describe('GET /v1/geographies links each place to its profile page', () => {
  it('gives a search result links.profile, and that address serves the profile page', async () => {
    const res = await get('/v1/geographies?search=Travis%20County');
    expect(res.statusCode).toBe(200);
    const hit = (res.json() as { data: { geo_key: string; links: { profile: string } }[] }).data.find((g) => g.geo_key === 'county:48453')!;
    const url = new URL(hit.links.profile);
    expect(url.pathname).toBe('/profile/county:48453');
    expect(url.origin).toBe(new URL(svc.config.DASHBOARD_URL).origin);
    const page = await svc.app.inject({ url: url.pathname });
    // The page shell is served without a key (the page asks for one, or uses the session); a tree
    // without the built pages says how to build them instead.
    expect([200, 503]).toContain(page.statusCode);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    if (page.statusCode === 200) expect(page.body).toContain('/profile/assets/profile.js');
  });

  it('links listed children too (type + parent)', async () => {
    const res = await get('/v1/geographies?type=county&parent=state:48&limit=3');
    const body = res.json() as { data: { geo_key: string; links: { profile: string } }[] };
    expect(body.data).toHaveLength(3);
    for (const g of body.data) expect(g.links.profile.endsWith(`/profile/${g.geo_key}`)).toBe(true);
  });
});
