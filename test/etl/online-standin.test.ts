// `npm run etl -- build --online` with a selection, against the seeded Data API stand-in
// (test/support/census-standin.ts) misbehaving as the real one does, then the build compared cell
// for cell with the stand-in's truth through /v1/data and the Census-API route /data/…. The values
// are the stand-in's truth (random), in temporary directories only.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import {
  startCensusStandin,
  StandinTruth,
  type CensusStandin,
  type StandinGeography,
  type StandinLevel,
} from '../support/census-standin.js';
import { standinLabel, standinPath, standinTitle, standinUniverse } from '../support/standin/labels.js';
import { REPO_ROOT, SHARED_CENSUS } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { standinBuildArgs } from '../support/standin-build.js';

const run = promisify(execFile);
const KEY = 'standin-key-0123456789';
const TABLES = { B01003: 1, B19013: 1, B25003: 3 };
const COUNTIES: Array<[string, string, string, string]> = [
  ['48', '453', 'Travis County', 'Texas'],
  ['48', '491', 'Williamson County', 'Texas'],
  ['06', '075', 'San Francisco County', 'California'],
];

/** Real geography codes (a few tracts and their block groups per county) with the API's 2023 names. */
function geographies(): StandinGeography[] {
  const csv = (rel: string) =>
    gunzipSync(readFileSync(path.join(SHARED_CENSUS, rel)))
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
  const tracts = csv('geo/cenpop/2020/tract.csv.gz');
  const bgs = csv('geo/cenpop/2020/block_group.csv.gz');
  const tractName = (t: string) => `Census Tract ${String(Number(t.slice(0, 4)))}${t.slice(4) === '00' ? '' : `.${t.slice(4)}`}`;
  const out: StandinGeography[] = [{ level: 'nation', fips: ['1'], name: 'United States' }];
  for (const [st, name] of [
    ['06', 'California'],
    ['48', 'Texas'],
  ])
    out.push({ level: 'state', fips: [st!], name: name! });
  for (const [st, co, cname, sname] of COUNTIES) {
    out.push({ level: 'county', fips: [st, co], name: `${cname}, ${sname}` });
    for (const t of tracts.filter((r) => r[0] === st && r[1] === co).slice(0, 3)) {
      const tn = `${tractName(t[2]!)}; ${cname}; ${sname}`;
      out.push({ level: 'tract', fips: [st, co, t[2]!], name: tn });
      for (const b of bgs.filter((r) => r[0] === st && r[1] === co && r[2] === t[2]))
        out.push({ level: 'block_group', fips: [st, co, t[2]!, b[3]!], name: `Block Group ${b[3]}; ${tn}` });
    }
  }
  return out;
}

let standin: CensusStandin;
let tmp: string;
let svc: Service;
let cliOutput: string;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'online-standin-'));
  standin = await startCensusStandin(
    { seed: 34, vintage: 2023, dataset: 'acs5', geographies: geographies(), tables: TABLES },
    { requireKey: KEY, delayMs: 5 },
  );
  // Misbehaving as census.gov does: each of these once, on different requests.
  standin.inject({ match: 'for=us:*', kind: 'reset' });
  standin.inject({ match: 'for=state:*', kind: 'truncate' });
  standin.inject({ match: 'group(B19013)&for=county:*', kind: 'html200' });
  standin.inject({ match: 'for=tract:*&in=state:48', kind: '429', retryAfter: '1' });
  standin.inject({ match: 'for=block group:*', kind: '503' });
  // Geography reference files come from the shared tree: a fallback tree without value files,
  // so the build holds the stand-in's values only, and without metadata/, so the labels, titles
  // and universes are those of the stand-in's groups.json and groups/{T}.json.
  const fallback = path.join(tmp, 'fallback');
  await fs.mkdir(fallback);
  for (const d of ['geo', 'boundaries', 'geocode']) await fs.symlink(path.join(SHARED_CENSUS, d), path.join(fallback, d));
  const args = standinBuildArgs(standin, {
    dir: tmp,
    fallback,
    datasets: ['acs5'],
    vintages: [2023],
    levels: ['nation', 'state', 'county', 'tract', 'block_group'],
    states: ['06', '48'],
    tables: TABLES,
  });
  const env = { ...process.env, CENSUS_API_KEY: KEY, CENSUS_SOURCE_DIR: path.join(tmp, 'empty') };
  const r = await run(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), args, { cwd: REPO_ROOT, env, maxBuffer: 1 << 24 });
  cliOutput = r.stderr;
  svc = await startService({ buildDir: resolveCurrentBuild(path.join(tmp, 'data'))! });
}, 600_000);
afterAll(async () => {
  await svc?.close();
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const ask = async (url: string) => {
  const res = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });
  return res;
};

