// `etl build --online --values-source summary-file` against the stand-in's table-based Summary File
// (test/support/standin/summary-file.ts: a few states, every level, real geography codes, the
// stand-in's own values), misbehaving as census.gov does, then every cell of the build compared
// with the truth through /v1/data, and the Census-API route's text for one level. The values are
// random, in temporary directories only.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import { startCensusStandin, type CensusStandin, type StandinGeography, type StandinLevel } from '../support/census-standin.js';
import { SummaryFileTruth, type SfLevel } from '../support/standin/summary-file.js';
import { REPO_ROOT } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { testBuildDir } from '../support/build.js';
import { seededWorkDir, standinBuildArgs, type StandinSelection } from '../support/standin-build.js';

const run = promisify(execFile);
const TABLES = { B01003: 1, B19013: 1, B25003: 3 };
/** Published by the stand-in: Delaware too, which the selection leaves out. */
const PUBLISHED = ['10', '11', '44'];
const SELECTED = ['11', '44'];

let truth: SummaryFileTruth;
let truth2022: SummaryFileTruth;
let standin: CensusStandin;
let tmp: string;
let svc: Service;
let cliOutput: string;

/** This file's selection of vintage `y`: every level of the selected states, values from the Summary File. */
const selection = (y: number): StandinSelection => ({
  dir: tmp,
  fallback: path.join(tmp, 'fallback'),
  valuesSource: 'summary-file',
  vintages: [y],
  levels: 'all',
  states: SELECTED,
  tables: TABLES,
});

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'summary-file-'));
  truth = new SummaryFileTruth({ seed: 34, vintage: 2023, states: PUBLISHED, metros: 12, tables: TABLES });
  truth2022 = new SummaryFileTruth({ seed: 35, vintage: 2022, states: PUBLISHED, metros: 12, tables: TABLES });
  // The Data API stand-in publishes nothing here: every value must come from the Summary File.
  // The Data API stand-in's geographies are the Summary File's (its boundary zips are drawn from
  // them: a selection with tracts downloads their cartographic files); it publishes no value.
  const api = truth.geographies.flatMap((g): StandinGeography[] => {
    const code = g.key.slice(g.key.indexOf(':') + 1);
    const fips: Record<string, string[]> = {
      nation: ['1'],
      state: [code],
      county: [code.slice(0, 2), code.slice(2)],
      metro: [code],
      cd: [code.slice(0, 2), code.slice(2)],
      tract: [code.slice(0, 2), code.slice(2, 5), code.slice(5)],
      block_group: [code.slice(0, 2), code.slice(2, 5), code.slice(5, 11), code.slice(11)],
    };
    return g.key && SELECTED.includes(g.state || SELECTED[0]!)
      ? [{ level: g.level as StandinLevel, fips: fips[g.level]!, name: g.name }]
      : [];
  });
  standin = await startCensusStandin(
    { seed: 1, vintage: 2023, dataset: 'acs5', geographies: api, tables: {} },
    { delayMs: 2 },
    { summaryFile: [truth, truth2022] },
  );
  standin.inject({ match: 'Geos20235YR.txt', kind: '503' });
  standin.inject({ match: 'acsdt5y2023-b25003.dat', kind: 'truncate' });
  standin.inject({ match: 'acsdt5y2023-b19013.dat', kind: 'html200' });
  standin.inject({ match: 'acsdt5y2023-b01003.dat', kind: 'reset' });
  // The suite's build as the previous one: its catalog, census-tables and boundaries steps have the
  // same inputs (the fallback links the same reference files), so the CLI reuses them and builds
  // only observations and geographies.
  await seededWorkDir(tmp, await testBuildDir());
  const args = standinBuildArgs(standin, { ...selection(2023), datasets: ['acs5'] });
  const env = { ...process.env, CENSUS_SOURCE_DIR: path.join(tmp, 'empty') };
  const r = await run(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), args, { cwd: REPO_ROOT, env, maxBuffer: 1 << 24 });
  cliOutput = r.stderr;
  svc = await startService({ buildDir: resolveCurrentBuild(path.join(tmp, 'data'))! });
}, 300_000);
afterAll(async () => {
  await svc?.close();
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

type V1Cell = {
  geo_key: string;
  census_code: string;
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: unknown;
  moe_annotation: unknown;
};

const ask = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });

/** The geography specs that ask for every selected geography of a level. */
const SPECS: Record<Exclude<SfLevel, 'other'>, string[]> = {
  nation: ['nation:1'],
  state: ['state:*'],
  county: ['county:*'],
  metro: ['metro:*'],
  cd: ['cd:*'],
  tract: SELECTED.map((s) => `tract:${s}*`),
  block_group: SELECTED.map((s) => `block_group:${s}*`),
};

const plain = (s: string) => (s !== '' && !s.startsWith('-') ? Number(s) : null);

