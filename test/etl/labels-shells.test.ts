// Labels of a Summary File release from that release's table shells (issue 34 §1): a release whose
// values come from the table-based Summary File (--values-source summary-file, or auto when it
// picks it) downloads `ACS{YYYY}5YR_Table_Shells.txt` from --files-base instead of the Data API's
// groups.json and groups/{T}.json; a release without shells (404) takes those documents instead;
// a fallback whose shells describe the vintage wins over both. The stand-in serves the shells of
// each Summary File truth (test/support/standin/labels.ts) and the Data API's documents.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelCachePath, planLabelSources, shellsCachePath } from '../../etl/online/labels.js';
import { prepareOnlineSource } from '../../etl/online/prepare.js';
import { parseSelection } from '../../etl/online/selection.js';
import { collectDataset, listTableInputs } from '../../etl/steps/census-tables/collect.js';
import { listMetadataInputs } from '../../etl/steps/catalog/metadata.js';
import { captureLog } from '../support/census-emulator.js';
import { startCensusStandin, type CensusStandin } from '../support/census-standin.js';
import { standinLabel, standinTableShells, standinTitle, standinUniverse } from '../support/standin/labels.js';
import { SummaryFileTruth } from '../support/standin/summary-file.js';
import { REPO_ROOT } from '../support/paths.js';

