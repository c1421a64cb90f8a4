// `within=` on /v1/boundaries/{geo_type}: the shapes inside one parent only (a county's tracts, a
// state's counties), on the real boundary build through HTTP: exactly the parent's children of
// the full collection, a fraction of its bytes, an ETag of its own, and clear 4xx for a parent
// whose children do not nest by code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeatureCollection } from 'geojson';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const get = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });
const keysOf = (body: string) => (JSON.parse(body) as FeatureCollection).features.map((f) => String(f.properties!.geo_key));

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

describe('GET /v1/boundaries/{geo_type}?within=', () => {
  it('regression: a county’s tracts only (Cook County), the same shapes as in the whole collection', async () => {
    const all = await get('/v1/boundaries/tract');
    expect(all.statusCode).toBe(200);
    const cook = keysOf(all.body).filter((k) => k.startsWith('tract:17031'));
    expect(cook.length).toBeGreaterThan(100);
    const res = await get('/v1/boundaries/tract?within=county:17031');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/geo\+json/);
    expect(keysOf(res.body).sort()).toEqual(cook.sort());
    // The same features byte for byte as in the whole file.
    const whole = new Map((JSON.parse(all.body) as FeatureCollection).features.map((f) => [f.properties!.geo_key, JSON.stringify(f)]));
    for (const f of (JSON.parse(res.body) as FeatureCollection).features) expect(JSON.stringify(f)).toBe(whole.get(f.properties!.geo_key));
    expect(res.body.length).toBeLessThan(all.body.length / 20);
    console.log(`boundaries: tracts of Cook County ${(res.body.length / 1e6).toFixed(2)} MB of ${(all.body.length / 1e6).toFixed(1)} MB`);
    expect(res.headers.etag).not.toBe(all.headers.etag);
    expect(
      (
        await svc.app.inject({
          url: '/v1/boundaries/tract?within=county:17031',
          headers: { 'x-api-key': svc.keys.enterprise, 'if-none-match': String(res.headers.etag) },
        })
      ).statusCode,
    ).toBe(304);
  });

  it('a state’s counties', async () => {
    const res = await get('/v1/boundaries/county?within=state:48');
    expect(res.statusCode).toBe(200);
    const keys = keysOf(res.body);
    expect(keys).toHaveLength(254);
    expect(keys.every((k) => k.startsWith('county:48'))).toBe(true);
  });

  it('refuses a parent whose children do not nest by code (400) and a malformed one (422)', async () => {
    const a = await get('/v1/boundaries/county?within=county:17031');
    expect(a.statusCode).toBe(400);
    expect(a.json().type).toMatch(/unsupported-child-type$/);
    expect(a.json().detail).toContain('within= takes state keys for county');
    const b = await get('/v1/boundaries/county?within=metro:12420');
    expect([400, 422]).toContain(b.statusCode);
    expect(b.headers['content-type']).toMatch(/problem\+json/);
  });
});
