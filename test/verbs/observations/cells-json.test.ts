// Large long-format answers are written from the engine's grid (src/verbs/observations/cells-json.ts)
// rather than by JSON.stringify of each cell object. The text must be exactly that stringify, cell
// for cell, and the streamed HTTP body exactly the JSON of the cells.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../../src/context/verb-context.js';
import { envelopeSchema } from '../../../src/http/envelope.js';
import { keptStreamBytes, STREAM_MIN_ITEMS } from '../../../src/http/stream-envelope.js';
import { openDataStores } from '../../../src/store/open.js';
import { getData, longFormat } from '../../../src/verbs/get-data.js';
import { testBuildDir } from '../../support/build.js';
import { verbContext } from '../../support/context.js';
import { startService, type Service } from '../../support/service.js';

let cached: { stores: Stores; close: () => void };
let uncached: { stores: Stores; close: () => void };
let svc: Service;
beforeAll(async () => {
  const dir = await testBuildDir();
  cached = await openDataStores(dir, { warn: () => {} });
  uncached = await openDataStores(dir, { warn: () => {} }, { cacheCells: 0 });
  svc = await startService();
}, 300_000);
afterAll(async () => {
  cached?.close();
  uncached?.close();
  await svc?.close();
});

const REQUESTS = [
  // Every county (6,444 cells: streamed), values and annotated nulls.
  { variables: 'B01003_001E,B25001_001E', geo: 'county:*', dataset: 'acs5' as const, vintage: 2023 },
  { variables: 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E', geo: 'state:*', dataset: 'acs1' as const, vintage: 2018 },
  // Catalog variables (one derived) beside a census code.
  {
    variables: 'core_median_household_income,core_total_population,B01002_001E',
    geo: 'state:06,state:72,state:11',
    dataset: 'acs1' as const,
    vintage: 2017,
  },
  // Several levels, nulls of every reason.
  {
    variables: 'B19013_001E,B25077_001E',
    geo: 'state:06,county:06001,county:48301,tract:06001400100',
    dataset: 'acs1' as const,
    vintage: 2018,
  },
];

describe('long-format JSON from the grid', () => {
  for (const [i, input] of REQUESTS.entries()) {
    it(`request ${i + 1} (${input.geo}): each cell's text is JSON.stringify of the cell`, async () => {
      for (const data of [cached, uncached]) {
        const r = longFormat(await getData({ ctx: verbContext(data.stores), input }));
        expect(r.itemsJson).toBeDefined();
        const texts = [...r.itemsJson!.items()];
        expect(r.data.length).toBeGreaterThan(0);
        expect(texts).toEqual(r.data.map((c) => JSON.stringify(c)));
      }
    });
  }

  it('a streamed answer (more than STREAM_MIN_ITEMS cells) is exactly the JSON of its cells', async () => {
    const input = REQUESTS[0]!;
    const res = await svc.app.inject({
      url: `/v1/data?variables=${input.variables}&geo=${input.geo}&dataset=${input.dataset}&vintage=${input.vintage}`,
      headers: { 'x-api-key': svc.keys.pro },
    });
    expect(res.statusCode).toBe(200);
    const cells = longFormat(await getData({ ctx: verbContext(uncached.stores), input })).data;
    expect(cells.length).toBeGreaterThan(STREAM_MIN_ITEMS);
    expect(res.body.startsWith(`{"data":${JSON.stringify(cells)},"meta":`)).toBe(true);
  });

  it('a cached streamed answer is sent again from the bytes kept at its first request, the same bytes', async () => {
    // Every county × one variable: 3,222 cells, streamed, asked for nowhere else in this file.
    const url = '/v1/data?variables=B25001_001E&geo=county:*&dataset=acs5&vintage=2023';
    const headers = { 'x-api-key': svc.keys.pro };
    const before = keptStreamBytes();
    const first = await svc.app.inject({ url, headers });
    const kept = keptStreamBytes();
    const second = await svc.app.inject({ url, headers });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    // The first request's data part was kept (the service's result cache is on), the second added none.
    expect(kept - before).toBeGreaterThan(1_000_000);
    expect(keptStreamBytes()).toBe(kept);
    const dataOf = (body: string) => body.slice(0, body.indexOf('],"meta":') + 1);
    expect(dataOf(second.body)).toBe(dataOf(first.body));
    expect(second.json().data).toEqual(first.json().data);
    expect(second.json().meta.request_id).not.toBe(first.json().meta.request_id);
  });

  it('an answer computed afresh (result cache off) is sent with the bytes of the response serializer', async () => {
    const off = await startService({ config: { OBSERVATION_CACHE_CELLS: 0 } });
    try {
      for (const input of REQUESTS.slice(1)) {
        const url = `/v1/data?variables=${input.variables}&geo=${input.geo}&dataset=${input.dataset}&vintage=${input.vintage}`;
        const res = await off.app.inject({ url, headers: { 'x-api-key': off.keys.pro } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.body).toBe(JSON.stringify(envelopeSchema(getData.spec.output!).parse(res.json())));
        const cells = longFormat(await getData({ ctx: verbContext(uncached.stores), input })).data;
        expect(res.json().data).toEqual(JSON.parse(JSON.stringify(cells)));
      }
    } finally {
      await off.close();
    }
  });
});