type V1Cell = {
  geo_key: string;
  census_code: string;
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: unknown;
  moe_annotation: unknown;
};

const GEO_SPEC: Record<StandinLevel, (gs: StandinGeography[]) => string> = {
  nation: () => 'nation:1',
  state: (gs) => gs.map(StandinTruth.geoKey).join(';'),
  county: (gs) => gs.map(StandinTruth.geoKey).join(';'),
  metro: (gs) => gs.map(StandinTruth.geoKey).join(';'),
  cd: (gs) => gs.map(StandinTruth.geoKey).join(';'),
  tract: (gs) => gs.map(StandinTruth.geoKey).join(';'),
  block_group: (gs) => gs.map(StandinTruth.geoKey).join(';'),
};

describe('a selection built from the Data API stand-in', () => {
  it('retried every fault, never logged the key, and sent at most 50 variables and the in= each level needs', () => {
    const faulted = standin.requests.filter((r) => r.fault);
    expect(faulted.map((r) => r.fault).sort()).toEqual(['429', '503', 'html200', 'reset', 'truncate']);
    expect(cliOutput).not.toContain(KEY);
    for (const r of standin.requests.filter((x) => x.url.startsWith('/data/2023/acs/acs5?'))) {
      const q = new URL(r.url, 'http://x').searchParams;
      expect(q.get('get')!.split(',').length).toBeLessThanOrEqual(50);
      if (q.get('for')!.startsWith('tract')) expect(q.getAll('in')).toEqual([expect.stringMatching(/^state:(06|48)$/)]);
      if (q.get('for')!.startsWith('block group'))
        expect(q.getAll('in')).toEqual([expect.stringMatching(/^state:\d\d$/), expect.stringMatching(/^county:\d{3}$/)]);
    }
    expect(standin.requests.filter((r) => r.status === 400)).toEqual([]);
  });

  it.each(['nation', 'state', 'county', 'tract', 'block_group'] as const)('%s: /v1/data serves every cell of the truth', async (level) => {
    const gs = standin.truth.opts.geographies.filter((g) => g.level === level);
    const variables = Object.keys(TABLES).flatMap((t) => standin.truth.variables(t).map((v) => `${v}E`));
    const res = await ask(`/v1/data?variables=${variables.join(',')}&geo=${GEO_SPEC[level](gs)}&dataset=acs5&vintage=2023`);
    expect(res.statusCode, res.body).toBe(200);
    const served = new Map((res.json().data as V1Cell[]).map((c) => [`${c.geo_key}|${c.census_code}`, c]));
    let compared = 0;
    for (const { g, variable, cell } of standin.truth.cells(level)) {
      const c = served.get(`${StandinTruth.geoKey(g)}|${variable}`);
      expect(c, `${StandinTruth.geoKey(g)} ${variable}`).toBeDefined();
      const plain = (s: string | null) => (s !== null && !s.startsWith('-') ? Number(s) : null);
      expect([c!.estimate, c!.moe_numeric], `${StandinTruth.geoKey(g)} ${variable} ${JSON.stringify(cell)}`).toEqual([
        plain(cell.E),
        plain(cell.M),
      ]);
      if (cell.E !== null && plain(cell.E) === null) expect(c!.estimate_annotation).not.toBeNull();
      if (cell.MA === '*****') expect(c!.moe_annotation).toMatchObject({ code: 'controlled' });
      compared++;
    }
    expect(compared).toBe(gs.length * variables.length);
  });

  it.each([
    ['nation', 'for=us:*'],
    ['state', 'for=state:*'],
    ['county', 'for=county:*&in=state:48'],
    ['tract', 'for=tract:*&in=state:48%20county:453'],
    ['block_group', 'for=block%20group:*&in=state:48%20county:453'],
  ] as const)('%s: /data/2023/acs/acs5 answers every cell as the stand-in published it', async (level, where) => {
    for (const table of Object.keys(TABLES)) {
      const res = await ask(`/data/2023/acs/acs5?get=NAME,group(${table})&${where}`);
      expect(res.statusCode, res.body).toBe(200);
      const [header, ...rows] = res.json() as Array<Array<string | null>>;
      const geoCols = level === 'nation' ? 1 : ['state', 'county', 'tract', 'block_group'].indexOf(level) + 1;
      const byKey = new Map(rows.map((r) => [r.slice(r.length - geoCols).join(''), r]));
      const gs = standin.truth.opts.geographies.filter(
        (g) =>
          g.level === level && (level === 'nation' || level === 'state' || g.fips.join('').startsWith(level === 'county' ? '48' : '48453')),
      );
      expect(rows.length).toBe(gs.length);
      for (const g of gs) {
        const row = byKey.get(level === 'nation' ? '1' : g.fips.join(''))!;
        expect(row, g.fips.join('')).toBeDefined();
        expect(row[header!.indexOf('NAME')]).toBe(g.name);
        for (const v of standin.truth.variables(table)) {
          const cell = standin.truth.cell(g, v);
          for (const s of ['E', 'M', 'EA', 'MA'] as const) {
            const i = header!.indexOf(`${v}${s}`);
            expect(i, `${v}${s}`).toBeGreaterThanOrEqual(0);
            expect(row[i], `${g.fips.join('')} ${v}${s}`).toBe(cell[s]);
          }
        }
      }
    }
  });
});

