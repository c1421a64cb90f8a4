// Loose place names through HTTP (issue 37 §5): docs/profile.md's example "Austin-Round Rock"
// names the Austin metro as a parent (the explorer's Within, a profile's path) and inside a
// `geo=` name specifier; a start shared by several places answers 400 with candidates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const get = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });

beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(() => svc?.close());

describe('loose place names over HTTP', () => {
  it('/v1/geographies/Austin-Round Rock/children resolves the metro', async () => {
    const r = await get(`/v1/geographies/${encodeURIComponent('Austin-Round Rock')}/children?type=county&vintage=2023`);
    expect(r.statusCode).toBe(200);
    const body = r.json<{ meta: { parent: { geo_key: string } }; data: { geo_key: string }[] }>();
    expect(body.meta.parent.geo_key).toBe('metro:12420');
    expect(body.data.map((g) => g.geo_key)).toContain('county:48453');
  });
  it('geo=county:Austin-Round Rock expands to the metro’s counties', async () => {
    const r = await get(`/v1/data?variables=B01003_001E&geo=${encodeURIComponent('county:Austin-Round Rock')}&dataset=acs5&vintage=2023`);
    expect(r.statusCode).toBe(200);
    const keys = r.json<{ data: { geo_key: string }[] }>().data.map((c) => c.geo_key);
    expect(keys).toContain('county:48453');
    expect(keys).toContain('county:48491');
  });
  it('a start shared by several places is 400 ambiguous-geography-name with candidates', async () => {
    const r = await get(`/v1/geographies/${encodeURIComponent('Los Alam')}/children?type=tract&limit=1`);
    expect(r.statusCode).toBe(400);
    const body = r.json<{ type: string; candidates: { key: string }[] }>();
    expect(body.type).toMatch(/ambiguous-geography-name$/);
    expect(body.candidates.length).toBeGreaterThan(1);
  });
});
