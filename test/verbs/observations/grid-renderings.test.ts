// The data verb renders from the engine's grid (src/verbs/observations/engine.ts) rather than from
// cell objects: format=compact (compact.ts, compactGrid) and the long format's JSON
// (cells-json.ts, VerbResult.itemsJson: UTF-8 chunks). Each must be exactly what the cells give: compactCells
// of the long format's cells (the definition, compact-reference.ts), JSON.stringify of each cell, and over HTTP the
// response serializer's bytes, with the result cache on and off.
import { describe, expect, it } from 'vitest';
import { envelopeSchema } from '../../../src/http/envelope.js';
import { keptStreamBytes, STREAM_MIN_ITEMS } from '../../../src/http/stream-envelope.js';
import { getData, longFormat } from '../../../src/verbs/get-data.js';
import { isSharedCompact } from '../../../src/verbs/observations/answer-cache.js';
import { TEXT_MAX_CELLS } from '../../../src/verbs/observations/cells-json.js';
import { isCompactData } from '../../../src/verbs/observations/compact.js';
import { compactCells } from './compact-reference.js';
import { verbContext } from '../../support/context.js';
import { storesAndService } from '../../support/data-stores.js';
import { startService } from '../../support/service.js';

const env = storesAndService();

const TEN = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E,B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E';

const REQUESTS = [
  // Every county (6,444 cells: a streamed answer).
  { variables: 'B01003_001E,B25001_001E', geo: 'county:*', dataset: 'acs5' as const, vintage: 2023 },
  // Every state: published values, jam values as annotated nulls.
  { variables: TEN, geo: 'state:*', dataset: 'acs1' as const, vintage: 2018 },
  // Catalog variables (one derived from a formula) beside a census code.
  {
    variables: 'core_median_household_income,core_total_population,B01002_001E',
    geo: 'state:06,state:72,state:11',
    dataset: 'acs1' as const,
    vintage: 2017,
  },
  // Several levels in one answer: states, counties (some below the acs1 threshold) and a tract (no acs1 rows).
  {
    variables: 'B19013_001E,B25077_001E',
    geo: 'state:06,county:06001,county:48301,tract:06001400100',
    dataset: 'acs1' as const,
    vintage: 2018,
  },
  // A vintage the build holds nothing for: every cell null with its reason.
  { variables: 'B19013_001E', geo: 'state:06,state:48', dataset: 'acs5' as const, vintage: 2012 },
];

/** Cells per geography, in order (a geography's cells are consecutive within its level and vintage). */
const perGeography = (cells: Array<{ geo_key: string; vintage: number }>) =>
  cells.reduce<number[]>((runs, c, i) => {
    const prev = cells[i - 1];
    if (prev && prev.geo_key === c.geo_key && prev.vintage === c.vintage) runs[runs.length - 1]!++;
    else runs.push(1);
    return runs;
  }, []);

const urlOf = (input: (typeof REQUESTS)[number]) =>
  `/v1/data?variables=${input.variables}&geo=${input.geo}&dataset=${input.dataset}&vintage=${input.vintage}`;

describe('renderings from the grid', () => {
  for (const [i, input] of REQUESTS.entries()) {
    it(`request ${i + 1} (${input.geo} × ${input.variables.split(',').length}): compact is compactCells of the cells and the JSON chunks the cells' JSON.stringify, byte for byte`, async () => {
      for (const data of [env.cached, env.uncached]) {
        const ctx = verbContext(data.stores);
        const compact = await getData({ ctx, input, format: 'compact' });
        const long = longFormat(await getData({ ctx, input }));
        expect(long.data.length).toBeGreaterThan(0);
        expect(isCompactData(compact.data)).toBe(true);
        expect(JSON.stringify(compact.data)).toBe(
          JSON.stringify(compactCells(long.data, { dataset: input.dataset, vintage: input.vintage })),
        );
        expect(compact.meta).toEqual(long.meta);
        const cellsText = long.data.map((c) => JSON.stringify(c)).join(',');
        // Whatever the chunk size (one cell a chunk, a few, all), the chunks are the cells' JSON.
        for (const chunkBytes of [1, 2_000, 1 << 20]) {
          const chunks = [...long.itemsJson!.chunks(chunkBytes)];
          expect(Buffer.concat(chunks).toString('utf8')).toBe(cellsText);
          // Chunks end at a cell's end: each one is whole cells, after the comma that separates it
          // from the one before (at the smallest size, one geography's cells; a small answer is one chunk).
          if (chunkBytes === 1)
            expect(chunks.map((c, k) => JSON.parse(`[${String(k === 0 ? c : c.subarray(1))}]`).length)).toEqual(
              long.data.length > TEXT_MAX_CELLS ? perGeography(long.data) : [long.data.length],
            );
        }
      }
    });
  }

  it('the compact table is kept beside the cached answer, and nothing is kept with the result cache off', async () => {
    const input = REQUESTS[1]!;
    const a = await getData({ ctx: verbContext(env.cached.stores), input, format: 'compact' });
    const b = await getData({ ctx: verbContext(env.cached.stores), input, format: 'compact' });
    expect(b.data).toBe(a.data);
    expect(isSharedCompact(a.data as object)).toBe(true);
    const c = await getData({ ctx: verbContext(env.uncached.stores), input, format: 'compact' });
    const d = await getData({ ctx: verbContext(env.uncached.stores), input, format: 'compact' });
    expect(d.data).not.toBe(c.data);
    expect(isSharedCompact(c.data as object)).toBe(false);
    expect(JSON.stringify(c.data)).toBe(JSON.stringify(a.data));
  });

  it('a streamed answer (more than STREAM_MIN_ITEMS cells) is exactly the JSON of its cells', async () => {
    const input = REQUESTS[0]!;
    const res = await env.svc.app.inject({ url: urlOf(input), headers: { 'x-api-key': env.svc.keys.pro } });
    expect(res.statusCode).toBe(200);
    const cells = longFormat(await getData({ ctx: verbContext(env.uncached.stores), input })).data;
    expect(cells.length).toBeGreaterThan(STREAM_MIN_ITEMS);
    expect(res.body.startsWith(`{"data":${JSON.stringify(cells)},"meta":`)).toBe(true);
  });

  it('a cached streamed answer is sent again from the bytes kept at its first request, the same bytes', async () => {
    // Every county × one variable: 3,222 cells, streamed, asked for nowhere else in this file.
    const url = '/v1/data?variables=B25001_001E&geo=county:*&dataset=acs5&vintage=2023';
    const headers = { 'x-api-key': env.svc.keys.pro };
    const before = keptStreamBytes();
    const first = await env.svc.app.inject({ url, headers });
    const kept = keptStreamBytes();
    const second = await env.svc.app.inject({ url, headers });
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
        const res = await off.app.inject({ url: urlOf(input), headers: { 'x-api-key': off.keys.pro } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.body).toBe(JSON.stringify(envelopeSchema(getData.spec.output!).parse(res.json())));
        const cells = longFormat(await getData({ ctx: verbContext(env.uncached.stores), input })).data;
        expect(res.json().data).toEqual(JSON.parse(JSON.stringify(cells)));
      }
    } finally {
      await off.close();
    }
  });
});
