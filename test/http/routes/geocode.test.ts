// /v1/geocode through HTTP on the real geocoder data (county, district and tract shapes, the
// address fixtures) with real keys for every plan.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_IDS, type PlanId } from '../../../src/domain/plans.js';
import { assertAuthMatrix } from '../auth-matrix.js';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const get = (url: string, plan: PlanId = 'free') => svc.app.inject({ url, headers: { 'x-api-key': svc.keys[plan] } });

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const monthlyLeft = (h: unknown) => Number(/"monthly";r=(\d+)/.exec(String(h))?.[1]);

describe('GET /v1/geocode by coordinates', () => {
  it('puts the White House (38.8977, -77.0365) in DC, in the envelope', async () => {
    const res = await get('/v1/geocode?lat=38.8977&lng=-77.0365');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.data.input).toEqual({ lat: 38.8977, lng: -77.0365 });
    expect(body.data.status).toBe('matched');
    expect(body.data.reason).toBeNull();
    const g = body.data.geographies;
    expect(g.nation.key).toBe('nation:1');
    expect(g.state).toMatchObject({ key: 'state:11', name: 'District of Columbia', approximate: false });
    expect(g.county.key).toBe('county:11001');
    expect(g.county).toMatchObject({ method: 'polygon', boundary_vintage: '2023' });
    expect(g.metro.key).toBe('metro:47900');
    expect(g.cd.key).toBe('cd:1198');
    expect(g.tract.key).toMatch(/^tract:11001\d{6}$/);
    expect(g.block_group.key).toMatch(/^block_group:11001\d{7}$/);
    expect(g.block_group.approximate).toBe(true);
    expect(body.meta).toMatchObject({ request_id: res.headers['x-request-id'], source: null });
    expect(body.links).toMatchObject({ next: null, prev: null });
  });

  it('accepts lon as an alias of lng', async () => {
    const a = (await get('/v1/geocode?lat=30.2672&lng=-97.7431')).json();
    const b = (await get('/v1/geocode?lat=30.2672&lon=-97.7431')).json();
    expect(b.data.geographies).toEqual(a.data.geographies);
    expect(b.data.geographies.county.key).toBe('county:48453');
    expect(b.data.geographies.metro.key).toBe('metro:12420');
  });

  it('answers a point at sea with 200 no_match and the reason', async () => {
    const res = await get('/v1/geocode?lat=0&lng=-30');
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data.status).toBe('no_match');
    expect(data.reason).toEqual(expect.any(String));
    expect(data.geographies.county).toMatchObject({ key: null, reason: expect.any(String) });
  });

  it('serves every plan, one unit per request', async () => {
    for (const plan of PLAN_IDS) {
      const res = await get('/v1/geocode?lat=38.8977&lng=-77.0365', plan);
      expect(res.statusCode, plan).toBe(200);
      expect(res.json().data.geographies.state.key, plan).toBe('state:11');
    }
    const a = await get('/v1/geocode?lat=38.8977&lng=-77.0365', 'pro');
    const b = await get('/v1/geocode?lat=38.8977&lng=-77.0365', 'pro');
    expect(monthlyLeft(a.headers.ratelimit) - monthlyLeft(b.headers.ratelimit)).toBe(1);
  });
});

describe('GET /v1/geocode by address', () => {
  it('matches 1016-18 Willow Ave, Hoboken (OpenAddresses fixture) to Hudson County NJ in the New York metro', async () => {
    const res = await get(`/v1/geocode?address=${encodeURIComponent('1016-18 WILLOW AVE, HOBOKEN, NJ 07030')}`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data.input).toEqual({ address: '1016-18 WILLOW AVE, HOBOKEN, NJ 07030' });
    expect(data.status).toBe('matched');
    expect(data.parsed).toMatchObject({
      street_key: 'WILLOW AVE',
      state: 'NJ',
      zip: '07030',
      number: { label: '1016-18', lo: 1016, hi: 1018 },
    });
    expect(data.match).toMatchObject({ quality: 'exact', county: '34017', state: '34', zip: '07030' });
    expect(data.match.coordinates.lat).toBeCloseTo(40.75, 1);
    expect(data.match.coordinates.lng).toBeCloseTo(-74.03, 1);
    expect(data.geographies.county.key).toBe('county:34017');
    // Official names, as every other endpoint gives them (the boundary file says "Hudson, New Jersey").
    expect(data.geographies.county.name).toBe('Hudson County, New Jersey');
    expect(data.geographies.state.key).toBe('state:34');
    expect(data.geographies.metro.key).toBe('metro:35620');
    expect(data.candidates.length).toBeGreaterThanOrEqual(1);
  });

  it('answers an address outside the coverage and unparseable text with 200 no_match and reasons', async () => {
    const out = (await get(`/v1/geocode?address=${encodeURIComponent('1600 Pennsylvania Ave NW, Washington, DC 20500')}`)).json();
    expect(out.data).toMatchObject({ status: 'no_match', reason: expect.stringMatching(/outside the address coverage/) });
    const junk = (await get(`/v1/geocode?address=${encodeURIComponent('somewhere over the rainbow')}`)).json();
    expect(junk.data).toMatchObject({ status: 'no_match', reason: expect.stringMatching(/unparseable/) });
  });
});

describe('GET /v1/geocode input errors', () => {
  it.each([
    ['neither form', '', 'query → address'],
    ['only lat', 'lat=38.9', 'query → lng'],
    ['only lng', 'lng=-77', 'query → lat'],
    ['both forms', 'lat=38.9&lng=-77&address=1%20Main%20St', 'query → address'],
    ['lat out of range', 'lat=91&lng=-77', 'query → lat'],
    ['lng out of range', 'lat=38&lng=181', 'query → lng'],
    ['lng and lon disagree', 'lat=38&lng=-77&lon=-78', 'query → lon'],
  ])('%s → 400 validation-error naming the field', async (_label, q, field) => {
    const res = await get(`/v1/geocode${q ? `?${q}` : ''}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.type).toMatch(/\/validation-error$/);
    expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('non-numeric lat → 422 float_parsing (cannot be read as a number)', async () => {
    const res = await get('/v1/geocode?lat=north&lng=-77');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'query → lat', message: 'Input should be a valid number', type: 'float_parsing' }]);
  });

  it('caps address length', async () => {
    const res = await get(`/v1/geocode?address=${'9'.repeat(400)}`);
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });

  it('requires a key (auth matrix)', async () => {
    await assertAuthMatrix(
      svc.app,
      [{ url: '/v1/geocode?lat=38.8977&lng=-77.0365' }, { url: '/v1/geocode?address=1016-18%20Willow%20Ave%2C%20Hoboken%2C%20NJ' }],
      { valid: svc.keys.free },
    );
  });
});
