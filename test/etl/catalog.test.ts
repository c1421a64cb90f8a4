import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { componentCodes, parseFormula } from '../../src/domain/formula.js';
import { createCatalogStep, REPO_CATALOG_DIR } from '../../etl/steps/catalog.js';
import type { CompiledCatalog } from '../../etl/steps/catalog/compile.js';
import { sameLabel } from '../../etl/steps/catalog/comparability.js';
import { InputError } from '../../etl/step.js';
import { runStepIsolated } from '../support/etl.js';
import { SHARED_CENSUS } from '../support/paths.js';

let outDir: string;
let compiled: CompiledCatalog;
const byName = (n: string) => compiled.variables.find((v) => v.api_name === n)!;

// The metadata's own view of which vintages each code exists in (independent of the step).
const availability = new Map<string, number[]>();
function loadAvailability(): void {
  const text = gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, 'metadata/acs_detailed_variable_availability.csv.gz'))).toString();
  for (const r of parse(text, { columns: true }) as Record<string, string>[]) {
    availability.set(`${r.dataset}:${r.variable}`, r.vintages!.split(';').map(Number));
  }
}

beforeAll(async () => {
  loadAvailability();
  ({ outDir } = await runStepIsolated(createCatalogStep()));
  compiled = JSON.parse(fs.readFileSync(path.join(outDir, 'catalog/catalog.json'), 'utf8'));
}, 120_000);

