import path from 'node:path';
import type { Readable } from 'node:stream';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { AppError } from '../../src/domain/errors.js';
import { BoundaryStore } from '../../src/store/boundaries.js';
import { boundariesCollection } from '../../src/verbs/boundaries-collection.js';
import { boundariesFeature } from '../../src/verbs/boundaries-feature.js';
import { geometriesFor } from '../../src/verbs/boundaries-geometries.js';
import { centroids } from '../../src/verbs/centroids.js';
import type { VerbContext } from '../../src/context/verb-context.js';
import { testBuildDir } from '../support/build.js';

let ctx: VerbContext;
let store: BoundaryStore;
beforeAll(async () => {
  store = await BoundaryStore.open(path.join(await testBuildDir(), 'boundaries'));
  ctx = {
    requestId: 'r',
    caller: null,
    stores: { boundaries: store },
    config: { DASHBOARD_URL: 'https://dash.example', DISABLED_FEATURES: [] as string[] } as Config,
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    via: 'test',
  };
});

/** The same context for a caller on a plan: the gates come from the plans table. */
const as = (plan: 'free' | 'enterprise'): VerbContext => ({ ...ctx, caller: { accountId: 'a', keyId: 'k', plan } });

async function readAll(r: Readable): Promise<string> {
  let s = '';
  for await (const c of r) s += String(c);
  return s;
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

describe('boundary operations', () => {
  it('streams a valid FeatureCollection with every feature, headers and a strong ETag', async () => {
    const r = await boundariesCollection({ ctx: as('enterprise'), input: { level: 'county' } });
    const body = JSON.parse(await readAll(r.data)) as {
      type: string;
      features: { properties: { geo_key: string } }[];
      boundary: { true_resolution: string };
    };
    expect(body.type).toBe('FeatureCollection');
    expect(body.features).toHaveLength(store.entry('county', '20m')!.feature_count);
    expect(body.boundary.true_resolution).toMatch(/10m-class/);
    expect(r.meta).toMatchObject({
      boundary_vintage: '2023',
      headers: { 'X-Boundary-Vintage': '2023', 'Content-Type': 'application/geo+json' },
    });
    const again = await boundariesCollection({ ctx: as('enterprise'), input: { level: 'county' } });
    expect(again.meta!.etag).toBe(r.meta!.etag);
    again.data.destroy();
  });

  it('returns one Feature with its own ETag, and 404 with the known gap for CA districts', async () => {
    const r = await boundariesFeature({ ctx: as('enterprise'), input: { geo_key: 'cd:3612', resolution: '500k' } });
    expect(r.data.properties).toMatchObject({ geo_key: 'cd:3612' });
    expect(r.meta!.etag).not.toBe(
      (await boundariesFeature({ ctx: as('enterprise'), input: { geo_key: 'cd:3610', resolution: '500k' } })).meta!.etag,
    );
    const e = await rejection(boundariesFeature({ ctx: as('enterprise'), input: { geo_key: 'cd:0612' } }));
    expect(e.code).toBe('geography-not-found');
    expect(e.message).toMatch(/CA \(06\)/);
  });

  it("gates levels and resolutions by the caller's plan", async () => {
    const lvl = await rejection(boundariesCollection({ ctx: as('free'), input: { level: 'county' } }));
    expect(lvl).toMatchObject({
      code: 'feature-requires-upgrade',
      status: 403,
      extensions: { upgrade_url: 'https://dash.example/billing?plan=pioneer', required_plan: 'pioneer' },
    });
    const res = await rejection(boundariesFeature({ ctx: as('free'), input: { geo_key: 'state:06', resolution: '500k' } }));
    expect(res).toMatchObject({ code: 'feature-requires-upgrade', extensions: { required_plan: 'enterprise' } });
    const ok = await boundariesFeature({ ctx: as('free'), input: { geo_key: 'state:06' } });
    expect(ok.data.properties).toMatchObject({ name: 'California' });
    const c = await rejection(centroids({ ctx: as('free'), input: { level: 'tract' } }));
    expect(c.code).toBe('feature-requires-upgrade');
  });

  it('says why a resolution is absent instead of serving a coarser file', async () => {
    const e = await rejection(boundariesCollection({ ctx: as('enterprise'), input: { level: 'county', resolution: '500k' } }));
    expect(e.code).toBe('not-found');
    expect(e.message).toMatch(/no source at 5m or finer/);
  });

  it('streams centroids as GeoJSON points of one declared kind', async () => {
    const r = await centroids({ ctx: as('enterprise'), input: { level: 'cd' } });
    const body = JSON.parse(await readAll(r.data)) as { features: { geometry: { type: string } }[]; centroids: { kind: string } };
    expect(body.centroids.kind).toBe('internal_point');
    expect(body.features.length).toBe(437);
    expect(body.features.every((f) => f.geometry.type === 'Point')).toBe(true);
  });

  it('fetches shapes for a list of keys (include_geometry), null where none exists', async () => {
    const r = await geometriesFor(store, ['state:11', 'county:36061', 'block_group:110010101003', 'county:99999']);
    expect(r.geometries.get('state:11')?.type).toMatch(/Polygon/);
    expect(r.geometries.get('county:36061')?.type).toMatch(/Polygon/);
    expect(r.geometries.get('block_group:110010101003')).toBeNull();
    expect(r.geometries.get('county:99999')).toBeNull();
    expect(r.vintages).toEqual({ state: '2020', county: '2023' });
  });
});
