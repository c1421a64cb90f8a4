// What defineVerb guarantees to every caller, transport or not: the verb parses its own input (a
// 422/400 AppError with neutral field names), obeys the kill switch, applies the CSV gate and the
// plan gates before it charges anything, prices its cost in one place, and treats a missing caller
// as the top plan everywhere.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/domain/errors.js';
import { BoundaryStore } from '../../src/store/boundaries.js';
import type { Stores, VerbContext } from '../../src/context/verb-context.js';
import { boundariesCollection } from '../../src/verbs/boundaries-collection.js';
import { searchVariables, listTopics } from '../../src/verbs/catalog.js';
import { centroids } from '../../src/verbs/centroids.js';
import { geocode } from '../../src/verbs/geocode.js';
import { getData } from '../../src/verbs/get-data.js';
import { getTimeseries } from '../../src/verbs/get-timeseries.js';
import { verbContext } from '../support/context.js';
import { testBuildDir } from '../support/build.js';
import { failure } from '../support/failure.js';

function ctxWith(stores: Stores, opts: { plan?: string | null; charges?: number[]; disabled?: string[] } = {}): VerbContext {
  const ctx = verbContext(stores, opts);
  return { ...ctx, config: loadConfig({ NODE_ENV: 'test' }, { DISABLED_FEATURES: opts.disabled ?? [] }) };
}

let boundaries: BoundaryStore;
beforeAll(async () => {
  boundaries = await BoundaryStore.open(path.join(await testBuildDir(), 'boundaries'));
});

describe('a verb parses its own input', () => {
  it('a missing or unreadable field is a 422 AppError naming the field neutrally, before any store is touched', async () => {
    const charges: number[] = [];
    const e = await failure(getData.invoke({ ctx: ctxWith({}, { charges }), input: { geo: 'state:06' } }));
    expect(e).toMatchObject({ status: 422, code: 'unprocessable-request' });
    expect(e.errors).toEqual([expect.objectContaining({ field: 'variables', type: 'missing' })]);
    const lat = await failure(geocode.invoke({ ctx: ctxWith({}), input: { lat: 'north', lng: 1 } }));
    expect(lat.status).toBe(422);
    expect(lat.errors?.[0]).toMatchObject({ field: 'lat' });
    expect(charges).toEqual([]);
  });

  it('a readable but unacceptable value is a 400 validation-error', async () => {
    const e = await failure(searchVariables({ ctx: ctxWith({}), input: { search: 'x'.repeat(201) } }));
    expect(e).toMatchObject({ status: 400, code: 'validation-error' });
    expect(e.errors?.[0]).toMatchObject({ field: 'search', type: 'string_too_long' });
  });
});

describe('gates and cost live in the verb', () => {
  it('the DISABLED_FEATURES kill switch refuses the verb whatever calls it', async () => {
    const e = await failure(
      getTimeseries({ ctx: ctxWith({}, { disabled: ['data'] }), input: { variables: 'B01003_001E', geo: 'state:06' } }),
    );
    expect(e).toMatchObject({ status: 503, code: 'feature-unavailable', extensions: { feature: 'data' } });
    const csv = await failure(
      getData({ ctx: ctxWith({}, { disabled: ['csv'] }), input: { variables: 'B01003_001E', geo: 'state:06' }, format: 'csv' }),
    );
    expect(csv).toMatchObject({ status: 503, extensions: { feature: 'csv' } });
  });

  it('the CSV export is gated by plan before anything is charged or read', async () => {
    const charges: number[] = [];
    const input = { variables: 'B01003_001E', geo: 'state:06' };
    const e = await failure(getData({ ctx: ctxWith({}, { plan: 'free', charges }), input, format: 'csv' }));
    expect(e).toMatchObject({ status: 403, code: 'feature-requires-upgrade', extensions: { required_plan: 'pro' } });
    expect(charges).toEqual([]);
    // A verb without a CSV rendering cannot be asked for one.
    await expect(listTopics({ ctx: ctxWith({}), format: 'csv' })).rejects.toThrow(/no csv rendering/);
  });

  it('plan gates run before the charge: a gated boundary request is a 403 and costs nothing; an allowed one costs 0 units', async () => {
    const charges: number[] = [];
    const gated = await failure(
      boundariesCollection({ ctx: ctxWith({ boundaries }, { plan: 'free', charges }), input: { level: 'tract' } }),
    );
    expect(gated).toMatchObject({ status: 403, code: 'feature-requires-upgrade', extensions: { required_plan: 'pro' } });
    expect(charges).toEqual([]);
    const ok = await centroids({ ctx: ctxWith({ boundaries }, { plan: 'free', charges }), input: { level: 'state' } });
    (ok.data as NodeJS.ReadableStream & { destroy(): void }).destroy();
    expect(charges).toEqual([0]);
  });

  it('a lookup is priced by the cost table and charged once, before it runs', async () => {
    const charges: number[] = [];
    // No catalog store: the charge has happened when the run finds the store missing.
    const e = await failure(listTopics({ ctx: ctxWith({}, { charges }) }));
    expect(e.code).toBe('dependency-unavailable');
    expect(charges).toEqual([1]);
  });

  it('no caller means the top plan, in every verb (the admin CLI, trusted tooling)', async () => {
    const charges: number[] = [];
    const r = await boundariesCollection({
      ctx: ctxWith({ boundaries }, { plan: null, charges }),
      input: { level: 'block_group', resolution: '5m' },
    }).catch((e: unknown) => e);
    // Past the gate (Enterprise allows block groups at 5m): whatever the store answers, it is not a plan refusal.
    expect(r instanceof AppError ? r.code : 'served').not.toBe('feature-requires-upgrade');
    expect(charges).toEqual([0]);
  });
});
