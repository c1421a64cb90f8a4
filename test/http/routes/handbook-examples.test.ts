// The Census Bureau's worked examples for derived estimates, reproduced through the HTTP API to the
// precision the Bureau prints them. Source: "Understanding and Using American Community Survey
// Data: What All Data Users Need to Know" (ACS General Handbook, 2018), ch. 8 "Calculating Measures
// of Error for Derived Estimates" (the same examples in the 2020 edition, ch. 8).
//
// The examples' geographies (three Virginia jurisdictions) have no values in ../shared, so their
// published figures are a FIXTURE source tree (test/fixtures/handbook/, each value cited there),
// built by the real ETL into a temporary directory and served by the real app. The handbook's
// proportion and ratio are not catalog variables: the fixture build's catalog (a temporary copy of
// catalog/) declares them in place of two social entries, so the catalog keeps its 392 variables.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../etl/build.js';
import { createCatalogStep } from '../../../etl/steps/catalog.js';
import { censusTablesStep } from '../../../etl/steps/census-tables.js';
import { geographiesStep } from '../../../etl/steps/geographies.js';
import { observationsStep } from '../../../etl/steps/observations.js';
import { REPO_ROOT, SHARED_CENSUS } from '../../support/paths.js';
import { startService, type Service } from '../../support/service.js';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'handbook');
const REGION = 'region(county:51059,county:51013,county:51510)';

let root: string;
let svc: Service;

/** The fixture's API bodies, gzipped into a source tree beside the shared reference files (linked). */
async function sourceTree(dir: string): Promise<string> {
  const src = path.join(dir, 'census');
  for (const ref of ['geo', 'metadata']) {
    await fs.mkdir(src, { recursive: true });
    await fs.symlink(path.join(SHARED_CENSUS, ref), path.join(src, ref));
  }
  const files = (await fs.readdir(path.join(FIXTURE, 'api'), { recursive: true })).filter((f) => f.endsWith('.json'));
  for (const rel of files) {
    const out = path.join(src, 'api', `${rel}.gz`);
    await fs.mkdir(path.dirname(out), { recursive: true });
    await fs.writeFile(out, gzipSync(await fs.readFile(path.join(FIXTURE, 'api', rel))));
  }
  return src;
}

/** A copy of catalog/ whose last two social entries are the handbook's proportion and ratio. */
async function handbookCatalog(dir: string): Promise<string> {
  const out = path.join(dir, 'catalog');
  await fs.cp(path.join(REPO_ROOT, 'catalog'), out, { recursive: true });
  const file = path.join(out, 'social.json');
  const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { variables: Record<string, unknown>[] };
  doc.variables.splice(-2, 2, ...HANDBOOK_VARIABLES);
  await fs.writeFile(file, JSON.stringify(doc));
  return out;
}

