import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  PLAN_IDS,
  PLANS,
  hasFeature,
  pageSizeFor,
  planOf,
  requireExpansionWithin,
  requireFeature,
  requiredPlanFor,
} from '../../src/domain/plans.js';

const DASH = 'https://census-data-service.dev/dashboard';

describe('plans table matches the spec', () => {
  it('has the five tiers in rank order', () => {
    expect(PLAN_IDS).toEqual(['free', 'pioneer', 'pro', 'business', 'enterprise']);
    expect(PLAN_IDS.map((id) => PLANS[id].rank)).toEqual([0, 1, 2, 3, 4]);
  });

  it('prices (cents): Free $0, Pioneer $19/$190, Pro $49/$490, Business $299/month, Enterprise custom', () => {
    expect(PLANS.free.price).toEqual({ monthly: 0, annual: 0 });
    expect(PLANS.pioneer.price).toEqual({ monthly: 1900, annual: 19000 });
    expect(PLANS.pro.price).toEqual({ monthly: 4900, annual: 49000 });
    expect(PLANS.business.price.monthly).toBe(29900);
    expect(PLANS.enterprise.price).toEqual({ monthly: null, annual: null });
  });

  it('limits table: monthly, burst, concurrency, keys', () => {
    expect(PLANS.free.limits.monthlyUnits).toBe(1_000);
    expect(
      [PLANS.pioneer, PLANS.pro, PLANS.business].map((p) => [
        p.limits.monthlyUnits,
        p.limits.burstPerMinute,
        p.limits.concurrentConnections,
      ]),
    ).toEqual([
      [50_000, 300, 10],
      [500_000, 1_500, 25],
      [2_000_000, 3_000, 50],
    ]);
    expect(PLANS.business.limits.apiKeys).toBe(50);
  });

  it('wildcard expansion limits and page size maxima', () => {
    expect(PLAN_IDS.map((id) => PLANS[id].limits.wildcardExpansionMax)).toEqual([0, 0, 5_000, 25_000, 50_000]);
    expect(PLANS.pro.limits.pageSizeMax).toBe(5_000);
    expect(PLANS.enterprise.limits.pageSizeMax).toBe(10_000);
    for (const id of PLAN_IDS) expect(PLANS[id].limits.csvRowCap).toBe(10_000);
  });

  it('limits never decrease with rank', () => {
    for (let i = 1; i < PLAN_IDS.length; i++) {
      const lo = PLANS[PLAN_IDS[i - 1]!].limits;
      const hi = PLANS[PLAN_IDS[i]!].limits;
      for (const k of Object.keys(lo) as (keyof typeof lo)[]) expect(hi[k], `${PLAN_IDS[i]} ${k}`).toBeGreaterThanOrEqual(lo[k]);
    }
  });

  it('boundary levels per tier', () => {
    expect(PLANS.free.features.boundaryLevels).toEqual(['nation', 'state']);
    expect(PLANS.pioneer.features.boundaryLevels).toEqual(['nation', 'state', 'county', 'metro', 'cd']);
    expect(hasFeature(PLANS.pioneer, { kind: 'boundaries', level: 'tract' })).toBe(false);
    expect(hasFeature(PLANS.pro, { kind: 'boundaries', level: 'tract' })).toBe(true);
    expect(hasFeature(PLANS.pro, { kind: 'boundaries', level: 'block_group' })).toBe(false);
    expect(hasFeature(PLANS.business, { kind: 'boundaries', level: 'block_group' })).toBe(true);
    expect(hasFeature(PLANS.pro, { kind: 'centroids', level: 'tract' })).toBe(true);
    expect(hasFeature(PLANS.pro, { kind: 'centroids', level: 'block_group' })).toBe(false);
  });

  it('resolutions: 5m from Business, 500k Enterprise only', () => {
    expect(requiredPlanFor({ kind: 'boundaries', level: 'state', resolution: '5m' }).id).toBe('business');
    expect(requiredPlanFor({ kind: 'boundaries', level: 'state', resolution: '500k' }).id).toBe('enterprise');
    expect(requiredPlanFor({ kind: 'boundaries', level: 'state', resolution: '20m' }).id).toBe('free');
  });

  it('feature gates: CSV, include_geometry, wildcards Pro+; block_group wildcards Business+; MCP Pioneer+', () => {
    expect(requiredPlanFor({ kind: 'csv' }).id).toBe('pro');
    expect(requiredPlanFor({ kind: 'include_geometry' }).id).toBe('pro');
    expect(requiredPlanFor({ kind: 'wildcard', level: 'county' }).id).toBe('pro');
    expect(requiredPlanFor({ kind: 'wildcard', level: 'tract' }).id).toBe('pro');
    expect(requiredPlanFor({ kind: 'wildcard', level: 'block_group' }).id).toBe('business');
    expect(requiredPlanFor({ kind: 'include_geometry', level: 'block_group' }).id).toBe('business');
    expect(requiredPlanFor({ kind: 'mcp' }).id).toBe('pioneer');
    expect(requiredPlanFor({ kind: 'bulk_boundaries' }).id).toBe('enterprise');
  });
});

describe('gates', () => {
  it('requireFeature throws 403 feature-requires-upgrade with upgrade_url and required_plan', () => {
    let err: unknown;
    try {
      requireFeature('pioneer', { kind: 'csv' }, DASH);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe('feature-requires-upgrade');
    expect(e.status).toBe(403);
    expect(e.extensions).toMatchObject({ required_plan: 'pro', plan: 'pioneer', upgrade_url: `${DASH}/billing?plan=pro` });
    expect(() => requireFeature('pro', { kind: 'csv' }, DASH)).not.toThrow();
  });

  it('expansion cap names the smallest plan that fits, and 413 beyond Enterprise', () => {
    expect(() => requireExpansionWithin('pro', 5_000, DASH)).not.toThrow();
    try {
      requireExpansionWithin('pro', 5_001, DASH);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).extensions.required_plan).toBe('business');
    }
    expect(() => requireExpansionWithin('enterprise', 50_001, DASH)).toThrow(/No plan allows more than 50000/);
  });

  it('planOf falls back to free; pageSizeFor clamps', () => {
    expect(planOf('gold').id).toBe('free');
    expect(pageSizeFor('free', 10_000)).toBe(100);
    expect(pageSizeFor('enterprise', 10_000)).toBe(10_000);
    expect(pageSizeFor('pro', undefined)).toBe(50);
  });
});
