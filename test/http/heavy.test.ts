// Bounded heavy requests (issue 12): large answers are streamed and equal what the serializer
// would have produced; answers past the bound are refused up front with 413 and not charged;
// heavy requests queue among themselves while light ones pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeavyGate } from '../../src/http/heavy-gate.js';
import { MAX_GEOMETRY_GEOGRAPHIES, MAX_RESPONSE_CELLS } from '../../src/domain/row-cap.js';
import { startService, type Service } from '../support/service.js';

const VARS = [
  'B01002_001E',
  'B19013_001E',
  'B19301_001E',
  'B19113_001E',
  'B17001_002E',
  'B25010_001E',
  'B01001_002E',
  'B01001_026E',
  'B01002_002E',
  'B01002_003E',
];
const VARS40 = [
  ...VARS,
  'B02001_002E',
  'B02001_003E',
  'B02001_004E',
  'B02001_005E',
  'B02001_006E',
  'B02001_007E',
  'B02001_008E',
  'B03002_012E',
  'B03002_003E',
  'B03002_004E',
  'B03002_005E',
  'B03002_006E',
  'B03002_007E',
  'B03002_008E',
  'B03002_009E',
  'B19001_002E',
  'B19001_003E',
  'B19001_004E',
  'B19001_005E',
  'B19001_006E',
  'B19001_007E',
  'B19001_008E',
  'B19001_009E',
  'B19001_010E',
  'B19001_011E',
  'B19001_012E',
  'B19001_013E',
  'B19001_014E',
  'B19001_015E',
  'B19001_016E',
];

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
