// /v1/boundaries/{geo_type | geo_key} and /v1/centroids/{geo_type} through HTTP, on the real
// boundary build with real keys per plan: bare GeoJSON, X-Boundary-Vintage, strong ETag / 304,
// the plan gates for levels and resolutions, and 0-unit metering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Feature, FeatureCollection } from 'geojson';
import { PLAN_IDS, type PlanId } from '../../../src/domain/plans.js';
import { assertAuthMatrix } from '../auth-matrix.js';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const as = (plan: PlanId, extra: Record<string, string> = {}) => ({ 'x-api-key': svc.keys[plan], ...extra });
const get = (url: string, plan: PlanId = 'enterprise', extra: Record<string, string> = {}) =>
  svc.app.inject({ url, headers: as(plan, extra) });

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const monthlyLeft = (h: unknown) => Number(/"monthly";r=(\d+)/.exec(String(h))?.[1]);
const burstLeft = (h: unknown) => Number(/"burst";r=(\d+)/.exec(String(h))?.[1]);

describe('GET /v1/boundaries/{geo_type}', () => {
  it('serves the 52 states (50 + DC + PR) as bare GeoJSON with X-Boundary-Vintage and a strong ETag, to Free', async () => {
    const res = await get('/v1/boundaries/state', 'free');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/geo\+json/);
    expect(res.headers['x-boundary-vintage']).toBe('2020');
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const body = JSON.parse(res.body) as FeatureCollection & {
      boundary: { level: string; resolution: string };
      data?: unknown;
      meta?: unknown;
    };
    expect(body.type).toBe('FeatureCollection');
    expect(body.data).toBeUndefined();
    expect(body.meta).toBeUndefined();
    expect(body.boundary).toMatchObject({ level: 'state', resolution: '20m' });
    expect(body.features).toHaveLength(52);
    const keys = body.features.map((f) => f.properties?.geo_key as string);
    expect(new Set(keys).size).toBe(52);
    expect(keys).toEqual(expect.arrayContaining(['state:06', 'state:11', 'state:48', 'state:72']));
    for (const f of body.features) expect(['Polygon', 'MultiPolygon']).toContain(f.geometry.type);
  });

  it('streams the 3,233 counties (2023 edition) to Pioneer, and the 2017 edition on request', async () => {
    const res = await get('/v1/boundaries/county', 'pioneer');
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body) as FeatureCollection;
    expect(body.features).toHaveLength(3233);
    expect(res.headers['x-boundary-vintage']).toBe('2023');
    const legacy = await get('/v1/boundaries/county?edition=2017', 'pioneer');
    expect(legacy.statusCode).toBe(200);
    expect(legacy.headers['x-boundary-vintage']).toBe('2017');
    expect((JSON.parse(legacy.body) as FeatureCollection).features).toHaveLength(3231);
    expect(legacy.headers.etag).not.toBe(res.headers.etag);
  });

  it('cuts a collection to a bbox, with its own ETag', async () => {
    const res = await get('/v1/boundaries/state?bbox=-77.2,38.8,-76.9,39.0', 'free');
    expect(res.statusCode).toBe(200);
    const keys = (JSON.parse(res.body) as FeatureCollection).features.map((f) => f.properties?.geo_key);
    expect(keys).toContain('state:11');
    expect(keys.length).toBeLessThan(10);
    expect(res.headers.etag).not.toBe((await get('/v1/boundaries/state', 'free')).headers.etag);
  });

  it('answers If-None-Match with 304 and no body (also weak, listed, and for ETags holding commas)', async () => {
    const first = await get('/v1/boundaries/state', 'free');
    const etag = String(first.headers.etag);
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const again = await get('/v1/boundaries/state', 'free', { 'if-none-match': inm });
      expect(again.statusCode, inm).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['x-boundary-vintage']).toBe('2020');
    }
    const changed = await get('/v1/boundaries/state', 'free', { 'if-none-match': '"0000"' });
    expect(changed.statusCode).toBe(200);
    expect(JSON.parse(changed.body).features).toHaveLength(52);

    const head = await svc.app.inject({ method: 'HEAD', url: '/v1/boundaries/state', headers: as('free') });
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(etag);
    expect(head.body).toBe('');

    const boxed = await get('/v1/boundaries/state?bbox=-80,30,-70,40', 'free');
    const boxEtag = String(boxed.headers.etag);
    expect(boxEtag).toContain(',');
    expect((await get('/v1/boundaries/state?bbox=-80,30,-70,40', 'free', { 'if-none-match': boxEtag })).statusCode).toBe(304);
  });

  it('refuses malformed input with 4xx problems', async () => {
    for (const [url, status] of [
      // Not one of the closed set of geography types: 422 enum (docs/errors.md).
      ['/v1/boundaries/zip', 422],
      ['/v1/boundaries/state?resolution=10m', 422],
      ['/v1/boundaries/state?bbox=-80,30', 400],
      ['/v1/boundaries/state?bbox=-70,30,-80,40', 400],
      ['/v1/boundaries/state?bbox=a,b,c,d', 422],
      ['/v1/boundaries/state:Texas', 400],
      ['/v1/boundaries/zip:78701', 400],
    ] as const) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(status);
      expect(res.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(res.json().type, url).toMatch(/\/(validation-error|invalid-geo-format)$/);
    }
  });
});

