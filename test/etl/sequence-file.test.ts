// The sequence-based Summary File path without the CLI (seconds; the whole `etl build --online`
// with the service on top is test/slow/sequence-file.test.ts): acs5 2019 for Delaware and DC at
// nation, state, county, tract and block group, downloaded from the stand-in
// (test/support/standin/sequence-file.ts) through census.gov's faults by fetchSequenceFiles, then
// the observations step; every stored cell compared with the truth (estimates, MOEs, jam values
// and dots → null with their annotation), and the published form (names, GEO_IDs, the Bureau's
// text where the stored cell does not give it back) with the truth's files.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDuckDB } from '../../etl/duckdb.js';
import { createStepLogger } from '../../etl/log.js';
import { fetchSequenceFiles } from '../../etl/online/sequence-file.js';
import { splitForSummaryFile, type SummaryFetchResult } from '../../etl/online/summary-file.js';
import { parseSelection, planSelection } from '../../etl/online/selection.js';
import { csvFields, readGeographyCsv } from '../../etl/sources/sequence-file.js';
import { observationsStep, partitionDir } from '../../etl/steps/observations.js';
import { renderValue } from '../../src/domain/census-api/published-text.js';
import type { AnnotationCode } from '../../src/domain/annotations.js';
import { startCensusStandin, type CensusStandin } from '../support/census-standin.js';
import { SequenceFileTruth, type SqGeography } from '../support/standin/sequence-file.js';

/** B25003's three lines span two sequences of two cells; B01003 and B19013 share one. */
const TABLES = { B01003: 1, B19013: 1, B25003: 3 };
const STATES = ['10', '11'];
const LEVELS = ['nation', 'state', 'county', 'tract', 'block_group'] as const;

let truth: SequenceFileTruth;
let standin: CensusStandin;
let tmp: string;
let fetched: SummaryFetchResult;
type Row = { geo_key: string; variable: string; estimate: number | null; moe: number | null; ea: string | null; ma: string | null };
const stored = new Map<string, Row>();
const forms = new Map<
  string,
  { names: Record<string, string>; geoIds: Record<string, string>; text: Record<string, Record<string, string | null>> }