describe("labels from the stand-in's groups.json and groups/{T}.json, with no metadata in the fallback", () => {
  const lines = (table: string) =>
    standin.truth.variables(table).map((v, i) => ({ code: `${v}E`, line: i + 1, n: TABLES[table as keyof typeof TABLES] }));

  it('/v1/tables/{T}: the title, universe and every line with its label and its indent from the `!!` path', async () => {
    for (const table of Object.keys(TABLES)) {
      const res = await ask(`/v1/tables/${table}?dataset=acs5&vintage=2023`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json().data;
      expect([body.title, body.universe]).toEqual([standinTitle(table), standinUniverse(table)]);
      expect(body.columns).toEqual(
        lines(table).map(({ code, line, n }) => ({
          code,
          label: standinLabel(table, line, n),
          indent: standinPath(table, line, n).length - 1,
        })),
      );
    }
  });

  it('/v1/variables?search={T}: each published code with its label and table title', async () => {
    const res = await ask('/v1/variables?search=B25003');
    expect(res.statusCode, res.body).toBe(200);
    const codes = (res.json().data as Array<{ kind: string; census_code: string; label: string; table_title: string }>).filter(
      (x) => x.kind === 'census_code',
    );
    expect(codes.map((x) => [x.census_code, x.label, x.table_title])).toEqual(
      lines('B25003').map(({ code, line, n }) => [code, standinLabel('B25003', line, n), standinTitle('B25003')]),
    );
  });

  it('the Census-API discovery documents carry them: variables.json and groups/{T}.json', async () => {
    const all = await ask('/data/2023/acs/acs5/variables.json');
    expect(all.statusCode, all.body).toBe(200);
    const vars = all.json().variables as Record<string, { label: string; concept: string; group: string }>;
    for (const table of Object.keys(TABLES)) {
      const group = await ask(`/data/2023/acs/acs5/groups/${table}.json`);
      expect(group.statusCode, group.body).toBe(200);
      const gv = group.json().variables as Record<string, { label: string; concept: string }>;
      for (const { code, line, n } of lines(table)) {
        const label = standinLabel(table, line, n);
        expect(vars[code]).toMatchObject({ label, concept: standinTitle(table), group: table });
        expect(gv[code]).toMatchObject({ label, concept: standinTitle(table) });
        expect(gv[`${code.slice(0, -1)}M`]?.label).toBe(`Margin of Error!!${label.slice('Estimate!!'.length)}`);
      }
    }
  });
});
