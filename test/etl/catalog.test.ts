import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { componentCodes, parseFormula, type Formula } from '../../src/domain/formula.js';
import { createCatalogStep, REPO_CATALOG_DIR } from '../../etl/steps/catalog.js';
import type { CompiledCatalog } from '../../etl/steps/catalog/compile.js';
import { Comparator, sameLabel } from '../../etl/steps/catalog/comparability.js';
import { compileCatalog } from '../../etl/steps/catalog/compile.js';
import { loadCodeVintages, tableKey, type CatalogMetadata, type VintageInfo } from '../../etl/steps/catalog/metadata.js';
import { codesOf, readCatalogSource, type CatalogSource, type SourceVariable } from '../../etl/steps/catalog/source.js';
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

// The Bureau's verbatim API labels (README §2c), read here independently of the step:
// vintage → group → code → label, estimates only.
const apiLabels = new Map<number, Map<string, Map<string, string>>>();
function loadApiLabels(): void {
  for (let v = 2005; v <= 2018; v++) {
    const text = gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, `metadata/api_labels/acs1/${v}.csv.gz`))).toString();
    const groups = new Map<string, Map<string, string>>();
    for (const r of parse(text, { columns: true }) as Record<string, string>[]) {
      if (!r.VARIABLE!.endsWith('E')) continue;
      if (!groups.has(r.GROUP!)) groups.set(r.GROUP!, new Map());
      groups.get(r.GROUP!)!.set(r.VARIABLE!, r.LABEL!);
    }
    apiLabels.set(v, groups);
  }
}

/** One published cell of a raw API file (README §1), as the string the Bureau published. */
function rawCell(vintage: number, level: 'nation' | 'state', group: string, column: string, geo = '1'): string | null {
  const rows = JSON.parse(
    gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, `api/${vintage}/acs/acs1/${level}/${group}.json.gz`))).toString(),
  ) as (string | null)[][];
  const head = rows[0]!;
  const geoCol = level === 'nation' ? head.indexOf('us') : head.indexOf('state');
  const row = rows.slice(1).find((r) => r[geoCol] === geo)!;
  return row[head.indexOf(column)]!;
}

beforeAll(async () => {
  loadAvailability();
  loadApiLabels();
  ({ outDir } = await runStepIsolated(createCatalogStep()));
  compiled = JSON.parse(fs.readFileSync(path.join(outDir, 'catalog/catalog.json'), 'utf8'));
}, 120_000);