>();

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sequence-file-'));
  truth = new SequenceFileTruth({ seed: 2019, vintage: 2019, states: STATES, tables: TABLES });
  standin = await startCensusStandin(
    { seed: 1, vintage: 2019, dataset: 'acs5', geographies: [], tables: {} },
    { delayMs: 2 },
    { sequenceFile: [truth] },
  );
  standin.inject({ match: 'g20195dc.csv', kind: '503' });
  standin.inject({ match: '20195de0002000.zip', kind: 'truncate' });
  standin.inject({ match: '20195dc0001000.zip', kind: 'html200' });
  standin.inject({ match: 'ACS_5yr_Seq_Table_Number_Lookup.txt', kind: 'reset' });
  const log = createStepLogger({ quiet: true });
  const src = path.join(tmp, 'src');
  fetched = await fetchSequenceFiles({
    cacheDir: src,
    filesBase: standin.filesBase,
    items: [
      {
        format: 'sequence',
        dataset: 'acs5',
        vintage: 2019,
        selection: { levels: [...LEVELS].sort(), states: STATES, tables: { B01003: null, B19013: null, B25003: null } },
      },
    ],
    retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5, fetchImpl: fetch, log, secrets: [] },
    log,
  });
  const out = path.join(tmp, 'build');
  await observationsStep.run({
    sourceDir: src,
    outDir: out,
    previousDir: undefined,
    previousInputs: {},
    previousRows: {},
    inputs: {},
    log,
    synthetic: false,
  });
  await withDuckDB(async (db) => {
    for (const level of LEVELS) {
      const dir = path.join(out, partitionDir({ dataset: 'acs5', vintage: 2019, level }));
      const r = await db.runAndReadAll(
        `SELECT geo_key, variable, estimate, moe, estimate_annotation AS ea, moe_annotation AS ma FROM read_parquet('${dir}/**/*.parquet')`,
      );
      for (const row of r.getRowObjects() as unknown as Row[]) stored.set(`${row.geo_key}|${row.variable}`, row);
      forms.set(level, JSON.parse(await fs.readFile(path.join(dir, 'published-form.json'), 'utf8')));
    }
  });
}, 120_000);
afterAll(async () => {
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const plain = (s: string) => (s !== '' && s !== '.' && !s.startsWith('-') ? Number(s) : null);
/** The geographies whose values the build must hold: the states from their own files, not from the nation's copy. */
const expected = (level: string): SqGeography[] =>
  truth.geographies.filter((g) => g.level === level && (level === 'nation' || g.usps !== 'us'));
const JAM: Record<string, string> = {
  '-666666666': 'not_computable',
  '-999999999': 'insufficient_sample',
  '-222222222': 'moe_not_computable',
  '-555555555': 'controlled',
  '.': 'missing_in_source',
};

describe('acs5 2019 from the stand-in sequence-based Summary File, download and observations step', () => {
  it('downloads the lookup, 5 geography files and 15 sequence zips, each once after the faults', () => {
    expect(fetched.failed).toEqual([]);
    // The lookup, the nation's and each state's two folders' geography files, and 3 sequences per folder.
    expect(fetched.downloaded).toBe(1 + 5 + 15);
    expect(
      standin.requests
        .filter((r) => r.fault)
        .map((r) => r.fault)
        .sort(),
    ).toEqual(['503', 'html200', 'reset', 'truncate']);
  });

  it.each(LEVELS)('%s: every cell of the truth is stored, jam values and dots as null with their annotation', (level) => {
    const gs = expected(level);
    expect(gs.length).toBeGreaterThan(0);
    const variables = Object.keys(TABLES).flatMap((t) => truth.variables(t));
    const seen = { jam: 0, dot: 0, untabulated: 0 };
    for (const g of gs)
      for (const v of variables) {
        const cell = truth.cell(g, v);
        const row = stored.get(`${g.key}|${v}`);
        if (cell.E === '' && cell.M === '') {
          // Not tabulated for this geography: not stored (the API's all-null cells).
          expect(row, `${g.key} ${v}`).toBeUndefined();
          seen.untabulated++;
          continue;
        }
        expect(row, `${g.key} ${v}`).toBeDefined();
        expect([row!.estimate, row!.moe], `${g.key} ${v} ${JSON.stringify(cell)}`).toEqual([plain(cell.E), plain(cell.M)]);
        expect([row!.ea, row!.ma], `${g.key} ${v} ${JSON.stringify(cell)}`).toEqual([JAM[cell.E] ?? null, JAM[cell.M] ?? null]);
        if (cell.E.startsWith('-')) seen.jam++;
        if (cell.E === '.') seen.dot++;
      }
    // Nothing stored beyond the truth's geographies of the selected states (the nation's file's states, a place, urban parts).
    const keys = new Set(gs.map((g) => g.key));
    for (const k of stored.keys()) if (k.startsWith(`${level}:`)) expect(keys.has(k.slice(0, k.indexOf('|'))), k).toBe(true);
    if (gs.length > 100) expect(Math.min(seen.jam, seen.dot, seen.untabulated)).toBeGreaterThan(0);
  });

  it("the published form: the geography file's names, the API's GEO_IDs, and the Bureau's text where the cell does not give it back", () => {
    for (const level of LEVELS) {
      const form = forms.get(level)!;
      for (const g of expected(level)) {
        expect(form.names[g.key], g.key).toBe(g.name);
        expect(form.geoIds[g.key], g.key).toBe(g.apiGeoId);
        for (const v of Object.keys(TABLES).flatMap((t) => truth.variables(t))) {
          const cell = truth.cell(g, v);
          const stem = v.slice(v.indexOf('_') + 1, -1);
          const row = stored.get(`${g.key}|${v}`);
          // What /data/2019/acs/acs5 answers: the kept text where there is one, else the stored cell rendered.
          const answered = (col: string, value: number | null, ann: string | null) => {
            const kept = form.text[g.key]?.[`${stem}${col}`];
            return kept !== undefined ? kept : row ? renderValue(value, ann as AnnotationCode | null) : null;
          };
          const bureau = (t: string) => (t === '' || t === '.' ? null : t);
          expect(answered('E', row?.estimate ?? null, row?.ea ?? null), `${g.key} ${v}`).toBe(bureau(cell.E));
          expect(answered('M', row?.moe ?? null, row?.ma ?? null), `${g.key} ${v}`).toBe(bureau(cell.M));
        }
      }
    }
  });

  it("a second selection adds to the first (--states 11 --tables B25003 after --states 10 --tables B01003): the merged selection's files are fetched and built", async () => {
    const log = createStepLogger({ quiet: true });
    const src = path.join(tmp, 'src2');
    const retry = { retries: 3, baseDelayMs: 1, maxDelayMs: 5, fetchImpl: fetch, log, secrets: [] };
    const item = (states: string[], table: string) => ({
      format: 'sequence' as const,
      dataset: 'acs5' as const,
      vintage: 2019,
      selection: { levels: ['county' as const], states, tables: { [table]: null } },
    });
    for (const [states, table] of [
      [['10'], 'B01003'],
      [['11'], 'B25003'],
    ] as const) {
      const r = await fetchSequenceFiles({ cacheDir: src, filesBase: standin.filesBase, items: [item([...states], table)], retry, log });
      expect(r.failed).toEqual([]);
    }
    const out = path.join(tmp, 'build2');
    await observationsStep.run({
      sourceDir: src,
      outDir: out,
      previousDir: undefined,
      previousInputs: {},
      previousRows: {},
      inputs: {},
      log,
      synthetic: false,
    });
    const dir = path.join(out, partitionDir({ dataset: 'acs5', vintage: 2019, level: 'county' }));
    const got = await withDuckDB(async (db) => {
      const r = await db.runAndReadAll(
        `SELECT DISTINCT substr(geo_key, 8, 2) AS st, table_id FROM read_parquet('${dir}/*.parquet') ORDER BY 1, 2`,
      );
      return r.getRowObjects().map((x) => `${x.st} ${x.table_id}`);
    });
    expect(got).toEqual(['10 B01003', '10 B25003', '11 B01003', '11 B25003']);
  });

  it('block groups before 2013, the only level selected: auto takes the sequence-based Summary File (the Data API has none); 2013 on, for two states, the API', async () => {
    const plan = async (vintages: string) => {
      const sel = parseSelection({ datasets: 'acs5', vintages, levels: 'block_group', states: '10,11', tables: 'B01003' });
      const p = await planSelection(sel, async () => []);
      return { sel, split: splitForSummaryFile(p.api, 'auto', sel) };
    };
    const early = await plan('2012');
    expect(early.split.summary).toEqual([
      {
        format: 'sequence',
        dataset: 'acs5',
        vintage: 2012,
        selection: { levels: ['block_group'], states: ['10', '11'], tables: { B01003: null } },
      },
    ]);
    expect(early.sel.skipped).toEqual([]);
    const later = await plan('2014');
    expect(later.split.summary).toEqual([]);
    expect(later.split.rest.length).toBeGreaterThan(0);
  });

  it('the stand-in geography file is the documented record layout: GEOID and NAME as fields 49 and 50, names with commas quoted', () => {
    const line = truth
      .geographyText('dc')
      .split('\r\n')
      .find((l) => l.includes(',140,'))!;
    const f = csvFields(line);
    expect(f).toHaveLength(53);
    expect(f[48]).toMatch(/^14000US11001\d{6}$/);
    expect(f[49]).toMatch(/^Census Tract [\d.]+, District of Columbia, District of Columbia$/);
  });

  it('reads a geography record whose NAME holds commas, quoted or not, and skips components and other levels', async () => {
    const rec = (sumlevel: string, component: string, logrecno: string, geoid: string, name: string) => {
      const f = new Array<string>(53).fill('');
      [f[0], f[1], f[2], f[3], f[4], f[48], f[49]] = ['ACSSF', 'DC', sumlevel, component, logrecno, geoid, name];
      return f.join(',');
    };
    const file = path.join(tmp, 'g20195dc.csv');
    await fs.writeFile(
      file,
      [
        rec('140', '00', '0000001', '14000US11001000100', '"Census Tract 1, District of Columbia, District of Columbia"'),
        rec('140', '00', '0000002', '14000US11001000201', 'Census Tract 2.01, District of Columbia, District of Columbia'),
        rec('140', '01', '0000003', '14001US11001000100', 'Census Tract 1 -- Urban'),
        rec('160', '00', '0000004', '16000US1150000', '"Washington city, District of Columbia"'),
      ].join('\r\n'),
      'latin1',
    );
    const geos = readGeographyCsv(file, new Set(['tract'] as const));
    expect([...geos]).toEqual([
      [
        '0000001',
        {
          level: 'tract',
          key: 'tract:11001000100',
          state: '11',
          name: 'Census Tract 1, District of Columbia, District of Columbia',
          geoId: '1400000US11001000100',
        },
      ],
      [
        '0000002',
        {
          level: 'tract',
          key: 'tract:11001000201',
          state: '11',
          name: 'Census Tract 2.01, District of Columbia, District of Columbia',
          geoId: '1400000US11001000201',
        },
      ],
    ]);
  });
});
