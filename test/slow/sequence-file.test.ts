// `npm run test:slow` (a whole CLI build and the geographies step: about a minute, so outside
// `npm test`; test/etl/sequence-file.test.ts is the fast one on the reader and the observations step).
// `etl build --online --values-source summary-file` for acs5 2019 against the stand-in's
// sequence-based Summary File (test/support/standin/sequence-file.ts: Delaware and DC, real 2010
// tract and block-group codes, the stand-in's own values), misbehaving as census.gov does; then
// every cell of the build compared with the truth: on /v1/data (jam values and "." → null with an
// annotation) and on /data/2019/acs/acs5 (the Bureau's text). Values are random, in temporary
// directories only.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import { startCensusStandin, type CensusStandin } from '../support/census-standin.js';
import { SequenceFileTruth, type SqGeography } from '../support/standin/sequence-file.js';
import { REPO_ROOT } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { testBuildDir } from '../support/build.js';
import { seededWorkDir, standinBuildArgs } from '../support/standin-build.js';

const run = promisify(execFile);
/** B25003's three lines span two sequences of two cells; B01003 and B19013 share one. */
const TABLES = { B01003: 1, B19013: 1, B25003: 3 };
const STATES = ['10', '11'];
const LEVELS = ['nation', 'state', 'county', 'tract', 'block_group'] as const;

let truth: SequenceFileTruth;
let standin: CensusStandin;
let tmp: string;
let svc: Service;
let cliOutput: string;
let dryRun: string;

const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sequence-file-'));
  truth = new SequenceFileTruth({ seed: 2019, vintage: 2019, states: STATES, tables: TABLES });
  // The Data API stand-in publishes no value: every value must come from the Summary File.
  standin = await startCensusStandin(
    { seed: 1, vintage: 2019, dataset: 'acs5', geographies: [], tables: {} },
    { delayMs: 2 },
    { sequenceFile: [truth] },
  );
  standin.inject({ match: 'g20195dc.csv', kind: '503' });
  standin.inject({ match: '20195de0002000.zip', kind: 'truncate' });
  standin.inject({ match: '20195dc0001000.zip', kind: 'html200' });
  standin.inject({ match: 'ACS_5yr_Seq_Table_Number_Lookup.txt', kind: 'reset' });
  // The suite's build as the previous one: only observations and geographies are built again.
  const fallback = await seededWorkDir(tmp, await testBuildDir());
  const args = standinBuildArgs(standin, {
    dir: tmp,
    fallback,
    valuesSource: 'summary-file',
    datasets: ['acs5'],
    vintages: [2019],
    levels: [...LEVELS],
    states: STATES,
    tables: TABLES,
    extra: ['--no-shapes'],
  });
  const env = { ...process.env, CENSUS_SOURCE_DIR: path.join(tmp, 'empty'), ETL_PARSE_WORKERS: '0' };
  dryRun = (await run(tsx, [...args, '--dry-run'], { cwd: REPO_ROOT, env, maxBuffer: 1 << 24 })).stdout;
  const r = await run(tsx, args, { cwd: REPO_ROOT, env, maxBuffer: 1 << 24 });
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
  estimate_annotation: { code: string } | null;
  moe_annotation: { code: string } | null;
};

const ask = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });
const plain = (s: string) => (s !== '' && s !== '.' && !s.startsWith('-') ? Number(s) : null);
/** The geographies whose values the build must hold: the state's own files, not the nation's copy of the states. */
const expected = (level: string): SqGeography[] =>
  truth.geographies.filter((g) => g.level === level && (level === 'nation' || g.usps !== 'us'));