describe('GET /v1/boundaries/{geo_key}', () => {
  it('returns California as one Feature with its own ETag and 304 on a repeat', async () => {
    const res = await get('/v1/boundaries/state:06', 'free');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/geo\+json/);
    expect(res.headers['x-boundary-vintage']).toBe('2020');
    const f = JSON.parse(res.body) as Feature;
    expect(f.type).toBe('Feature');
    expect(f.properties).toMatchObject({ geo_key: 'state:06', name: 'California' });
    expect(f.geometry.type).toBe('MultiPolygon');
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{32}-state:06"$/);
    const again = await get('/v1/boundaries/state:06', 'free', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(
      (
        await get('/v1/boundaries/state:06', 'free', {
          'if-none-match': (await get('/v1/boundaries/state:48', 'free')).headers.etag as string,
        })
      ).statusCode,
    ).toBe(200);
  });

  it('matches a percent-encoded colon', async () => {
    const res = await get('/v1/boundaries/county%3A48453', 'pioneer');
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).properties.geo_key).toBe('county:48453');
  });

  it('answers a geography without a shape with 404, naming the known gap', async () => {
    const missing = await get('/v1/boundaries/state:6');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().type).toMatch(/\/geography-not-found$/);
    const gap = await get('/v1/boundaries/cd:0612');
    expect(gap.statusCode).toBe(404);
    expect(gap.json().detail).toMatch(/CA \(06\)/);
  });
});

describe('plan gates', () => {
  // One real key per level, each in that level's 20m file (cd: NY-12; tract: DC, 2010 definitions).
  const KEY: Record<string, string> = {
    nation: 'nation:1',
    state: 'state:48',
    county: 'county:48453',
    metro: 'metro:12420',
    cd: 'cd:3612',
    tract: 'tract:11001009700',
    block_group: 'block_group:110010097001',
  };
  const LEVELS_BY_PLAN: Record<PlanId, string[]> = {
    free: ['nation', 'state'],
    pioneer: ['nation', 'state', 'county', 'metro', 'cd'],
    pro: ['nation', 'state', 'county', 'metro', 'cd', 'tract'],
    business: ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'block_group'],
    enterprise: ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'block_group'],
  };
  const UNLOCKS: Record<string, PlanId> = {
    nation: 'free',
    state: 'free',
    county: 'pioneer',
    metro: 'pioneer',
    cd: 'pioneer',
    tract: 'pro',
    block_group: 'business',
  };

  it('gives each plan exactly its boundary levels; others are 403 naming the plan that unlocks them', async () => {
    for (const plan of PLAN_IDS) {
      for (const [level, key] of Object.entries(KEY)) {
        const res = await get(`/v1/boundaries/${key}`, plan);
        const where = `${plan} ${key}`;
        if (LEVELS_BY_PLAN[plan].includes(level)) {
          if (level === 'block_group') {
            // Allowed, but no block-group shapes exist in the sources: 404 with the reason, never 403.
            expect(res.statusCode, where).toBe(404);
            expect(res.json().type, where).toMatch(/\/not-found$/);
          } else {
            expect(res.statusCode, `${where}: ${res.body.slice(0, 200)}`).toBe(200);
            expect(JSON.parse(res.body).properties.geo_key, where).toBe(key);
          }
        } else {
          expect(res.statusCode, where).toBe(403);
          const body = res.json();
          expect(body.type, where).toMatch(/\/feature-requires-upgrade$/);
          expect(body.required_plan, where).toBe(UNLOCKS[level]);
          expect(body.upgrade_url, where).toMatch(new RegExp(`/billing\\?plan=${UNLOCKS[level]}$`));
        }
      }
    }
  });

  it('gates collections the same way (Free county → 403, Pioneer county → 200)', async () => {
    const free = await get('/v1/boundaries/county', 'free');
    expect(free.statusCode).toBe(403);
    expect(free.json()).toMatchObject({ required_plan: 'pioneer' });
    const pro = await get('/v1/boundaries/block_group', 'pro');
    expect(pro.statusCode).toBe(403);
    expect(pro.json()).toMatchObject({ required_plan: 'business' });
  });

  it('allows 20m to all, 5m from Business and 500k to Enterprise only', async () => {
    const expected: Record<PlanId, Record<string, number>> = {
      free: { '20m': 403, '5m': 403, '500k': 403 },
      pioneer: { '20m': 200, '5m': 403, '500k': 403 },
      pro: { '20m': 200, '5m': 403, '500k': 403 },
      business: { '20m': 200, '5m': 200, '500k': 403 },
      enterprise: { '20m': 200, '5m': 200, '500k': 200 },
    };
    for (const plan of PLAN_IDS) {
      for (const resolution of ['20m', '5m', '500k']) {
        // NY-12 exists at every resolution; Free is refused for the cd level itself.
        const res = await get(`/v1/boundaries/cd:3612?resolution=${resolution}`, plan);
        const where = `${plan} ${resolution}`;
        expect(res.statusCode, where).toBe(expected[plan][resolution]);
        if (res.statusCode === 403 && plan !== 'free') {
          expect(res.json().required_plan, where).toBe(resolution === '5m' ? 'business' : 'enterprise');
        }
        if (res.statusCode === 200) expect(JSON.parse(res.body).properties.geo_key, where).toBe('cd:3612');
      }
    }
    // Free asking for state at 5m: the resolution is what is missing.
    const free5m = await get('/v1/boundaries/state?resolution=5m', 'free');
    expect(free5m.statusCode).toBe(403);
    expect(free5m.json()).toMatchObject({ required_plan: 'business' });
    const free500k = await get('/v1/boundaries/state:06?resolution=500k', 'free');
    expect(free500k.json()).toMatchObject({ required_plan: 'enterprise', upgrade_url: expect.stringMatching(/plan=enterprise$/) });
  });

  it('answers a resolution the plan allows but the data lacks with 404 and the reason', async () => {
    const res = await get('/v1/boundaries/state?resolution=5m', 'business');
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toMatch(/5m/);
  });
});