const HANDBOOK_VARIABLES = [
  {
    api_name: 'social_handbook_never_married_female_share',
    census_code: null,
    formula: 'prop(B12001_012E, B12001_011E)',
    label: 'FIXTURE: proportion of females 15 years and over never married (handbook ch. 8 proportion example)',
    unit: 'count',
    display_format: 'decimal_4',
  },
  {
    api_name: 'social_handbook_never_married_male_to_female',
    census_code: null,
    formula: 'ratio(B12001_003E, B12001_012E)',
    label: 'FIXTURE: never-married males per never-married female (handbook ch. 8 ratio example)',
    unit: 'count',
    display_format: 'decimal_4',
  },
];

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'handbook-'));
  const src = await sourceTree(root);
  const steps = [createCatalogStep(await handbookCatalog(root)), censusTablesStep, observationsStep, geographiesStep];
  const summary = await build({ sourceDir: src, dataDir: path.join(root, 'data'), steps, quiet: true });
  svc = await startService({ buildDir: summary.buildDir });
}, 600_000);
afterAll(async () => {
  await svc?.close();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

interface Cell {
  geo_key: string;
  vintage: number;
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: { code: string } | null;
  change?: Record<string, unknown> | null;
}
const one = async (url: string): Promise<Cell> => {
  const res = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data as Cell[];
  expect(data).toHaveLength(1);
  return data[0]!;
};

describe('ACS General Handbook 2018, ch. 8 worked examples, through /v1', () => {
  it('serves the fixture members as the handbook prints them', async () => {
    const c = await one('/v1/data?variables=B12001_012E&geo=county:51059&dataset=acs5&vintage=2011');
    expect([c.estimate, c.moe_numeric]).toEqual([135_173, 3_860]);
  });

  // "Aggregating Data Across Geographic Areas", Table 8.1: never-married females in the three
  // jurisdictions, 135,173 ± 3,860 + 43,104 ± 2,642 + 24,842 ± 1,957 = 203,119 ± 5,070.
  it('aggregated count: 203,119 ± 5,070 (Table 8.1)', async () => {
    const c = await one(`/v1/data?variables=B12001_012E&geo=${REGION}&dataset=acs5&vintage=2011`);
    expect(c.estimate).toBe(203_119);
    expect(Math.round(c.moe_numeric!)).toBe(5_070);
  });

  // The denominator of the proportion example, Table 8.4: females 15 and over, 630,498 ± 831.
  it('aggregated denominator: 630,498 ± 831 (Table 8.4)', async () => {
    const c = await one(`/v1/data?variables=B12001_011E&geo=${REGION}&dataset=acs5&vintage=2011`);
    expect(c.estimate).toBe(630_498);
    expect(Math.round(c.moe_numeric!)).toBe(831);
  });

  // "Calculating MOEs for Derived Proportions" (p. 64): p̂ = 203,119 / 630,498 = 0.322,
  // MOE = √(5,070² − 0.322²·831²) / 630,498 = ±0.008.
  it('proportion of aggregated estimates: 0.322 ± 0.008 (p. 64)', async () => {
    const c = await one(`/v1/data?variables=social_handbook_never_married_female_share&geo=${REGION}&dataset=acs5&vintage=2011`);
    expect(c.estimate!.toFixed(3)).toBe('0.322');
    expect(c.moe_numeric!.toFixed(3)).toBe('0.008');
  });

  // "Calculating MOEs for Derived Ratios" (p. 65), Table 8.5: never-married males 226,840 ± 5,556
  // per never-married female 203,119 ± 5,070: R̂ = 1.117, MOE = √(5,556² + 1.117²·5,070²) / 203,119 = ±0.039.
  it('ratio of aggregated estimates: 1.117 ± 0.039 (p. 65, Table 8.5)', async () => {
    const males = await one(`/v1/data?variables=B12001_003E&geo=${REGION}&dataset=acs5&vintage=2011`);
    expect(males.estimate).toBe(226_840);
    // √(4,222² + 2,819² + 2,259²) = 5,556.5, which the handbook prints as 5,556.
    expect(Math.abs(males.moe_numeric! - 5_556)).toBeLessThan(1);
    const c = await one(`/v1/data?variables=social_handbook_never_married_male_to_female&geo=${REGION}&dataset=acs5&vintage=2011`);
    expect(c.estimate!.toFixed(3)).toBe('1.117');
    expect(c.moe_numeric!.toFixed(3)).toBe('0.039');
  });

  // "Calculating MOEs for Derived Percent Change": never-married females in Fairfax County,
  // 135,173 ± 3,860 → 139,301 ± 4,047: a change of 3.1% ± 4.2 (R = 139,301 / 135,173 and the ratio
  // MOE, ×100). The difference 4,128 is within its MOE √(3,860² + 4,047²) = 5,593: not significant.
  it('percent change across years and its 90% test: 3.1% ± 4.2, not significant', async () => {
    const c = await one('/v1/timeseries?variables=B12001_012E&geo=county:51059&dataset=acs5&from=2016&to=2016&compare_to=2011');
    expect(c.vintage).toBe(2016);
    expect(c.change).toMatchObject({ base_vintage: 2011, base_estimate: 135_173, base_moe: 3_860, difference: 4_128 });
    expect((c.change!.percent_change as number).toFixed(1)).toBe('3.1');
    expect((c.change!.percent_change_moe as number).toFixed(1)).toBe('4.2');
    expect(Math.round(c.change!.difference_moe as number)).toBe(5_593);
    expect(c.change!.significant).toBe(false);
    expect(c.change!.not_tested_reason).toBeNull();
  });
});