describe('catalog step on the real metadata', () => {
  it('has exactly 392 variables in 9 topics with unique api_names', () => {
    expect(compiled.variables).toHaveLength(392);
    expect(compiled.topics.map((t) => t.topic_key).sort()).toEqual(
      ['core', 'demographics', 'economics', 'environment', 'equity', 'health', 'housing', 'social', 'transport'],
    );
    expect(new Set(compiled.variables.map((v) => v.api_name)).size).toBe(392);
    for (const t of compiled.topics) expect(compiled.variables.some((v) => v.topic.topic_key === t.topic_key)).toBe(true);
  });

  it('every code a variable uses exists in the metadata in each vintage the catalog claims for it', () => {
    for (const v of compiled.variables) {
      for (const d of ['acs1', 'acs5'] as const) {
        for (const vintage of v.availability[d]) {
          const r = v.resolution[d][String(vintage)]!;
          const codes = r.kind === 'direct' ? [r.code] : r.kind === 'derived' ? r.codes : [];
          expect(codes.length, `${v.api_name} ${d} ${vintage}`).toBeGreaterThan(0);
          for (const code of codes) {
            // acs1 2005/2006 are outside the availability file; their labels come from the API label files.
            if (d === 'acs1' && vintage < 2007) continue;
            expect(availability.get(`${d}:${code}`) ?? [], `${v.api_name}: ${code} in ${d} ${vintage}`).toContain(vintage);
          }
        }
      }
    }
  });

  it('derived variables declare a formula whose components are listed', () => {
    const derived = compiled.variables.filter((v) => v.census_code === null);
    expect(derived.length).toBeGreaterThan(100);
    for (const v of derived) expect(v.component_codes).toEqual(componentCodes(parseFormula(v.formula!)));
    expect(byName('core_poverty_rate').formula).toBe('pct(B17001_002E, B17001_001E)');
  });

  it('B19013_001E: acs1 2005–2019 and 2021–2024, acs5 2009–2024 (inflation-year wording is not a change)', () => {
    const v = byName('core_median_household_income');
    expect(v.availability.acs1).toEqual([2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 2013, 2014, 2015, 2016, 2017, 2018, 2019, 2021, 2022, 2023, 2024]);
    expect(v.availability.acs5).toEqual([2009, 2010, 2011, 2012, 2013, 2014, 2015, 2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023, 2024]);
    expect(v.not_comparable.acs1).toEqual([]);
    // acs5 2009 has presence only in the metadata: available, flagged as unverified.
    expect(v.unverified_vintages.acs5).toEqual([2009]);
  });

  it('B01003_001E: no acs1 2005/2006 (absent from the API label files), otherwise every vintage', () => {
    const v = byName('core_total_population');
    expect(v.availability.acs1[0]).toBe(2007);
    expect(v.resolution.acs1['2005']).toEqual({ kind: 'unavailable', reason: 'not_in_vintage' });
    expect(v.availability.acs5).toHaveLength(16);
  });

  it('a material label change is not silently joined: B27010 "Under 18" (≤2016) vs "Under 19" years', () => {
    const v = byName('health_uninsured_under_19');
    expect(v.resolution.acs1['2016']).toEqual({ kind: 'unavailable', reason: 'not_comparable' });
    expect(v.resolution.acs1['2017']).toEqual({ kind: 'direct', code: 'B27010_017E' });
    expect(v.not_comparable.acs1.map((n) => n.vintage)).toEqual([2009, 2010, 2011, 2012, 2013, 2014, 2015, 2016]);
    expect(v.not_comparable.acs1[0]!.reason).toMatch(/Under 18 years/);
    // the derived uninsured rate inherits the break through its component
    expect(byName('core_uninsured_rate').resolution.acs5['2016']).toEqual({ kind: 'unavailable', reason: 'not_comparable' });
  });

  it('B21001_002E meant "Male" before 2010: veterans are withheld there', () => {
    const v = byName('social_veterans');
    expect(v.not_comparable.acs1.map((n) => n.vintage)).toEqual([2005, 2006, 2007, 2008, 2009]);
    expect(v.availability.acs1[0]).toBe(2010);
  });

  it('per-vintage code overrides follow line shifts (B25034 "Built 1939 or earlier")', () => {
    const v = byName('environment_units_built_1939_or_earlier');
    expect(v.resolution.acs1['2014']).toEqual({ kind: 'direct', code: 'B25034_010E' });
    expect(v.resolution.acs1['2015']).toEqual({ kind: 'direct', code: 'B25034_011E' });
    expect(v.resolution.acs5['2012']).toEqual({ kind: 'direct', code: 'B25034_010E' });
    expect(v.not_comparable.acs5).toEqual([]);
    const share = byName('environment_units_built_1939_or_earlier_share');
    expect(share.resolution.acs5['2013']).toEqual({ kind: 'derived', formula: 'pct(B25034_010E, B25034_001E)', codes: ['B25034_010E', 'B25034_001E'] });
  });

  it('label normalisation ignores wording noise but not meaning', () => {
    expect(sameLabel('Median age --!!Male', 'Male')).toBe(true);
    expect(sameLabel('Total:!!Foreign born:', 'Total:!!Foreign-born:')).toBe(true);
    expect(sameLabel('Estimate!!Median household income in the past 12 months (in 2005 inflation-adjusted dollars)', 'Median household income in the past 12 months (in 2024 inflation-adjusted dollars)')).toBe(true);
    expect(sameLabel('Total:!!Built 2005 or later', 'Total:!!Built 2020 or later')).toBe(false);
    expect(sameLabel('Total:!!Male:', 'Total:!!Veteran')).toBe(false);
  });

  it('codebook CSV and JSON hold the same rows (round trip)', () => {
    const json = JSON.parse(fs.readFileSync(path.join(outDir, 'catalog/codebook.json'), 'utf8')) as Record<string, string>[];
    const csv = parse(fs.readFileSync(path.join(outDir, 'catalog/codebook.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(json).toHaveLength(392);
    expect(csv).toEqual(json);
    const row = json.find((r) => r.api_name === 'core_median_household_income')!;
    expect(row.census_code).toBe('B19013_001E');
    expect(row.acs1_vintages!.split(';')).toContain('2005');
  });
});

describe('catalog validation errors name the file and entry', () => {
  function brokenCopy(mutate: (dir: string) => void): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-src-'));
    for (const f of fs.readdirSync(REPO_CATALOG_DIR)) fs.copyFileSync(path.join(REPO_CATALOG_DIR, f), path.join(dir, f));
    mutate(dir);
    return dir;
  }
  const edit = (dir: string, file: string, fn: (doc: { variables: Record<string, unknown>[] }) => void) => {
    const p = path.join(dir, file);
    const doc = JSON.parse(fs.readFileSync(p, 'utf8'));
    fn(doc);
    fs.writeFileSync(p, JSON.stringify(doc));
  };

  it('unknown census code', async () => {
    const dir = brokenCopy((d) => edit(d, 'housing.json', (doc) => { doc.variables[0]!.census_code = 'B25002_099E'; }));
    await expect(runStepIsolated(createCatalogStep(dir))).rejects.toThrow(/catalog\/housing\.json: housing_occupied_units: census code B25002_099E does not exist/);
  });

  it('bad formula', async () => {
    const dir = brokenCopy((d) => edit(d, 'core.json', (doc) => { doc.variables.find((v) => v.api_name === 'core_poverty_rate')!.formula = 'pct(B17001_002E)'; }));
    const err = await runStepIsolated(createCatalogStep(dir)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(String((err as Error).message)).toMatch(/catalog\/core\.json: entry #9 \(core_poverty_rate\): bad formula/);
  });

  it('wrong count and duplicate api_name', async () => {
    const dropped = brokenCopy((d) => edit(d, 'social.json', (doc) => { doc.variables.pop(); }));
    await expect(runStepIsolated(createCatalogStep(dropped))).rejects.toThrow(/expected exactly 392 variables, found 391/);
    const dup = brokenCopy((d) => edit(d, 'social.json', (doc) => { doc.variables[1]!.api_name = doc.variables[0]!.api_name; }));
    await expect(runStepIsolated(createCatalogStep(dup))).rejects.toThrow(/social\.json: entry #2 \(social_less_than_high_school\): api_name also used/);
  });

  it('catalog content changes the step version', () => {
    const a = createCatalogStep(REPO_CATALOG_DIR).version;
    const dir = brokenCopy((d) => edit(d, 'core.json', (doc) => { doc.variables[0]!.label = 'Total population (edited)'; }));
    expect(createCatalogStep(dir).version).not.toBe(a);
    expect(createCatalogStep(REPO_CATALOG_DIR).version).toBe(a);
  });
});
