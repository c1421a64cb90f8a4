import { beforeAll, describe, expect, it } from 'vitest';
import { createCatalogStep } from '../../etl/steps/catalog.js';
import { CatalogStore } from '../../src/store/catalog.js';
import { runStepIsolated } from '../support/etl.js';

let store: CatalogStore;

beforeAll(async () => {
  const { outDir } = await runStepIsolated(createCatalogStep());
  store = CatalogStore.load(outDir);
}, 120_000);

describe('CatalogStore', () => {
  it('finds by api_name and by census code (case-insensitive alias)', () => {
    const v = store.getVariable('core_median_household_income')!;
    expect(v.census_code).toBe('B19013_001E');
    expect(store.getVariable('b19013_001e')).toBe(v);
    expect(store.getVariable('B19013_001M')).toBe(v);
    expect(store.getVariable('nope')).toBeUndefined();
    expect(store.getVariable('B99999_001E')).toBeUndefined();
  });

  it('lists with topic filter and pagination', () => {
    const all = store.list({ offset: 0, limit: 1000 });
    expect(all.total).toBe(392);
    const core = store.list({ topic: 'core', offset: 5, limit: 10 });
    expect(core.total).toBe(20);
    expect(core.items).toHaveLength(10);
    expect(Object.keys(core.items[0]!).sort()).toEqual(['api_name', 'census_code', 'display_format', 'label', 'topic', 'unit']);
  });

  it('search matches labels (fuzzy/prefix) without matched_census_codes', () => {
    const r = store.list({ search: 'median househld income', offset: 0, limit: 50 });
    expect(r.items.map((i) => i.api_name)).toContain('core_median_household_income');
    expect(r.items.every((i) => i.matched_census_codes === undefined)).toBe(true);
  });

  it('search by census code sets matched_census_codes with the vintages the code maps to the variable', () => {
    const r = store.list({ search: 'B25034_010E', offset: 0, limit: 10 });
    const hit = r.items.find((i) => i.api_name === 'environment_units_built_1939_or_earlier')!;
    expect(hit.matched_census_codes).toEqual([{ code: 'B25034_010E', vintages: [2007, 2008, 2009, 2010, 2011, 2012, 2013, 2014] }]);
  });

  it('topics count active variables; datasets list spec vintages', () => {
    const t = store.topics();
    expect(t).toHaveLength(9);
    expect(t.reduce((s, x) => s + x.variable_count, 0)).toBe(392);
    const d = store.datasets();
    expect(d.acs5.vintages).toEqual(Array.from({ length: 16 }, (_, i) => 2009 + i));
    expect(d.acs1.vintages).toHaveLength(19);
    expect(d.acs1.vintages).not.toContain(2020);
    // B28002 (internet) starts in acs5 2017, so fewer variables are available at acs5 than in total.
    expect(d.acs5.variable_count).toBeLessThanOrEqual(392);
  });

  it('resolves per vintage: direct, derived, not_in_vintage, not_comparable', () => {
    expect(store.resolveForVintage('core_total_population', 'acs5', 2022)).toEqual({ kind: 'direct', code: 'B01003_001E' });
    expect(store.resolveForVintage('core_poverty_rate', 'acs1', 2018)).toEqual({
      kind: 'derived',
      formula: 'pct(B17001_002E, B17001_001E)',
      codes: ['B17001_002E', 'B17001_001E'],
    });
    expect(store.resolveForVintage('core_total_population', 'acs1', 2020)).toEqual({ kind: 'unavailable', reason: 'not_in_vintage' });
    expect(store.resolveForVintage('social_households_without_internet', 'acs5', 2015)).toEqual({
      kind: 'unavailable',
      reason: 'not_in_vintage',
    });
    expect(store.resolveForVintage('social_households_without_internet', 'acs1', 2014)).toEqual({
      kind: 'unavailable',
      reason: 'not_comparable',
    });
  });

  it('ranks the headline figure first among equal matches', () => {
    expect(store.list({ search: 'median income', offset: 0, limit: 1 }).items[0]!.api_name).toBe('core_median_household_income');
    expect(store.list({ search: 'poverty', offset: 0, limit: 1 }).items[0]!.api_name).toBe('core_poverty_rate');
  });
});