describe('acs5 2019 from the stand-in sequence-based Summary File', () => {
  it('--dry-run lists the sequence zips and geography files; the build downloads each once after the faults, and no Data API value', () => {
    // nation (us): 1 geography file + 3 zips; per state: 2 folders × (1 + 3).
    expect(dryRun).toContain('Summary File (sequence-based)');
    expect(dryRun).toMatch(/acs5 2019: 3 tables in 15 sequence zips \+ 6 geography\/lookup files/);
    expect(
      standin.requests
        .filter((r) => r.fault)
        .map((r) => r.fault)
        .sort(),
    ).toEqual(['503', 'html200', 'reset', 'truncate']);
    expect(standin.requests.filter((r) => r.url.startsWith('/data/2019/acs/acs5?'))).toEqual([]);
    expect(cliOutput).toContain('values from the sequence-based Summary File');
  });

  it.each(LEVELS)('%s: /v1/data serves every cell of the truth, jam values and dots as null with an annotation', async (level) => {
    const variables = Object.keys(TABLES).flatMap((t) => truth.variables(t));
    const specs =
      level === 'nation' ? ['nation:1'] : level === 'state' || level === 'county' ? [`${level}:*`] : STATES.map((s) => `${level}:${s}*`);
    const served = new Map<string, V1Cell>();
    for (const geo of specs) {
      const res = await ask(`/v1/data?variables=${variables.join(',')}&geo=${geo}&dataset=acs5&vintage=2019`);
      expect(res.statusCode, res.body).toBe(200);
      for (const c of res.json().data as V1Cell[]) served.set(`${c.geo_key}|${c.census_code}`, c);
    }
    const gs = expected(level);
    expect(gs.length).toBeGreaterThan(0);
    let compared = 0;
    let jams = 0;
    for (const g of gs)
      for (const v of variables) {
        const cell = truth.cell(g, v);
        const c = served.get(`${g.key}|${v}`);
        expect(c, `${g.key} ${v}`).toBeDefined();
        expect([c!.estimate, c!.moe_numeric], `${g.key} ${v} ${JSON.stringify(cell)}`).toEqual([plain(cell.E), plain(cell.M)]);
        if (cell.E === '') expect(c!.estimate_annotation?.code, `${g.key} ${v}`).toBe('not_published');
        if (cell.E === '.' || cell.E.startsWith('-')) {
          expect(c!.estimate_annotation, `${g.key} ${v}`).not.toBeNull();
          jams++;
        }
        if (cell.E === '-666666666') expect(c!.estimate_annotation!.code).toBe('not_computable');
        if (cell.E === '-999999999') expect(c!.estimate_annotation!.code).toBe('insufficient_sample');
        if (cell.M === '-555555555') expect(c!.moe_annotation!.code).toBe('controlled');
        if (cell.M === '.') expect(c!.moe_annotation!.code).toBe('missing_in_source');
        compared++;
      }
    expect(compared).toBe(gs.length * variables.length);
    if (gs.length > 20) expect(jams).toBeGreaterThan(0);
  });

  it('/data/2019/acs/acs5 answers tracts with the Bureau codes, the geography file names and GEO_IDs', async () => {
    for (const table of Object.keys(TABLES)) {
      const res = await ask(`/data/2019/acs/acs5?get=NAME,group(${table})&for=tract:*&in=state:11`);
      expect(res.statusCode, res.body).toBe(200);
      const [header, ...rows] = res.json() as Array<Array<string | null>>;
      const gs = expected('tract').filter((g) => g.state === '11');
      expect(rows.length).toBe(gs.length);
      for (const g of gs) {
        const row = rows.find((r) => `tract:${r.at(-3)}${r.at(-2)}${r.at(-1)}` === g.key)!;
        expect(row, g.key).toBeDefined();
        expect(row[header!.indexOf('NAME')]).toBe(g.name);
        expect(row[header!.indexOf('GEO_ID')]).toBe(g.apiGeoId);
        for (const v of truth.variables(table)) {
          const cell = truth.cell(g, v);
          const text = (s: string) => (s === '' || s === '.' ? null : s);
          expect(row[header!.indexOf(v)], `${g.key} ${v}`).toBe(text(cell.E));
          expect(row[header!.indexOf(`${v.slice(0, -1)}M`)], `${g.key} ${v}`).toBe(text(cell.M));
        }
      }
    }
  });
});
