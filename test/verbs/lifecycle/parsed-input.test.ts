// Each input is read once, before the heavy queue (src/verbs/lifecycle/lifecycle.ts, the parse phase's
// `normalize`): the heavy rule reads the parsed `geo`, every 4xx the input alone decides (dollars=)
// and every 4xx the stores decide (unknown variable, no such place: the gates phase's `resolve`)
// is answered before a request waits for a slot, and the answer cache is keyed by what was asked,
// not how it was spelt. Real stores over the test build, a real heavy queue whose one slot is held.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stores, VerbContext } from '../../../src/context/verb-context.js';
import { openDataStores } from '../../../src/store/open.js';
import { getData } from '../../../src/verbs/get-data.js';
import { compareGeographies } from '../../../src/verbs/compare-geographies.js';
import { getTimeseries } from '../../../src/verbs/get-timeseries.js';
import { censusApiQuery } from '../../../src/verbs/census-api-query.js';
import { HeavyGate } from '../../../src/verbs/lifecycle/heavy-gate.js';
import { requestScope } from '../../../src/verbs/lifecycle/request-scope.js';
import { testBuildDir } from '../../support/build.js';
import { verbContext } from '../../support/context.js';
import { failure } from '../../support/failure.js';

let stores: Stores;
let close: () => void;
beforeAll(async () => {
  ({ stores, close } = await openDataStores(await testBuildDir(), { warn: () => {} }));
});
afterAll(() => close?.());

/** A context whose requests meet a heavy queue with its one slot taken and no room to wait. */
async function busy(): Promise<{ ctx: () => VerbContext; release: () => void }> {
  const gate = new HeavyGate(1, 0);
  const release = await gate.acquire();
  const ctx = () => {
    const c = verbContext(stores, { plan: 'enterprise' });
    c.request = requestScope({
      caller: null,
      heavyGate: gate,
      ip: '127.0.0.1',
      instance: '/v1/data',
      setHeaders: () => {},
      closed: () => false,
    });
    return c;
  };
  return { ctx, release };
}

const BUSY = { code: 'dependency-unavailable', status: 503 };

describe('the heavy rule reads the parsed geo', () => {
  it('a name that expands to every tract of a county waits in the heavy queue (was: only `*` in the text did)', async () => {
    const { ctx, release } = await busy();
    for (const geo of ['tract:Travis County, TX', 'county:Austin-Round Rock-San Marcos, TX', 'state:06;tract:Travis County, TX']) {
      const e = await failure(getData({ ctx: ctx(), input: { variables: 'B01003_001E', geo, dataset: 'acs5', vintage: 2022 } }));
      expect(e, geo).toMatchObject(BUSY);
    }
    // Whole keys are light: they pass while the queue is full.
    const light = await getData({
      ctx: ctx(),
      input: { variables: 'B01003_001E', geo: 'state:06;state:48', dataset: 'acs5', vintage: 2022 },
    });
    expect(light.meta).toBeDefined();
    release();
  });
});

describe('checks the input alone decides come before the heavy queue', () => {
  it('a bad dollars= year on a wildcard request is a 422 at once, not a wait for a slot (was: 503 queue full)', async () => {
    const { ctx, release } = await busy();
    const e = await failure(
      getData({ ctx: ctx(), input: { variables: 'B19013_001E', geo: 'county:48*', dataset: 'acs1', vintage: 2018, dollars: 1800 } }),
    );
    expect(e).toMatchObject({ status: 422 });
    const c = await failure(
      compareGeographies({
        ctx: ctx(),
        input: { variables: 'B19013_001E', geo: 'state:*', dataset: 'acs1', vintage: 2018, dollars: 1800 },
      }),
    );
    expect(c).toMatchObject({ status: 422 });
    const compact = await failure(
      getData({
        ctx: ctx(),
        input: { variables: 'B19013_001E', geo: 'county:48*', dataset: 'acs1', vintage: 2018, dollars: 2020 },
        format: 'compact',
      }),
    );
    expect(compact).toMatchObject({ status: 422 });
    release();
  });

  it('a malformed geo or an unknown dataset on a heavy request is a 400 at once', async () => {
    const { ctx, release } = await busy();
    const geo = await failure(
      getData({ ctx: ctx(), input: { variables: 'B19013_001E', geo: 'county:48*;bogus', dataset: 'acs1', vintage: 2018 } }),
    );
    expect(geo).toMatchObject({ code: 'invalid-geo-format', status: 400 });
    const dataset = await failure(
      getData({ ctx: ctx(), input: { variables: 'B19013_001E', geo: 'county:48*', dataset: 'acs9', vintage: 2018 } }),
    );
    expect(dataset).toMatchObject({ code: 'invalid-dataset', status: 400 });
    release();
  });
});

