// Repeated identical data requests are answered from kept cells (src/verbs/observations/answer-cache.ts)
// and their JSON rendered once (route-helpers.ts): the same cells and the same bytes as computed
// afresh, nothing kept when the result cache is off, and the bytes of the response serializer.
import { describe, expect, it } from 'vitest';
import { envelopeSchema } from '../../src/http/envelope.js';
import { getData } from '../../src/verbs/get-data.js';
import { isSharedAnswer } from '../../src/verbs/observations/answer-cache.js';
import { storesAndService } from '../support/data-stores.js';
import { verbContext } from '../support/context.js';

const TEN = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E,B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E';
const input = { variables: TEN, geo: 'state:*', dataset: 'acs1' as const, vintage: 2018 };

const env = storesAndService();

describe('answer cache', () => {
  it('a repeated request gets the same kept cells, equal to cells computed afresh; none are kept with the result cache off', async () => {
    const first = await getData({ ctx: verbContext(env.cached.stores), input });
    const second = await getData({ ctx: verbContext(env.cached.stores), input });
    expect(second.data).toBe(first.data);
    expect(isSharedAnswer(first.data)).toBe(true);
    expect(Object.isFrozen(first.data)).toBe(true);
    expect(first.meta).toEqual(second.meta);
    const fresh = await getData({ ctx: verbContext(env.uncached.stores), input });
    expect(isSharedAnswer(fresh.data)).toBe(false);
    expect(fresh.data).toEqual(first.data);
    expect(fresh.meta).toEqual(first.meta);
    // Another request is another answer.
    const other = await getData({ ctx: verbContext(env.cached.stores), input: { ...input, vintage: 2017 } });
    expect(other.data).not.toBe(first.data);
  });

  it('over HTTP, the kept answer is sent with the bytes of the response serializer, first time and again', async () => {
    const url = `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018`;
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await env.svc.app.inject({ url, headers: { 'x-api-key': env.svc.keys.pro } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const serializer = JSON.stringify(envelopeSchema(getData.spec.output!).parse(res.json()));
      expect(res.body === serializer).toBe(true);
      bodies.push(res.body.replace(/"request_id":"[^"]*","elapsed_ms":\d+/, ''));
    }
    expect(new Set(bodies).size).toBe(1);
  });
});