describe('a selection built from the stand-in Summary File', () => {
  it('downloaded the files once each after the faults, and read no Data API value', () => {
    expect(
      standin.requests
        .filter((r) => r.fault)
        .map((r) => r.fault)
        .sort(),
    ).toEqual(['503', 'html200', 'reset', 'truncate']);
    expect(standin.requests.filter((r) => r.url.startsWith('/data/2023/acs/acs5?'))).toEqual([]);
    expect(cliOutput).toContain('values from the Summary File');
  });

  it.each(Object.keys(SPECS) as Array<keyof typeof SPECS>)(
    '%s: /v1/data serves every cell of the truth, and no value of another geography',
    async (level) => {
      const variables = Object.keys(TABLES).flatMap((t) => truth.variables(t));
      const served = new Map<string, V1Cell>();
      for (const geo of SPECS[level]) {
        const res = await ask(`/v1/data?variables=${variables.join(',')}&geo=${geo}&dataset=acs5&vintage=2023`);
        expect(res.statusCode, res.body).toBe(200);
        for (const c of res.json().data as V1Cell[]) served.set(`${c.geo_key}|${c.census_code}`, c);
      }
      const gs = truth.geographies.filter((g) => g.level === level && (g.state === '' || SELECTED.includes(g.state)));
      expect(gs.length).toBeGreaterThan(0);
      let compared = 0;
      for (const g of gs)
        for (const v of variables) {
          const cell = truth.cell(g, v);
          const c = served.get(`${g.key}|${v}`);
          expect(c, `${g.key} ${v}`).toBeDefined();
          expect([c!.estimate, c!.moe_numeric], `${g.key} ${v} ${JSON.stringify(cell)}`).toEqual([plain(cell.E), plain(cell.M)]);
          if (cell.E.startsWith('-')) expect(c!.estimate_annotation, `${g.key} ${v}`).not.toBeNull();
          if (cell.M === '-555555555') expect(c!.moe_annotation).toMatchObject({ code: 'controlled' });
          compared++;
        }
      expect(compared).toBe(gs.length * variables.length);
      // Delaware is published by the stand-in but not selected: its geographies (the reference
      // lists them) have no value; no geography of another level is answered.
      const selected = new Set(gs.map((g) => g.key));
      for (const [k, c] of served) {
        expect(k.startsWith(`${level}:`), k).toBe(true);
        if (!selected.has(c.geo_key)) expect([c.estimate, c.moe_numeric], k).toEqual([null, null]);
      }
      if (level === 'state' || level === 'county') expect([...served.values()].some((c) => c.geo_key.startsWith(`${level}:10`))).toBe(true);
    },
  );

  it('/data/2023/acs/acs5 answers the counties with the Summary File text and the geography file names', async () => {
    for (const table of Object.keys(TABLES)) {
      const res = await ask(`/data/2023/acs/acs5?get=NAME,group(${table})&for=county:*&in=state:44`);
      expect(res.statusCode, res.body).toBe(200);
      const [header, ...rows] = res.json() as Array<Array<string | null>>;
      const gs = truth.geographies.filter((g) => g.level === 'county' && g.state === '44');
      expect(rows.length).toBe(gs.length);
      for (const g of gs) {
        const row = rows.find((r) => `county:${r.at(-2)}${r.at(-1)}` === g.key)!;
        expect(row, g.key).toBeDefined();
        expect(row[header!.indexOf('NAME')]).toBe(g.name);
        expect(row[header!.indexOf('GEO_ID')]).toBe(g.geoId);
        for (const v of truth.variables(table)) {
          const cell = truth.cell(g, v);
          expect(row[header!.indexOf(v)], `${g.key} ${v}`).toBe(cell.E === '' ? null : cell.E);
          expect(row[header!.indexOf(`${v.slice(0, -1)}M`)], `${g.key} ${v}`).toBe(cell.M === '' ? null : cell.M);
        }
      }
    }
  });

  it('a second run with the cache complete downloads nothing and keeps the build', async () => {
    const before = standin.requests.length;
    const r = await run(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), standinBuildArgs(standin, selection(2023)), {
      cwd: REPO_ROOT,
      env: { ...process.env, CENSUS_SOURCE_DIR: path.join(tmp, 'empty') },
      maxBuffer: 1 << 24,
    });
    expect(standin.requests.length).toBe(before);
    expect(r.stderr).toContain('nothing to do');
  }, 120_000);
  it("adding a vintage reads only its own release: the 2023 partitions are the previous build's files", async () => {
    const before = resolveCurrentBuild(path.join(tmp, 'data'))!;
    const files = async (build: string) => {
      const out = new Map<string, number>();
      const walk = async (d: string): Promise<void> => {
        for (const e of await fs.readdir(d, { withFileTypes: true }))
          if (e.isDirectory()) await walk(path.join(d, e.name));
          else out.set(path.relative(build, path.join(d, e.name)), (await fs.stat(path.join(d, e.name))).ino);
      };
      await walk(path.join(build, 'observations/dataset=acs5/vintage=2023'));
      return out;
    };
    const had = await files(before);
    expect(had.size).toBeGreaterThan(10);
    const r = await run(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), standinBuildArgs(standin, selection(2022)), {
      cwd: REPO_ROOT,
      env: { ...process.env, CENSUS_SOURCE_DIR: path.join(tmp, 'empty') },
      maxBuffer: 1 << 24,
    });
    expect(r.stderr).toContain('summary file acs5 2022');
    expect(r.stderr).not.toContain('summary file acs5 2023');
    const after = resolveCurrentBuild(path.join(tmp, 'data'))!;
    expect(after).not.toBe(before);
    // Hard links of the same files: same inode, nothing rewritten.
    expect(await files(after)).toEqual(had);
    const svc2 = await startService({ buildDir: after });
    try {
      const g = truth2022.geographies.find((x) => x.level === 'tract' && x.state === '44')!;
      const res = await svc2.app.inject({
        url: `/v1/data?variables=B25003_002E&geo=${g.key}&dataset=acs5&vintage=2022`,
        headers: { 'x-api-key': svc2.keys.enterprise },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json().data as V1Cell[])[0]!.estimate).toBe(plain(truth2022.cell(g, 'B25003_002E').E));
    } finally {
      await svc2.close();
    }
  }, 300_000);
});
