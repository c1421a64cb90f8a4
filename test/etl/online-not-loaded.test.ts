// An API-only build of a selection of tables (`etl build --online --tables B01003`, an empty
// fallback: no ../shared), against the census.gov stand-in of the first judging scenario
// (standin/scenario.ts) publishing B01003, B19013 and B25003. A figure of a table the selection
// did not download is "not loaded" (no_data_loaded, with meta.fill_command naming the command that
// loads it), on /v1 for a catalogue variable and a raw code, on MCP and on the Census-API route
// (its `not-loaded` error); only a code the Bureau's list for the vintage lacks (B25077, which
// groups.json does not name) is not_in_vintage or "unknown variable". Then `--all-tables` into a
// fresh cache: groups.json is requested once. The values are the stand-in's truth (random), in
// temporary directories only; each build takes seconds (the scenario's world is small).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import { startCensusStandin, type CensusStandin } from '../support/census-standin.js';
import { REPO_ROOT } from '../support/paths.js';
import { scenarioTruth } from '../support/standin/scenario.js';
import { startService, type Service } from '../support/service.js';
import { standinBuildArgs, type StandinSelection } from '../support/standin-build.js';
import { call, connect, textOf } from '../mcp/support.js';

const run = promisify(execFile);
const SELECTION: Omit<StandinSelection, 'dir' | 'fallback' | 'tables'> = {
  datasets: ['acs5'],
  vintages: [2023],
  levels: ['state'],
  states: ['48'],
};
const INCOME_COMMAND = 'npm run etl -- build --online --datasets acs5 --vintages 2023 --levels state --tables B19013';

let standin: CensusStandin;
let tmp: string;
let fallback: string;
const texas = () => standin.truth.opts.geographies.find((g) => g.level === 'state' && g.fips[0] === '48')!;

const build = (dir: string, tables: StandinSelection['tables']) =>
  run(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), standinBuildArgs(standin, { ...SELECTION, dir, fallback, tables }), {
    cwd: REPO_ROOT,
    env: { ...process.env, CENSUS_SOURCE_DIR: fallback },
    maxBuffer: 1 << 24,
  });

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'online-not-loaded-'));
  standin = await startCensusStandin(scenarioTruth(35));
  fallback = path.join(tmp, 'empty');
  await fs.mkdir(fallback);
});
afterAll(async () => {
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('a build of --tables B01003: the other tables are not loaded, not absent from the vintage', () => {
  let svc: Service;
  beforeAll(async () => {
    await build(path.join(tmp, 'tables'), ['B01003']);
    svc = await startService({ buildDir: resolveCurrentBuild(path.join(tmp, 'tables', 'data'))!, config: { CENSUS_SOURCE_DIR: fallback } });
  }, 120_000);
  afterAll(async () => svc?.close());

  const ask = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });
  type Cell = { estimate: number | null; estimate_annotation: { code: string } | null; variable?: string; census_code?: string };
  const data = async (variables: string) => {
    const res = await ask(`/v1/data?variables=${variables}&geo=state:48&dataset=acs5&vintage=2023`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { data: Cell[]; meta: { fill_command?: string; hint: string | null } };
  };

  it('a catalogue variable of a table not downloaded is no_data_loaded, with the command that loads it', async () => {
    const body = await data('core_median_household_income');
    expect(body.data.map((c) => [c.estimate, c.estimate_annotation?.code])).toEqual([[null, 'no_data_loaded']]);
    expect(body.meta.fill_command).toBe(INCOME_COMMAND);
    expect(body.meta.hint).toContain(INCOME_COMMAND);
  });

  it('one whose table groups.json does not name is not_in_vintage, and no command is offered', async () => {
    const body = await data('core_median_home_value');
    expect(body.data.map((c) => [c.estimate, c.estimate_annotation?.code])).toEqual([[null, 'not_in_vintage']]);
    expect(body.meta.fill_command).toBeUndefined();
    // Asked together, the command names only the table that can be loaded.
    expect((await data('core_median_home_value,core_median_household_income')).meta.fill_command).toBe(INCOME_COMMAND);
  });

  it('the downloaded table is served, and the catalogue knows its variable', async () => {
    const [cell] = (await data('core_total_population')).data;
    expect(cell!.estimate).toBe(Number(standin.truth.cell(texas(), 'B01003_001').E));
  });

  it('a raw code of a table not downloaded is no_data_loaded on /v1; one of a table the Bureau lacks is unknown', async () => {
    const body = await data('B19013_001E');
    expect(body.data.map((c) => c.estimate_annotation?.code)).toEqual(['no_data_loaded']);
    expect(body.meta.fill_command).toBe(INCOME_COMMAND);
    const unknown = await ask('/v1/data?variables=B25077_001E&geo=state:48&dataset=acs5&vintage=2023');
    expect(unknown.statusCode).toBe(404);
  });

  it('on MCP the same: [no_data_loaded] and [not_in_vintage]', async () => {
    await svc.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (svc.app.server.address() as { port: number }).port;
    const client = await connect(`http://127.0.0.1:${port}/mcp`, svc.keys.enterprise);
    try {
      const r = await call(client, 'get_census_data', {
        variables: 'core_median_household_income,core_median_home_value',
        geo: 'state:48',
        dataset: 'acs5',
        vintage: 2023,
      });
      expect(r.isError, textOf(r)).toBeFalsy();
      const text = textOf(r);
      expect(text).toMatch(/no value \[no_data_loaded\]/);
      expect(text).toMatch(/no value \[not_in_vintage\]/);
      expect(text).toContain(INCOME_COMMAND);
    } finally {
      await client.close();
    }
  });

  it("the Census-API route answers not-loaded for B19013, and the Bureau's unknown variable for B25077", async () => {
    const notLoaded = await ask('/data/2023/acs/acs5?get=B19013_001E&for=state:48');
    expect(notLoaded.statusCode).toBe(404);
    expect(notLoaded.body).toMatch(/^error: this service holds no values of table 'B19013' for acs5 2023/);
    const unknown = await ask('/data/2023/acs/acs5?get=B25077_001E&for=state:48');
    expect(unknown.body).toBe("error: unknown variable 'B25077_001E'");
  });
});

describe('--all-tables', () => {
  it('reads groups.json once: the list of tables to download is also the labels document', async () => {
    const groupsRequests = () => standin.requests.filter((r) => /\/groups\.json(\?|$)/.test(r.url)).length;
    const before = groupsRequests();
    await build(path.join(tmp, 'all'), 'all');
    expect(groupsRequests() - before).toBe(1);
    // And the build holds every table groups.json names.
    const svc = await startService({
      buildDir: resolveCurrentBuild(path.join(tmp, 'all', 'data'))!,
      config: { CENSUS_SOURCE_DIR: fallback },
    });
    try {
      const res = await svc.app.inject({
        url: '/v1/data?variables=core_median_household_income&geo=state:48&dataset=acs5&vintage=2023',
        headers: { 'x-api-key': svc.keys.enterprise },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as { data: Array<{ estimate_annotation: { code: string } | null }> }).data[0]!.estimate_annotation?.code).not.toBe(
        'no_data_loaded',
      );
    } finally {
      await svc.close();
    }
  }, 120_000);
});