describe('catalog step on the real metadata', () => {
  it('has exactly 392 variables in 9 topics with unique api_names', () => {
    expect(compiled.variables).toHaveLength(392);
    expect(compiled.topics.map((t) => t.topic_key).sort()).toEqual([
      'core',
      'demographics',
      'economics',
      'environment',
      'equity',
      'health',
      'housing',
      'social',
      'transport',
    ]);
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
            // Where the Bureau's API labels cover the group (acs1 2005–2018), they decide; else the shells.
            const group = apiLabels.get(vintage)?.get(code.slice(0, code.indexOf('_')));
            if (d === 'acs1' && group) expect(group.has(code), `${v.api_name}: ${code} in the ${vintage} API labels`).toBe(true);
            else expect(availability.get(`${d}:${code}`) ?? [], `${v.api_name}: ${code} in ${d} ${vintage}`).toContain(vintage);
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
    expect(v.availability.acs1).toEqual([
      2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 2013, 2014, 2015, 2016, 2017, 2018, 2019, 2021, 2022, 2023, 2024,
    ]);
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
    // a ratio over the under-19 group inherits the break through its components
    expect(byName('health_insured_children_under_19_share').resolution.acs5['2016']).toEqual({
      kind: 'unavailable',
      reason: 'not_comparable',
    });
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
    expect(share.resolution.acs5['2013']).toEqual({
      kind: 'derived',
      formula: 'pct(B25034_010E, B25034_001E)',
      codes: ['B25034_010E', 'B25034_001E'],
    });
  });

  it('label normalisation ignores wording noise but not meaning', () => {
    expect(sameLabel('Median age --!!Male', 'Male')).toBe(true);
    expect(sameLabel('Total:!!Foreign born:', 'Total:!!Foreign-born:')).toBe(true);
    expect(
      sameLabel(
        'Estimate!!Median household income in the past 12 months (in 2005 inflation-adjusted dollars)',
        'Median household income in the past 12 months (in 2024 inflation-adjusted dollars)',
      ),
    ).toBe(true);
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

let sourceAndMetaP: Promise<{ source: CatalogSource; meta: CatalogMetadata }> | undefined;
/** The catalog source and the step's metadata view, loaded once for the tests that re-derive judgements. */
function sourceAndMeta(): Promise<{ source: CatalogSource; meta: CatalogMetadata }> {
  sourceAndMetaP ??= (async () => {
    const source = readCatalogSource(REPO_CATALOG_DIR);
    return { source, meta: await loadCodeVintages(SHARED_CENSUS, new Set(source.variables.flatMap(codesOf))) };
  })();
  return sourceAndMetaP;
}
const latestLabel = (meta: CatalogMetadata, d: 'acs1' | 'acs5', code: string): string | undefined =>
  [...(meta.codes.get(d)!.get(code) ?? new Map<number, VintageInfo>()).entries()]
    .filter(([, i]) => i.label !== null)
    .sort((a, b) => b[0] - a[0])[0]?.[1].label ?? undefined;

describe('comparability judgements (issue 10 regressions)', () => {
  const YEARS_2009_2016 = [2009, 2010, 2011, 2012, 2013, 2014, 2015, 2016];

  it('2008 B25010: the API labels and the raw values decide, not the misnumbered Census Reporter 2008 shell', () => {
    // The shell lists "Owner occupied" as line 3 and "Renter occupied" as line 4 …
    const shell = gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, 'metadata/acs1/2008/census_column_metadata.csv.gz'))).toString();
    expect(shell).toMatch(/^B25010,3\.0,B25010003,Owner occupied,/m);
    // … the Bureau's own labels and the published values are the standard layout.
    expect(apiLabels.get(2008)!.get('B25010')!.get('B25010_002E')).toBe('Estimate!!Total!!Owner occupied');
    expect(apiLabels.get(2008)!.get('B25010')!.get('B25010_003E')).toBe('Estimate!!Total!!Renter occupied');
    expect(rawCell(2008, 'nation', 'B25010', 'B25010_002E')).toBe('2.70');
    expect(rawCell(2008, 'nation', 'B25010', 'B25010_003E')).toBe('2.44');
    expect(byName('housing_average_household_size_owner').resolution.acs1['2008']).toEqual({ kind: 'direct', code: 'B25010_002E' });
    expect(byName('housing_average_household_size_renter').resolution.acs1['2008']).toEqual({ kind: 'direct', code: 'B25010_003E' });
    for (const n of ['housing_average_household_size_owner', 'housing_average_household_size_renter']) {
      expect(byName(n).not_comparable.acs1, n).toEqual([]);
      expect(byName(n).unverified_vintages.acs1, n).toEqual([]);
    }
  });

  it('uninsured 2009–2016: the total over all age groups does not depend on the under-18/under-19 split', () => {
    for (const n of ['core_uninsured_rate', 'health_people_uninsured', 'health_people_insured']) {
      const v = byName(n);
      expect(v.not_comparable.acs1, n).toEqual([]);
      expect(v.not_comparable.acs5, n).toEqual([]);
      for (const y of YEARS_2009_2016) expect(v.resolution.acs1[String(y)]!.kind, `${n} acs1 ${y}`).toBe('derived');
    }
    expect(byName('core_uninsured_rate').resolution.acs1['2010']).toEqual({
      kind: 'derived',
      formula: 'pct(sum(B27010_017E, B27010_033E, B27010_050E, B27010_066E), B27010_001E)',
      codes: ['B27010_017E', 'B27010_033E', 'B27010_050E', 'B27010_066E', 'B27010_001E'],
    });
    // The split itself still changed: the age-group figures stay withheld.
    for (const n of [
      'health_uninsured_under_19',
      'health_uninsured_19_to_34',
      'health_uninsured_rate_under_19',
      'health_insured_children_under_19_share',
    ]) {
      expect(
        byName(n).not_comparable.acs1.map((x) => x.vintage),
        n,
      ).toEqual(YEARS_2009_2016);
    }
    // 35–64 and 65+ did not move, so they were never withheld.
    expect(byName('health_uninsured_65_and_over').not_comparable.acs1).toEqual([]);
  });

  it('Food Stamps/SNAP consistency: one wording rule for every code of every variable', () => {
    // The rename reached the labels in 2009; 2008 says "Food Stamps" in B22003 and B22010 alike.
    expect(apiLabels.get(2008)!.get('B22010')!.get('B22010_002E')).toBe(
      'Estimate!!Total!!Household received Food Stamps in the past 12 months',
    );
    expect(apiLabels.get(2009)!.get('B22010')!.get('B22010_002E')).toBe(
      'Estimate!!Total!!Household received Food Stamps/SNAP in the past 12 months',
    );
    for (const n of [
      'health_households_snap_with_disability',
      'health_households_snap_with_disability_count',
      'economics_households_with_snap',
      'economics_households_with_snap_share',
    ]) {
      expect(byName(n).not_comparable.acs1, n).toEqual([]);
      expect(byName(n).availability.acs1, n).toContain(2008);
    }
    expect(byName('health_households_snap_with_disability').resolution.acs1['2008']).toEqual({
      kind: 'derived',
      formula: 'pct(B22010_003E, B22010_002E)',
      codes: ['B22010_003E', 'B22010_002E'],
    });
    // The mechanism, not the instance: a code withheld in a vintage for one variable is withheld
    // for every variable that uses it on its own (only inside a comparable sum may it differ).
    // Keyed by the code and the code it stands for (an override may use one code for another's meaning).
    const withheld = new Map<string, string>();
    for (const v of compiled.variables) {
      for (const d of ['acs1', 'acs5'] as const) {
        for (const n of v.not_comparable[d]) {
          const m = /^(\w+)(?: \(for (\w+)\))?:/.exec(n.reason)!;
          withheld.set(`${d}:${n.vintage}:${m[1]}:${m[2] ?? m[1]}`, v.api_name);
        }
      }
    }
    const outsideSums = (f: Formula, out: Set<string>): Set<string> => {
      if (f.kind === 'code') out.add(f.code);
      else if (f.kind === 'call' && !(f.fn === 'sum' && f.args.every((a) => a.kind === 'code'))) f.args.forEach((a) => outsideSums(a, out));
      return out;
    };
    let checked = 0;
    for (const v of compiled.variables) {
      for (const d of ['acs1', 'acs5'] as const) {
        for (const [y, r] of Object.entries(v.resolution[d])) {
          if (r.kind === 'unavailable') continue;
          const codes = r.kind === 'direct' ? new Set([r.code]) : outsideSums(parseFormula(r.formula), new Set());
          for (const code of codes) {
            checked++;
            const ref = r.kind === 'direct' ? v.census_code! : v.component_codes![r.codes.indexOf(code)]!;
            const other = withheld.get(`${d}:${y}:${code}:${ref}`);
            expect(other, `${v.api_name} uses ${code} in ${d} ${y}, which ${other} withholds`).toBeUndefined();
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(5000);
    // Per-entry acceptances (the cause: one entry listed the 2008 label of B22010_003E, none that of
    // B22010_002E) are retired; the wordings file is the one place.
    expect(
      new Comparator([{ phrases: ['Food Stamps/SNAP', 'Food Stamps'], reason: 'renamed in 2008' }]).sameLabel(
        'Estimate!!Total!!Household received Food Stamps in the past 12 months',
        'Total:!!Household received Food Stamps/SNAP in the past 12 months:',
      ),
    ).toBe(true);
    expect(
      sameLabel(
        'Estimate!!Total!!Household received Food Stamps in the past 12 months',
        'Total:!!Household received Food Stamps/SNAP in the past 12 months:',
      ),
    ).toBe(false);
  });

  it('the commute note dates the "(excluding taxicab)" label change to 2024, as the shells do', () => {
    const title = (d: string, y: number) =>
      /^B08301,[^,]*,B08301010,([^\n]*?),\d/m.exec(
        gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, `metadata/${d}/${y}/census_column_metadata.csv.gz`))).toString(),
      )![1];
    for (const d of ['acs1', 'acs5']) {
      expect(title(d, 2019), `${d} 2019`).toBe('Public transportation (excluding taxicab):');
      expect(title(d, 2023), `${d} 2023`).toBe('Public transportation (excluding taxicab):');
      expect(title(d, 2024), `${d} 2024`).toBe('Public transportation:');
    }
    const v = byName('transport_commute_public_transportation');
    expect(v.notes).toMatch(/2024/);
    expect(v.notes).not.toMatch(/2019/);
    expect(v.not_comparable).toEqual({ acs1: [], acs5: [] });
    expect(v.availability.acs1[0]).toBe(2007);
  });

  it('C16002_004E in 2005 ("Linguistically isolated") is the same line as "Limited English speaking household"', () => {
    expect(apiLabels.get(2005)!.get('C16002')!.get('C16002_004E')).toBe('Estimate!!Total!!Spanish!!Linguistically isolated');
    expect(byName('social_limited_english_households_spanish').resolution.acs1['2005']).toEqual({ kind: 'direct', code: 'C16002_004E' });
    // 2005 has no C16002_010E/_013E (two language groups, not four): the total is not in that vintage.
    expect(byName('social_limited_english_households').resolution.acs1['2005']).toEqual({ kind: 'unavailable', reason: 'not_in_vintage' });
  });

  it('every not_comparable carries a reason a reader can check: the code, both labels or universes, and the files they come from', () => {
    let n = 0;
    for (const v of compiled.variables) {
      for (const d of ['acs1', 'acs5'] as const) {
        const listed = v.not_comparable[d].map((x) => x.vintage);
        const resolved = Object.entries(v.resolution[d])
          .filter(([, r]) => r.kind === 'unavailable' && r.reason === 'not_comparable')
          .map(([y]) => Number(y));
        expect(listed, `${v.api_name} ${d}`).toEqual(resolved);
        for (const x of v.not_comparable[d]) {
          n++;
          const m =
            /^([BC]\d{5}[A-Z]*_\d{3}E)(?: \(for [BC]\d{5}[A-Z]*_\d{3}E\))?: (label|universe) "(.+)" differs from "(.+)" \((.+?)(?:, borrowed from \d{4})? vs (.+)\)$/.exec(
              x.reason,
            );
          expect(m, `${v.api_name} ${d} ${x.vintage}: ${x.reason}`).not.toBeNull();
          expect(m![3]).not.toBe(m![4]);
          for (const file of [m![5]!, m![6]!]) expect(fs.existsSync(path.join(SHARED_CENSUS, file)), file).toBe(true);
        }
      }
    }
    expect(n).toBeGreaterThan(100);
  });

  it('every vintage released although its raw label differs from the reference is justified in the entry notes', async () => {
    // Re-derive from the metadata: which variables use a code whose label, in a vintage the
    // catalog serves, differs from the reference under the fixed normalisations alone?
    const { source, meta } = await sourceAndMeta();
    const needNotes: string[] = [];
    for (const sv of source.variables as SourceVariable[]) {
      const v = byName(sv.api_name);
      let released = false;
      for (const d of ['acs1', 'acs5'] as const) {
        for (const y of v.availability[d]) {
          const r = v.resolution[d][String(y)]!;
          const codes = r.kind === 'direct' ? [r.code] : r.kind === 'derived' ? r.codes : [];
          const main = sv.census_code ? [sv.census_code] : componentCodes(parseFormula(sv.formula!));
          codes.forEach((code, i) => {
            const here = meta.codes.get(d)!.get(code)?.get(y)?.label;
            const ref = latestLabel(meta, d, main[i]!);
            if (here && ref && !sameLabel(here, ref)) released = true;
          });
        }
      }
      if (released && !sv.notes) needNotes.push(sv.api_name);
    }
    expect(needNotes, needNotes.join('\n')).toEqual([]);
  }, 60_000);

  it('Food Stamps/SNAP consistency, by wording: no segment change that withholds a vintage anywhere is served elsewhere', async () => {
    // The bug was one wording change ("Food Stamps" → "Food Stamps/SNAP") withholding B22010_002E
    // while B22010_003E and B22003_002E, which carry the same change, were served. Compare the
    // segment changes behind every withholding with the raw segment changes of every served code
    // used on its own (codes inside a comparable sum may differ by design).
    const { source, meta } = await sourceAndMeta();
    const cmp = new Comparator(source.wordings);
    const changes = (c: Comparator, a: string, b: string): string[] => {
      const x = c.segments(a);
      const y = c.segments(b);
      const out: string[] = [];
      for (let i = 1; i <= Math.min(x.length, y.length); i++)
        if (x[x.length - i] !== y[y.length - i]) out.push(`${x[x.length - i]} → ${y[y.length - i]}`);
      return out;
    };
    const withholding = new Map<string, string>();
    for (const v of compiled.variables) {
      for (const d of ['acs1', 'acs5'] as const) {
        for (const n of v.not_comparable[d]) {
          const m = /: label "(.+)" differs from "(.+)" \(/.exec(n.reason);
          if (m) for (const c of changes(cmp, m[1]!, m[2]!)) withholding.set(c, `${v.api_name} ${d} ${n.vintage}`);
        }
      }
    }
    expect(withholding.size).toBeGreaterThan(5);
    const plain = new Comparator();
    const served = new Set<string>();
    const outsideSums = (f: Formula, out: Set<string>): Set<string> => {
      if (f.kind === 'code') out.add(f.code);
      else if (f.kind === 'call' && !(f.fn === 'sum' && f.args.every((a) => a.kind === 'code'))) f.args.forEach((a) => outsideSums(a, out));
      return out;
    };
    for (const v of compiled.variables) {
      for (const d of ['acs1', 'acs5'] as const) {
        for (const y of v.availability[d]) {
          const r = v.resolution[d][String(y)]!;
          if (r.kind === 'unavailable') continue;
          const codes = r.kind === 'direct' ? [r.code] : [...outsideSums(parseFormula(r.formula), new Set())];
          for (const code of codes) {
            const ref = r.kind === 'direct' ? v.census_code! : v.component_codes![r.codes.indexOf(code)]!;
            const here = meta.codes.get(d)!.get(code)?.get(y)?.label;
            const latest = latestLabel(meta, d, ref);
            if (!here || !latest) continue;
            for (const c of changes(plain, here, latest)) {
              served.add(c);
              expect(withholding.get(c), `${v.api_name} ${d} ${y} serves ${code} across "${c}"`).toBeUndefined();
            }
          }
        }
      }
    }
    // Both sides see the changes in question: the SNAP rename is served, the age cut withheld.
    expect(served).toContain(
      'household received food stamps in the past 12 months → household received food stamps/snap in the past 12 months',
    );
    expect(withholding.has('under 18 years → under 19 years')).toBe(true);
  }, 60_000);
});

describe('the sum rule on a fixture: a sum over a dimension compares by what it leaves out', () => {
  // B99999 by age: 2010 cuts "Under 18 / 18 to 64 / 65 and over", 2024 "Under 19 / 19 to 64 / 65 and over".
  const ages: Record<number, string[]> = {
    2010: ['Under 18 years', '18 to 64 years', '65 years and over'],
    2024: ['Under 19 years', '19 to 64 years', '65 years and over'],
  };
  function fixture(extra2010: string[] = []): CatalogMetadata {
    const codes = new Map<string, Map<number, VintageInfo>>();
    const tables: CatalogMetadata['tables'] = new Map();
    for (const [y, cats] of Object.entries(ages)) {
      const table = new Map<string, string>();
      [...cats, ...(Number(y) === 2010 ? extra2010 : [])].forEach((cat, i) => {
        const code = `B99999_${String(i + 2).padStart(3, '0')}E`;
        const label = `Estimate!!Total!!${cat}!!No coverage`;
        table.set(code, label);
        if (!codes.has(code)) codes.set(code, new Map());
        codes.get(code)!.set(Number(y), { label, universe: 'People', source: `fixture ${y}` });
      });
      tables.set(tableKey('acs1', Number(y), 'B99999'), table);
    }
    return {
      codes: new Map([
        ['acs1', codes],
        ['acs5', new Map()],
      ]),
      tables,
    };
  }
  const judge = (formula: string, meta: CatalogMetadata) => {
    const source: CatalogSource = {
      topics: [{ topic_key: 'health', label: 'Health', depth: 0 }],
      variables: [
        {
          api_name: 'health_fixture',
          census_code: null,
          formula,
          label: 'fixture',
          unit: 'count',
          display_format: 'integer',
          topic: 'health',
          file: 'catalog/health.json',
        },
      ],
      wordings: [],
      files: [],
    };
    const v = compileCatalog(source, meta).variables[0]!;
    return { r2010: v.resolution.acs1['2010'], reasons: v.not_comparable.acs1.map((n) => n.reason) };
  };

  it('every category, however cut: comparable', () => {
    expect(judge('sum(B99999_002E, B99999_003E, B99999_004E)', fixture()).r2010!.kind).toBe('derived');
  });
  it('the same category left out (65 and over): comparable', () => {
    expect(judge('sum(B99999_002E, B99999_003E)', fixture()).r2010!.kind).toBe('derived');
  });
  it('a differently cut category left out (18 to 64 vs 19 to 64): not comparable, with the per-code reason', () => {
    const j = judge('sum(B99999_002E, B99999_004E)', fixture());
    expect(j.r2010).toEqual({ kind: 'unavailable', reason: 'not_comparable' });
    expect(j.reasons[0]).toMatch(
      /^B99999_002E: label "Estimate!!Total!!Under 18 years!!No coverage" differs from "Estimate!!Total!!Under 19 years!!No coverage"/,
    );
  });
  it('a category the other vintage lacks (2010 "Age not reported"): not comparable', () => {
    expect(judge('sum(B99999_002E, B99999_003E, B99999_004E)', fixture(['Age not reported'])).r2010).toEqual({
      kind: 'unavailable',
      reason: 'not_comparable',
    });
  });
  it('the rule is for sums only: a ratio of the same lines is compared code by code', () => {
    expect(judge('ratio(B99999_002E, B99999_003E)', fixture()).r2010).toEqual({ kind: 'unavailable', reason: 'not_comparable' });
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
    const dir = brokenCopy((d) =>
      edit(d, 'housing.json', (doc) => {
        doc.variables[0]!.census_code = 'B25002_099E';
      }),
    );
    await expect(runStepIsolated(createCatalogStep(dir))).rejects.toThrow(
      /catalog\/housing\.json: housing_occupied_units: census code B25002_099E does not exist/,
    );
  });

  it('bad formula', async () => {
    const dir = brokenCopy((d) =>
      edit(d, 'core.json', (doc) => {
        doc.variables.find((v) => v.api_name === 'core_poverty_rate')!.formula = 'pct(B17001_002E)';
      }),
    );
    const err = await runStepIsolated(createCatalogStep(dir)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(String((err as Error).message)).toMatch(/catalog\/core\.json: entry #9 \(core_poverty_rate\): bad formula/);
  });

  it('wrong count and duplicate api_name', async () => {
    const dropped = brokenCopy((d) =>
      edit(d, 'social.json', (doc) => {
        doc.variables.pop();
      }),
    );
    await expect(runStepIsolated(createCatalogStep(dropped))).rejects.toThrow(/expected exactly 392 variables, found 391/);
    const dup = brokenCopy((d) =>
      edit(d, 'social.json', (doc) => {
        doc.variables[1]!.api_name = doc.variables[0]!.api_name;
      }),
    );
    await expect(runStepIsolated(createCatalogStep(dup))).rejects.toThrow(
      /social\.json: entry #2 \(social_less_than_high_school\): api_name also used/,
    );
  });

  it('per-entry acceptances are retired in favour of the one wordings file; a wording needs a reason', async () => {
    const retired = brokenCopy((d) =>
      edit(d, 'economics.json', (doc) => {
        doc.variables[0]!.accept_label_variants = ['Total:!!Something'];
      }),
    );
    await expect(runStepIsolated(createCatalogStep(retired))).rejects.toThrow(
      /economics\.json: entry #1 \(.+\): "accept_label_variants" is retired: a wording judged equivalent goes in catalog\/equivalent_wordings\.json/,
    );
    const noReason = brokenCopy((d) => {
      const p = path.join(d, 'equivalent_wordings.json');
      const doc = JSON.parse(fs.readFileSync(p, 'utf8'));
      doc.equivalent_wordings.push({ phrases: ['Foo', 'Bar'], reason: '' });
      fs.writeFileSync(p, JSON.stringify(doc));
    });
    await expect(runStepIsolated(createCatalogStep(noReason))).rejects.toThrow(
      /catalog\/equivalent_wordings\.json: entry #\d+: "reason" must say why/,
    );
  });

  it('catalog content changes the step version', () => {
    const a = createCatalogStep(REPO_CATALOG_DIR).version;
    const dir = brokenCopy((d) =>
      edit(d, 'core.json', (doc) => {
        doc.variables[0]!.label = 'Total population (edited)';
      }),
    );
    expect(createCatalogStep(dir).version).not.toBe(a);
    expect(createCatalogStep(REPO_CATALOG_DIR).version).toBe(a);
  });
});
