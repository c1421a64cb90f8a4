// Bounded heavy requests (issue 12): large answers are streamed and equal what the serializer
// would have produced; answers past the bound are refused up front with 413 and not charged;
// heavy requests queue among themselves while light ones pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAVY_VARIABLES } from '../../bench/lib/heavy-request.js';
import { HeavyGate } from '../../src/verbs/lifecycle/heavy-gate.js';
import { MAX_GEOMETRY_GEOGRAPHIES, MAX_RESPONSE_CELLS } from '../../src/domain/row-cap.js';
import { startService, type Service } from '../support/service.js';

const VARS40 = HEAVY_VARIABLES;
const VARS = VARS40.slice(0, 10);

let svc: Service;
beforeAll(async () => {
  svc = await startService({ config: { HEAVY_CONCURRENCY: 1, HEAVY_QUEUE: 0 } });
});
afterAll(async () => svc?.close());

const get = (url: string, key = svc.keys.enterprise) => svc.app.inject({ url, headers: { 'x-api-key': key } });
const remaining = (res: { headers: Record<string, unknown> }) => Number(/"monthly";r=(\d+)/.exec(String(res.headers['ratelimit']))![1]);

describe('large answers', () => {
  it("are streamed as valid JSON, each geometry serialized like the small answer's", async () => {
    const big = await get(`/v1/data?variables=${VARS40.join(',')}&geo=state:*&dataset=acs1&vintage=2018&include_geometry=true`);
    expect(big.statusCode).toBe(200);
    expect(big.headers['content-type']).toMatch(/^application\/json/);
    const body = big.json();
    expect(body.data.length).toBeGreaterThan(2_000); // past STREAM_MIN_ITEMS: the streamed path
    expect(body.meta.request_id).toBe(big.headers['x-request-id']);
    expect(body.links.self).toContain('/v1/data?');
    // Byte for byte what JSON.stringify writes (geometry is each cell's last field), though the
    // geometries are written from shared buffers.
    expect(big.body).toBe(JSON.stringify(body));
    // A second answer reuses the shapes (and their bytes) the first one decoded: still the same bytes.
    const again = await get(`/v1/data?variables=${VARS40.join(',')}&geo=state:*&dataset=acs1&vintage=2018&include_geometry=true`);
    expect(again.body.replace(/"request_id":"[^"]+","elapsed_ms":\d+/, '')).toBe(
      big.body.replace(/"request_id":"[^"]+","elapsed_ms":\d+/, ''),
    );
    const small = (await get('/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018&include_geometry=true')).json();
    const ca = body.data.find(
      (c: { geo_key: string; variable: string }) => c.geo_key === 'state:06' && c.variable === small.data[0].variable,
    );
    expect(ca).toEqual(small.data[0]);
  });

  it(`past ${MAX_RESPONSE_CELLS} cells: 413 up front with the way to narrow it, nothing charged`, async () => {
    const before = remaining(await get('/v1/topics'));
    const res = await get(`/v1/data?variables=${VARS40.slice(0, 30).join(',')}&geo=tract:06*&dataset=acs5&vintage=2022`);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ type: expect.stringMatching(/payload-too-large$/), cell_cap: MAX_RESPONSE_CELLS });
    expect(res.json().detail).toMatch(/fewer variables|smaller wildcard/);
    expect(remaining(await get('/v1/topics'))).toBe(before - 1);
  });

  it(`geometry for more than ${MAX_GEOMETRY_GEOGRAPHIES} geographies: 413 pointing to /v1/boundaries`, async () => {
    const res = await get('/v1/data?variables=B01003_001E&geo=tract:06*&dataset=acs5&vintage=2022&include_geometry=true');
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toContain('/v1/boundaries');
  });
});

describe('heavy queue', () => {
  it('heavy requests beyond HEAVY_CONCURRENCY + HEAVY_QUEUE answer 503 with Retry-After; a light request passes meanwhile', async () => {
    const heavy = `/v1/data?variables=${VARS.join(',')}&geo=state:*&dataset=acs1&vintage=2017&include_geometry=true`;
    const [a, b, light] = await Promise.all([get(heavy), get(heavy.replace('2017', '2015')), get('/v1/topics')]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 503]);
    const refused = a.statusCode === 503 ? a : b;
    expect(refused.headers['retry-after']).toBe('2');
    expect(light.statusCode).toBe(200);
  });

  it('HeavyGate: at most `concurrency` run, the rest wait in order, the full queue is refused', async () => {
    const gate = new HeavyGate(2, 1);
    const r1 = await gate.acquire();
    const r2 = await gate.acquire();
    let third = false;
    const p3 = gate.acquire().then((r) => ((third = true), r));
    await expect(gate.acquire()).rejects.toMatchObject({ code: 'dependency-unavailable' });
    await new Promise((r) => setTimeout(r, 10));
    expect(third).toBe(false);
    r1();
    r1(); // idempotent
    const r3 = await p3;
    expect(third).toBe(true);
    expect(gate.inFlight).toBe(2);
    r2();
    r3();
    expect(gate.inFlight).toBe(0);
  });
});