describe('the answer cache reads the parsed form', () => {
  it('two spellings of one request share one cache entry', async () => {
    const ask = (geo: string | string[]) =>
      getData({ ctx: verbContext(stores), input: { variables: 'B19013_001E', geo, dataset: 'acs1', vintage: 2018 } });
    const first = await ask('state:06;state:48');
    const kept = first.itemsJson?.keep;
    expect(kept).toBeDefined();
    for (const spelling of [['state:06', 'state:48'], ' state:06 , state:48', 'State:06;STATE:48']) {
      const again = await ask(spelling);
      expect(again.itemsJson?.keep, JSON.stringify(spelling)).toBe(kept);
    }
    const nation = await ask('us');
    expect((await ask('nation:1')).itemsJson?.keep).toBe(nation.itemsJson?.keep);
    // Another question is another entry.
    expect((await ask('state:06')).itemsJson?.keep).not.toBe(kept);
  });
});

describe('checks that need a store come before the heavy queue (the gates phase: `resolve`)', () => {
  it('an unknown variable or a place that does not exist, on a wildcard request, is a 404 at once (was: 503 queue full)', async () => {
    const { ctx, release } = await busy();
    const variable = await failure(
      getData({ ctx: ctx(), input: { variables: 'B99999_999E', geo: 'county:48*', dataset: 'acs5', vintage: 2022 } }),
    );
    expect(variable).toMatchObject({ code: 'variable-not-found', status: 404 });
    const place = await failure(
      getData({ ctx: ctx(), input: { variables: 'B01003_001E', geo: 'tract:Nowhere County, TX', dataset: 'acs5', vintage: 2022 } }),
    );
    expect(place).toMatchObject({ status: 404 });
    const compared = await failure(
      compareGeographies({ ctx: ctx(), input: { variables: 'B99999_999E', geo: 'state:*', dataset: 'acs1', vintage: 2018 } }),
    );
    expect(compared).toMatchObject({ code: 'variable-not-found', status: 404 });
    const series = await failure(
      getTimeseries({ ctx: ctx(), input: { variables: 'B99999_999E', geo: 'county:48*', dataset: 'acs1', from: 2016, to: 2018 } }),
    );
    expect(series).toMatchObject({ code: 'variable-not-found', status: 404 });
    // A request the stores can answer still waits its turn.
    const queued = await failure(
      getData({ ctx: ctx(), input: { variables: 'B01003_001E', geo: 'county:48*', dataset: 'acs5', vintage: 2022 } }),
    );
    expect(queued).toMatchObject(BUSY);
    release();
  });

  it("the Census-API query's unknown variable on a wildcard is the Bureau's 400 at once, not a wait", async () => {
    const { ctx, release } = await busy();
    const e = await censusApiQuery({
      ctx: ctx(),
      input: { dataset: 'acs5', vintage: '2022', get: 'NAME,B99999_999E', for: 'county:*', in: 'state:48' },
    }).then(
      () => undefined,
      (err: unknown) => err as { status?: number; message?: string },
    );
    expect(e?.status).toBe(400);
    expect(e?.message).toMatch(/unknown variable/);
    release();
  });
});
