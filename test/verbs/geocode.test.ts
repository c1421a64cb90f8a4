import path from 'node:path';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { AppError } from '../../src/domain/errors.js';
import { BoundaryStore } from '../../src/store/boundaries.js';
import type { VerbContext } from '../../src/context/verb-context.js';
import { geocode } from '../../src/verbs/geocode.js';
import { testBuildDir } from '../support/build.js';

let ctx: VerbContext;
beforeAll(async () => {
  const store = await BoundaryStore.open(path.join(await testBuildDir(), 'boundaries'));
  ctx = {
    requestId: 'r',
    caller: null,
    stores: { boundaries: store },
    config: { DISABLED_FEATURES: [] as string[] } as Config,
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    via: 'test',
  };
});

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return `${e.status} ${e.code}`;
    throw e;
  }
  return 'resolved';
}

describe('geocode operation', () => {
  it("geocodes coordinates (numbers: reading query strings is the transport's job)", async () => {
    const r = await geocode({ ctx, input: { lat: 38.8977, lng: -77.0365 } });
    expect(r.data).toMatchObject({ status: 'matched', geographies: { state: { key: 'state:11' }, county: { key: 'county:11001' } } });
  });

  it('answers 200 no_match with a reason at sea', async () => {
    const r = await geocode({ ctx, input: { lat: 30, lng: -45 } });
    expect(r.data).toMatchObject({ status: 'no_match', reason: expect.stringMatching(/at sea/) });
  });

  it('rejects malformed input with 400 validation-error', async () => {
    expect(await code(geocode({ ctx, input: { lat: 95, lng: 0 } }))).toBe('400 validation-error');
    // Cannot be read as a number: 422 float_parsing, as over REST.
    expect(await code(geocode.invoke({ ctx, input: { lat: 'abc', lng: '1' } }))).toBe('422 unprocessable-request');
    expect(await code(geocode({ ctx, input: { lat: 40 } }))).toBe('400 validation-error');
    expect(await code(geocode({ ctx, input: {} }))).toBe('400 validation-error');
    expect(await code(geocode({ ctx, input: { address: '1 Main St', lat: 1, lng: 1 } }))).toBe('400 validation-error');
  });

  it('geocodes an address end to end', async () => {
    const r = await geocode({ ctx, input: { address: '20 W 26th St, New York, NY 10010' } });
    expect(r.data).toMatchObject({
      status: 'matched',
      match: { zip: '10010', county: '36061' },
      geographies: { cd: { key: expect.stringMatching(/^cd:36/) } },
    });
  });

  it('503 when boundary data is not loaded', async () => {
    expect(await code(geocode({ ctx: { ...ctx, stores: {} }, input: { lat: 1, lng: 1 } }))).toBe('503 dependency-unavailable');
  });
});