describe('metering', () => {
  it('costs 0 units for plans with access; a gated request is refused before admission', async () => {
    const a = await get('/v1/boundaries/state', 'pioneer');
    const b = await get('/v1/boundaries/county:48453', 'pioneer');
    const c = await get('/v1/centroids/county', 'pioneer');
    for (const r of [a, b, c]) {
      expect(r.statusCode).toBe(200);
      expect(monthlyLeft(r.headers.ratelimit)).toBe(50_000);
    }
    // Admitted requests still count against the per-minute burst.
    expect(burstLeft(b.headers.ratelimit)).toBe(burstLeft(a.headers.ratelimit) - 1);
    const refused = await get('/v1/boundaries/tract', 'pioneer');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers.ratelimit).toBeTruthy();
    expect(burstLeft(refused.headers.ratelimit)).toBe(burstLeft(c.headers.ratelimit));
    expect(monthlyLeft(refused.headers.ratelimit)).toBe(50_000);
  });
});

describe('GET /v1/centroids/{geo_type}', () => {
  it('serves state population centers as GeoJSON Points to Free', async () => {
    const res = await get('/v1/centroids/state', 'free');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/geo\+json/);
    expect(res.headers['x-boundary-vintage']).toBe('2020');
    const body = JSON.parse(res.body) as FeatureCollection<GeoJSON.Point> & { centroids: { level: string; kind: string } };
    expect(body.centroids).toMatchObject({ level: 'state', kind: 'population_center' });
    expect(body.features).toHaveLength(52);
    const tx = body.features.find((f) => f.properties?.geo_key === 'state:48')!;
    expect(tx.geometry.type).toBe('Point');
    const [lng, lat] = tx.geometry.coordinates as [number, number];
    expect(lng).toBeGreaterThan(-107);
    expect(lng).toBeLessThan(-93);
    expect(lat).toBeGreaterThan(25);
    expect(lat).toBeLessThan(37);
    const again = await get('/v1/centroids/state', 'free', { 'if-none-match': String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('gates levels like boundaries: Free county → 403 (pioneer), Pro tract in a bbox → 200, Pro block_group → 403 (business)', async () => {
    const free = await get('/v1/centroids/county', 'free');
    expect(free.statusCode).toBe(403);
    expect(free.json()).toMatchObject({ required_plan: 'pioneer', upgrade_url: expect.stringMatching(/plan=pioneer$/) });
    const tracts = await get('/v1/centroids/tract?bbox=-97.76,30.26,-97.73,30.28', 'pro');
    expect(tracts.statusCode).toBe(200);
    const body = JSON.parse(tracts.body) as FeatureCollection & { centroids: { kind: string } };
    expect(body.centroids.kind).toBe('population_center');
    expect(body.features.length).toBeGreaterThan(0);
    expect(body.features.every((f) => String(f.properties?.geo_key).startsWith('tract:48453'))).toBe(true);
    const bg = await get('/v1/centroids/block_group?bbox=-97.76,30.26,-97.73,30.28', 'pro');
    expect(bg.statusCode).toBe(403);
    expect(bg.json()).toMatchObject({ required_plan: 'business' });
    expect((await get('/v1/centroids/block_group?bbox=-97.76,30.26,-97.73,30.28', 'business')).statusCode).toBe(200);
  });

  it('refuses an unknown type with 422 enum on the path segment', async () => {
    const res = await get('/v1/centroids/zip');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'path → geo_type', type: 'enum' });
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('auth', () => {
  it('requires a key on boundaries and centroids (auth matrix)', async () => {
    await assertAuthMatrix(svc.app, [{ url: '/v1/boundaries/state' }, { url: '/v1/boundaries/state:06' }, { url: '/v1/centroids/state' }], {
      valid: svc.keys.enterprise,
    });
  });
});
