// The data operations on the real build: published values through the catalog, derived values
// with their MOE, the reason behind every null, gates and cost before any data is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moeProportion } from '../../src/domain/moe.js';
import { openDataStores } from '../../src/store/open.js';
import type { Stores } from '../../src/context/verb-context.js';
import { compareGeographies } from '../../src/verbs/compare-geographies.js';
import { getData as getDataVerb, longFormat } from '../../src/verbs/get-data.js';

/** These tests read the long format (the verb builds compact only when asked for it). */
const getData = async (args: Parameters<typeof getDataVerb>[0]) => longFormat(await getDataVerb(args));
import { getTimeseries } from '../../src/verbs/get-timeseries.js';
import { testBuildDir } from '../support/build.js';
import { verbContext } from '../support/context.js';
import { failure } from '../support/failure.js';

let stores: Stores;
let close: () => void;
const quiet = { warn: () => {} };

beforeAll(async () => {
  ({ stores, close } = await openDataStores(await testBuildDir(), quiet));
});
afterAll(() => close?.());

describe('getData', () => {
  it("serves California's 2018 acs1 median household income as published, by census code", async () => {
    const r = await getData({
      ctx: verbContext(stores),
      input: { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', vintage: 2018 },
    });
    expect(r.data).toHaveLength(1);
    const c = r.data[0]!;
    expect(c).toMatchObject({
      geo_key: 'state:06',
      geo_name: 'California',
      census_code: 'B19013_001E',
      estimate: 75277,
      moe_numeric: 317,
      unit: 'dollar',
      vintage: 2018,
      estimate_annotation: null,
      moe_annotation: null,
    });
    expect(r.meta?.source).toEqual({
      dataset: 'acs1',
      vintage_year: 2018,
      reference_period: '2018',
      census_program: expect.stringContaining('Census Bureau'),
    });
    expect(r.meta?.hint).toBeNull();
  });

  it('accepts api_names and census codes mixed, and a derived percentage gets its MOE by the proportion formula', async () => {
    const catalog = stores.catalog!;
    const derived = catalog
      .list({ search: 'poverty', offset: 0, limit: 50 })
      .items.map((s) => catalog.getVariable(s.api_name)!)
      .find((v) => v.formula?.startsWith('pct(B17001_002E, B17001_001E)'));
    expect(derived, 'catalog has a poverty rate from B17001').toBeDefined();
    const r = await getData({
      ctx: verbContext(stores),
      input: {
        variables: [`${derived!.api_name},B19013_001E`, 'core_median_household_income'],
        geo: 'state:48',
        dataset: 'acs1',
        vintage: 2018,
      },
    });
    // Asked by code, B19013_001E is the code as published; by api_name, the catalog variable: two
    // cells with the same published number.
    expect(r.data.map((c) => c.variable).sort()).toEqual([derived!.api_name, 'B19013_001E', 'core_median_household_income'].sort());
    const byCode = r.data.find((c) => c.variable === 'B19013_001E')!;
    expect(byCode.estimate).toBe(r.data.find((c) => c.variable === 'core_median_household_income')!.estimate);
    expect(byCode).toMatchObject({ census_code: 'B19013_001E', unit: 'dollar', table_id: 'B19013', universe: 'Households' });
    const p = r.data.find((c) => c.variable === derived!.api_name)!;
    expect(p.formula).toMatch(/^pct\(/);
    // Components read straight from the Parquet, not through the operation.
    const raw = await stores.observations!.fetch({
      dataset: 'acs1',
      vintages: [2018],
      level: 'state',
      geoKeys: ['state:48'],
      codes: ['B17001_002E', 'B17001_001E'],
    });
    const x = raw.get('2018|state:48|B17001_002E')!;
    const y = raw.get('2018|state:48|B17001_001E')!;
    const expected = moeProportion({ estimate: x.estimate!, moe: x.moe! }, { estimate: y.estimate!, moe: y.moe! });
    expect(p.estimate).toBeCloseTo((100 * x.estimate!) / y.estimate!, 10);
    expect(p.moe_numeric).toBeCloseTo(100 * expected.moe, 10);
  });

  it('defaults to the latest vintage with values loaded ("latest available") and says so', async () => {
    const r = await getData({ ctx: verbContext(stores), input: { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1' } });
    expect(r.meta?.source?.vintage_year).toBe(2018);
    expect(r.data[0]).toMatchObject({ estimate: 75277, moe_numeric: 317 });
    expect(r.meta?.hint).toMatch(/No vintage was given: 2018 is the latest with values in this service.*latest vintage is 2024/);
    // Nothing loaded for acs5 states at all: the dataset's latest, with the reason per cell.
    const none = await getData({ ctx: verbContext(stores), input: { variables: 'B19013_001E', geo: 'state:06' } });
    expect(none.meta?.source?.vintage_year).toBe(2024);
    expect(none.data[0]!.estimate_annotation?.code).toBe('no_data_loaded');
  });

  it('gives a null with a reason and a hint when the vintage has no values loaded', async () => {
    const r = await getData({
      ctx: verbContext(stores),
      input: { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', vintage: 2024 },
    });
    expect(r.meta?.source?.vintage_year).toBe(2024);
    expect(r.data[0]!.estimate).toBeNull();
    expect(r.data[0]!.estimate_annotation?.code).toBe('no_data_loaded');
    expect(r.meta?.hint).toMatch(/state: 2005, 2006.*2018/);
    expect(r.meta?.hint).toContain(
      'loads them with: npm run etl -- build --online --datasets acs1 --vintages 2024 --levels state --tables B19013',
    );
  });

  it('names the exact command that fills missing tract and county cells, narrowed to their states (issue 34 §5)', async () => {
    const r = await getData({
      ctx: verbContext(stores),
      input: { variables: 'B19013_001E,B01003_001E', geo: 'tract:48453000101;county:06037', dataset: 'acs5', vintage: 2023 },
    });
    expect(r.data.filter((c) => c.estimate_annotation?.code === 'no_data_loaded')).toHaveLength(3);
    // B01003 is loaded for 2023 counties (the default data), B19013 is not; tracts hold nothing.
    expect(r.meta?.hint).toContain(
      'npm run etl -- build --online --datasets acs5 --vintages 2023 --levels tract,county --tables B01003,B19013 --states 06,48',
    );
  });

  it('explains acs1 tract requests instead of returning nothing', async () => {
    const r = await getData({
      ctx: verbContext(stores),
      input: { variables: 'B19013_001E', geo: 'tract:48453001100', dataset: 'acs1', vintage: 2018 },
    });
    expect(r.data[0]!.estimate_annotation?.code).toBe('not_in_dataset');
    expect(r.meta?.hint).toMatch(/dataset=acs5/);
  });

  it('charges a wildcard by its expansion, before reading data', async () => {
    const charges: number[] = [];
    const r = await getData({
      ctx: verbContext(stores, { plan: 'pro', charges }),
      input: { variables: 'B01003_001E', geo: 'county:48*', vintage: 2023 },
    });
    expect(r.data).toHaveLength(254);
    // api/2023/acs/acs5/county/B01003.json.gz: ["Travis County, Texas","1307625","48","453"]
    expect(r.data.find((c) => c.geo_key === 'county:48453')).toMatchObject({ geo_name: 'Travis County, Texas', estimate: 1307625 });
    expect(charges).toEqual([Math.ceil(254 / 10)]);
  });

  it('refuses a Free plan wildcard with 403 feature-requires-upgrade and charges nothing', async () => {
    const charges: number[] = [];
    const e = await failure(
      getData({
        ctx: verbContext(stores, { plan: 'free', charges }),
        input: { variables: 'B01003_001E', geo: 'county:48*', vintage: 2023 },
      }),
    );
    expect(e.code).toBe('feature-requires-upgrade');
    expect(e.extensions.upgrade_url).toBeTruthy();
    expect(charges).toEqual([]);
  });

  it.each([
    [{ variables: 'B19013_001E', geo: 'state:06', dataset: 'acs3' }, 'invalid-dataset'],
    [{ variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', vintage: 2020 }, 'invalid-vintage'],
    [{ variables: 'nope_not_a_variable', geo: 'state:06' }, 'variable-not-found'],
    [{ variables: 'B19013_001E', geo: 'tx' }, 'invalid-geo-format'],
    [{ variables: 'B19013_001E', geo: 'state:6' }, 'geography-not-found'],
    [{ variables: '', geo: 'state:06' }, 'unprocessable-request'],
    [{ variables: 'B19013_001E', geo: '' }, 'unprocessable-request'],
  ])('rejects %j with %s', async (input, code) => {
    const e = await failure(getData({ ctx: verbContext(stores), input }));
    expect(e.code).toBe(code);
  });

  it('lists the supported vintages per dataset in invalid-vintage', async () => {
    const e = await failure(getData({ ctx: verbContext(stores), input: { variables: 'B19013_001E', geo: 'state:06', vintage: 2030 } }));
    expect(e.message).toContain('acs5: 2009–2024');
    expect(e.message).toContain('acs1: 2005–2024 except 2020');
  });
});

describe('compareGeographies', () => {
  it('compares with the first geography and tests significance at 90%', async () => {
    const r = await compareGeographies({
      ctx: verbContext(stores),
      input: { variables: 'B19013_001E', geo: 'state:06;state:01', dataset: 'acs1', vintage: 2018 },
    });
    expect(r.data.map((c) => c.geo_key)).toEqual(['state:06', 'state:01']);
    const al = r.data[1]!;
    expect(al.comparison).toEqual({
      reference_geo_key: 'state:06',
      difference: 49861 - 75277,
      difference_moe: Math.sqrt(317 ** 2 + 783 ** 2),
      significant: true,
      not_tested_reason: null,
    });
    expect(r.data[0]!.comparison).toBeNull();
  });

  it('gives no verdict between a top-coded and a bottom-coded median (regression: 2005 said significant with difference_moe 0)', async () => {
    // 2005 acs1 B19013E (median income, NHPI householders): DC top-coded, Delaware bottom-coded
    // with MOEs published as 0 beside *** — the same case is jam-valued from 2010 on.
    const r = await compareGeographies({
      ctx: verbContext(stores),
      input: { variables: 'B19013E_001E', geo: 'state:11;state:22;state:10', dataset: 'acs1', vintage: 2005 },
    });
    const comparisons = r.data.filter((c) => c.comparison).map((c) => c.comparison!);
    expect(comparisons.length).toBe(2);
    for (const k of comparisons) {
      expect(k.significant).toBeNull();
      expect(k.difference_moe).toBeNull();
      expect(k.not_tested_reason).toEqual(expect.any(String));
    }
    // The published zeros beside *** are the 2005 spelling of "MOE not appropriate": null, not 0.
    for (const c of r.data) if (c.moe_annotation?.code === 'moe_open_ended') expect(c.moe_numeric).toBeNull();
  });

  it('gives no verdict on controlled estimates (no sampling error to test)', async () => {
    const r = await compareGeographies({
      ctx: verbContext(stores),
      input: { variables: 'demographics_hispanic_or_latino', geo: 'state:06;state:48', dataset: 'acs1', vintage: 2007 },
    });
    const tx = r.data.find((c) => c.geo_key === 'state:48')!;
    expect(tx.moe_numeric).toBeNull();
    expect(tx.moe_annotation?.code).toBe('controlled');
    expect(tx.comparison).toMatchObject({ significant: null, not_tested_reason: 'controlled' });
    expect(tx.comparison!.difference).toBe(tx.estimate! - r.data.find((c) => c.geo_key === 'state:06')!.estimate!);
  });

  it("names the more basic reason when both sides are untestable (regression: a parent not loaded read as the place's missing MOE)", async () => {
    // acs5 2022: Travis County's population is published without its MOE; Texas is not loaded.
    const r = await compareGeographies({
      ctx: verbContext(stores),
      input: { variables: 'B01003_001E', geo: 'county:48453;state:48', dataset: 'acs5', vintage: 2022 },
    });
    const [travis, texas] = r.data;
    expect(travis!.estimate).toEqual(expect.any(Number));
    expect(travis!.moe_numeric).toBeNull();
    expect(texas!.estimate).toBeNull();
    expect(texas!.estimate_annotation?.code).toBe('no_data_loaded');
    expect(texas!.comparison).toMatchObject({ significant: null, difference: null, not_tested_reason: 'no_data_loaded' });
  });

  it('needs two geographies', async () => {
    const e = await failure(
      compareGeographies({
        ctx: verbContext(stores),
        input: { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', vintage: 2018 },
      }),
    );
    expect(e.code).toBe('validation-error');
  });
});

describe('getTimeseries', () => {
  it('returns every vintage of the range, nulls with reasons where missing (acs1 has no 2016 here, no 2020 at all)', async () => {
    const r = await getTimeseries({
      ctx: verbContext(stores),
      input: { variables: 'B19013_001E', geo: 'nation:1', dataset: 'acs1', from: 2014, to: 2019 },
    });
    expect(r.data.map((c) => [c.vintage, c.estimate])).toEqual([
      [2014, 53657],
      [2015, 55775],
      [2016, null],
      [2017, 60336],
      [2018, 61937],
      [2019, null],
    ]);
    expect(r.data[2]!.estimate_annotation?.code).toBe('no_data_loaded');
  });

  it('defaults to the 16 acs5 vintages', async () => {
    const r = await getTimeseries({ ctx: verbContext(stores), input: { variables: 'B01003_001E', geo: 'county:01001' } });
    expect(r.data.map((c) => c.vintage)).toEqual(Array.from({ length: 16 }, (_, i) => 2009 + i));
    expect(r.data.filter((c) => c.estimate !== null).map((c) => [c.vintage, c.estimate])).toEqual([
      [2022, 58761],
      [2023, 59285],
    ]);
    expect(r.meta?.hint).toMatch(/overlap/);
  });
});

describe('include_geometry gates', () => {
  // Regression (MCP review): include_geometry checked only the flag, so a Pro key got block-group
  // shapes although block-group boundaries need Business.
  it('regression: block-group geometry needs Business even on Pro', async () => {
    const e = await failure(
      getData({
        ctx: verbContext(stores, { plan: 'pro' }),
        input: { variables: 'B19013_001E', geo: 'block_group:484530011001', vintage: 2018, include_geometry: true },
      }),
    );
    expect(e.code).toBe('feature-requires-upgrade');
    expect(e.extensions).toMatchObject({ required_plan: 'business', upgrade_url: expect.stringContaining('plan=business') });
  });

  it('a block-group wildcard on Pro links the upgrade to Business, not Pro', async () => {
    const e = await failure(
      getData({
        ctx: verbContext(stores, { plan: 'pro' }),
        input: { variables: 'B19013_001E', geo: 'block_group:48453001100*', vintage: 2018 },
      }),
    );
    expect(e.extensions).toMatchObject({ required_plan: 'business', upgrade_url: expect.stringContaining('plan=business') });
  });
});