const run = promisify(execFile);
const TABLES = { B19013: 1, B25003: 3 };
let standin: CensusStandin;
let sf2022: SummaryFileTruth;
let tmp: string;
let empty: string;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'labels-shells-'));
  empty = path.join(tmp, 'empty');
  await fs.mkdir(empty);
  // The Summary File is published for 2022 only; the Data API stand-in describes 2023.
  sf2022 = new SummaryFileTruth({ seed: 3, vintage: 2022, states: ['11'], metros: 1, tables: TABLES });
  standin = await startCensusStandin(
    { seed: 7, vintage: 2023, dataset: 'acs5', geographies: [{ level: 'nation', fips: ['1'], name: 'United States' }], tables: TABLES },
    {},
    { summaryFile: [sf2022] },
  );
});
afterAll(async () => {
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('which releases take their labels from the table shells', () => {
  const sel = parseSelection({ datasets: 'acs5,acs1', vintages: '2022-2023', tables: 'B25003', levels: 'state' });

  it("a Summary File release gets its shells, with the Data API's documents kept for a 404; the others the Data API's", () => {
    const got = planLabelSources(
      sel,
      () => false,
      (d, v) => d === 'acs5' && v === 2022,
    );
    expect(got.shells.map(shellsCachePath)).toEqual(['summary_file/2022/table-based-SF/documentation/ACS20225YR_Table_Shells.txt']);
    expect(got.shells[0]!.instead.map(labelCachePath)).toEqual([
      'api/2022/acs/acs5/groups.json.gz',
      'api/2022/acs/acs5/groups/B25003.json.gz',
    ]);
    expect(got.labels.map(labelCachePath)).toEqual([
      'api/2023/acs/acs5/groups.json.gz',
      'api/2023/acs/acs5/groups/B25003.json.gz',
      'api/2022/acs/acs1/groups.json.gz',
      'api/2022/acs/acs1/groups/B25003.json.gz',
      'api/2023/acs/acs1/groups.json.gz',
      'api/2023/acs/acs1/groups/B25003.json.gz',
    ]);
  });

  it("a vintage the fallback's shells describe downloads neither", () => {
    const got = planLabelSources(
      sel,
      (d, v) => d === 'acs5' && v === 2022,
      () => true,
    );
    expect(got.shells.map((s) => `${s.dataset} ${s.vintage}`)).toEqual(['acs5 2023', 'acs1 2022', 'acs1 2023']);
    expect(got.labels).toEqual([]);
  });
});

describe('the download', () => {
  it('caches the shells as published (a page with 200 is retried), and the steps read labels, titles and universes from them', async () => {
    const cacheDir = path.join(tmp, 'cache-sf');
    standin.inject({ match: 'ACS20225YR_Table_Shells.txt', kind: 'html200' });
    const before = standin.requests.length;
    const { log } = captureLog();
    await prepareOnlineSource({
      cacheDir,
      apiBase: standin.apiBase,
      filesBase: standin.filesBase,
      plan: { api: [], reference: [], labels: [], shells: [{ dataset: 'acs5', vintage: 2022, instead: [] }] },
      fallbackDir: empty,
      selection: true,
      retries: 2,
      retryBaseMs: 1,
      maxRetryDelayMs: 5,
      log,
    });
    const shellsRequests = standin.requests.slice(before).filter((r) => r.url.includes('Table_Shells'));
    expect(shellsRequests.map((r) => r.fault ?? r.status)).toEqual(['html200', 200]);
    const rel = 'summary_file/2022/table-based-SF/documentation/ACS20225YR_Table_Shells.txt';
    expect(await fs.readFile(path.join(cacheDir, rel), 'utf8')).toBe(standinTableShells(sf2022));
    // No Data API document was asked for.
    expect(standin.requests.slice(before).filter((r) => r.url.startsWith('/data/'))).toEqual([]);

    // What the build's steps then read from the cache.
    expect(await listMetadataInputs(cacheDir)).toContain(rel);
    const inputs = await listTableInputs(cacheDir);
    expect(inputs).toEqual([rel]);
    const c = await collectDataset(cacheDir, 'acs5', new Set(inputs));
    expect(c.tables.get('B25003')?.get(2022)).toMatchObject({ title: standinTitle('B25003'), universe: standinUniverse('B25003') });
    expect(c.columns.get('B25003_002E')?.get(2022)?.label).toBe(standinLabel('B25003', 2, 3));
  });

  it("a killed run's partial shells are removed and the file fetched again", async () => {
    const cacheDir = path.join(tmp, 'cache-resume');
    const dir = path.join(cacheDir, 'summary_file/2022/table-based-SF/documentation');
    await fs.mkdir(dir, { recursive: true });
    // downloadFile's temporary name, of a process that no longer runs.
    const partial = path.join(dir, 'ACS20225YR_Table_Shells.txt.partial-999999999-deadbeef');
    await fs.writeFile(partial, 'Table ID|Line|Ind');
    await prepareOnlineSource({
      cacheDir,
      apiBase: standin.apiBase,
      filesBase: standin.filesBase,
      plan: { api: [], reference: [], labels: [], shells: [{ dataset: 'acs5', vintage: 2022, instead: [] }] },
      fallbackDir: empty,
      selection: true,
      log: captureLog().log,
    });
    expect(await fs.readdir(dir)).toEqual(['ACS20225YR_Table_Shells.txt']);
    expect(await fs.readFile(path.join(dir, 'ACS20225YR_Table_Shells.txt'), 'utf8')).toBe(standinTableShells(sf2022));
  });

  it("a release without shells (404) takes the Data API's documents instead", async () => {
    const cacheDir = path.join(tmp, 'cache-404');
    const { log, lines } = captureLog();
    const instead = planLabelSources(
      parseSelection({ datasets: 'acs5', vintages: '2023', tables: 'B25003', levels: 'state' }),
      () => false,
      () => true,
    ).shells;
    await prepareOnlineSource({
      cacheDir,
      apiBase: standin.apiBase,
      filesBase: standin.filesBase,
      plan: { api: [], reference: [], labels: [], shells: instead },
      fallbackDir: empty,
      selection: true,
      retries: 1,
      retryBaseMs: 1,
      maxRetryDelayMs: 5,
      log,
    });
    expect(lines.join('\n')).toMatch(/ACS20235YR_Table_Shells\.txt: not published \(404\); labels of acs5 2023 from the Data API instead/);
    await expect(
      fs.access(path.join(cacheDir, 'summary_file/2023/table-based-SF/documentation/ACS20235YR_Table_Shells.txt')),
    ).rejects.toThrow();
    for (const doc of ['api/2023/acs/acs5/groups.json.gz', 'api/2023/acs/acs5/groups/B25003.json.gz'])
      await expect(fs.access(path.join(cacheDir, doc))).resolves.toBeUndefined();
  });
});

describe('--dry-run', () => {
  const dryRun = async (valuesSource: string) =>
    (
      await run(
        'npx',
        [
          'tsx',
          'etl/cli.ts',
          'build',
          '--online',
          '--dry-run',
          '--values-source',
          valuesSource,
          '--datasets',
          'acs5',
          '--vintages',
          '2023',
          '--levels',
          'state',
          '--tables',
          'B25003',
          '--fallback-source',
          empty,
          '--no-shapes',
          '--cache-dir',
          path.join(tmp, 'dry-cache'),
          '--files-base',
          'https://files.example',
        ],
        { cwd: REPO_ROOT, env: { ...process.env, CENSUS_API_KEY: '' } },
      )
    ).stdout;

  it('lists the shells for a Summary File release and the Data API documents otherwise', async () => {
    const [sf, api] = await Promise.all([dryRun('summary-file'), dryRun('api')]);
    expect(sf).toMatch(/labels: 0 documents of the Data API .* — the Summary File releases take their table shells \(below\)/);
    expect(sf).toMatch(
      /Table shells .* from https:\/\/files\.example, for the Summary File releases:\n {2}acs5 2023: ACS20235YR_Table_Shells\.txt/,
    );
    expect(api).toMatch(/labels: 2 documents of the Data API/);
    expect(api).not.toMatch(/Table shells/);
  });
});
