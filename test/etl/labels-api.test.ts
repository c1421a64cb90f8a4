// Labels, titles and universes from the Census Data API's own documents (issue 34 §1, third
// bullet): the online download of groups.json and groups/{T}.json (or variables.json) from the
// stand-in (test/support/standin/labels.ts), cached byte for byte, then read by the census-tables
// and catalog steps with no ../shared metadata at all; and a body that is not the document fails
// the download with the reason.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchSourceTree } from '../../etl/online/fetch.js';
import { labelCachePath, planLabels, type LabelItem } from '../../etl/online/labels.js';
import { describePlan, estimatePlan, parseSelection, planSelection } from '../../etl/online/selection.js';
import { collectDataset, listTableInputs } from '../../etl/steps/census-tables/collect.js';
import { knownFromLoaded, listMetadataInputs, loadCodeVintages } from '../../etl/steps/catalog/metadata.js';
import { startCensusStandin, type CensusStandin } from '../support/census-standin.js';
import { captureLog } from '../support/census-emulator.js';
import { standinLabel, standinPath, standinTableShells, standinTitle, standinUniverse } from '../support/standin/labels.js';
import { tableShellsPath } from '../../etl/sources/table-shells.js';
import { gzipSync } from 'node:zlib';

const TABLES = { B19013: 1, B25003: 3, B01001: 5 };
let standin: CensusStandin;
let tmp: string;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'labels-api-'));
  standin = await startCensusStandin({
    seed: 7,
    vintage: 2023,
    dataset: 'acs5',
    geographies: [{ level: 'nation', fips: ['1'], name: 'United States' }],
    tables: TABLES,
  });
});
afterAll(async () => {
  await standin?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const fetchLabels = (cacheDir: string, labels: LabelItem[], retries = 2) =>
  fetchSourceTree({
    cacheDir,
    plan: { api: [], reference: [], labels },
    apiBase: standin.apiBase,
    retries,
    retryBaseMs: 1,
    maxRetryDelayMs: 5,
    log: captureLog().log,
  });

describe('the plan of a selection', () => {
  it('groups.json and one groups/{T}.json per table for --tables and --catalog, variables.json for --all-tables', async () => {
    const list = parseSelection({ datasets: 'acs5', vintages: '2022-2023', tables: 'B19013,B25003', levels: 'state' });
    expect(planLabels(list).map(labelCachePath)).toEqual([
      'api/2022/acs/acs5/groups.json.gz',
      'api/2022/acs/acs5/groups/B19013.json.gz',
      'api/2022/acs/acs5/groups/B25003.json.gz',
      'api/2023/acs/acs5/groups.json.gz',
      'api/2023/acs/acs5/groups/B19013.json.gz',
      'api/2023/acs/acs5/groups/B25003.json.gz',
    ]);
    const all = parseSelection({ datasets: 'acs5', vintages: '2023', allTables: true });
    expect(planLabels(all).map((l) => l.doc)).toEqual(['groups.json', 'variables.json']);
    const catalog = parseSelection({ datasets: 'acs5', vintages: '2023', catalog: true });
    expect(planLabels(catalog).filter((l) => l.doc.startsWith('groups/')).length).toBe(
      catalog.tables.kind === 'catalog' ? catalog.tables.byGroup.size : -1,
    );
    // A dataset vintage the fallback's shells describe is not downloaded.
    expect(planLabels(list, (_d, v) => v === 2022).map((l) => `${l.vintage}/${l.doc}`)).toEqual([
      '2023/groups.json',
      '2023/groups/B19013.json',
      '2023/groups/B25003.json',
    ]);
  });

  it('--dry-run counts the label documents as files and requests', async () => {
    const sel = parseSelection({ datasets: 'acs5', vintages: '2023', tables: 'B19013', levels: 'state' });
    const plan = await planSelection(sel, () => Promise.reject(new Error('not called')));
    const before = estimatePlan(plan);
    plan.labels = planLabels(sel);
    const after = estimatePlan(plan);
    expect(after.files - before.files).toBe(2);
    expect(after.requests - before.requests).toBe(2);
    expect(describePlan(sel, plan, after, { apiBase: 'x', cacheDir: 'y' })).toMatch(/labels: 2 documents of the Data API/);
  });
});

describe('labels from the Data API documents only (no ../shared metadata)', () => {
  let cacheDir: string;
  beforeAll(async () => {
    cacheDir = path.join(tmp, 'tables');
    const sel = parseSelection({ datasets: 'acs5', vintages: '2023', tables: Object.keys(TABLES).join(','), levels: 'state' });
    const result = await fetchLabels(cacheDir, planLabels(sel));
    expect(result.failed).toEqual([]);
    expect(result.downloaded).toBe(4);
  });

  it('caches each document byte for byte (gzip of the body served)', async () => {
    const cached = gunzipSync(await fs.readFile(path.join(cacheDir, 'api/2023/acs/acs5/groups/B25003.json.gz')));
    const served = Buffer.from(await (await fetch(`${standin.apiBase}/data/2023/acs/acs5/groups/B25003.json`)).arrayBuffer());
    expect(cached.equals(served)).toBe(true);
  });

  it('census-tables reads every line, its label, its indent from the `!!` path, and each table title and universe', async () => {
    const inputs = await listTableInputs(cacheDir);
    expect(inputs).toEqual([
      'api/2023/acs/acs5/groups.json.gz',
      'api/2023/acs/acs5/groups/B01001.json.gz',
      'api/2023/acs/acs5/groups/B19013.json.gz',
      'api/2023/acs/acs5/groups/B25003.json.gz',
    ]);
    const c = await collectDataset(cacheDir, 'acs5', new Set(inputs));
    for (const [table, n] of Object.entries(TABLES)) {
      expect(c.tables.get(table)?.get(2023)).toEqual({ title: standinTitle(table), universe: standinUniverse(table) });
      for (let line = 1; line <= n; line++) {
        const code = `${table}_${String(line).padStart(3, '0')}E`;
        expect(c.columns.get(code)?.get(2023)).toEqual({
          label: standinLabel(table, line, n),
          indent: standinPath(table, line, n).length - 1,
          predicateType: 'int',
          noMoe: false,
        });
      }
    }
    expect([...c.columns.keys()].sort()).toHaveLength(1 + 3 + 5);
    // No other vintage or dataset is described.
    expect((await collectDataset(cacheDir, 'acs1', new Set(inputs))).columns.size).toBe(0);
  });

  it('the catalog reads the same labels and universes, and checks only the codes of tables it can see', async () => {
    expect(await listMetadataInputs(cacheDir)).toEqual(await listTableInputs(cacheDir));
    const meta = await loadCodeVintages(cacheDir, new Set(['B25003_002E', 'B19013_001E', 'B08303_001E']));
    const info = meta.codes.get('acs5')!.get('B25003_002E')!.get(2023)!;
    expect(info).toEqual({
      label: standinLabel('B25003', 2, 3),
      universe: standinUniverse('B25003'),
      source: 'api/2023/acs/acs5/groups/B25003.json.gz',
    });
    expect(meta.codes.get('acs5')!.get('B08303_001E')).toBeUndefined();
    const known = knownFromLoaded(meta);
    expect(known.tables).toEqual(new Set(['B19013', 'B25003']));
    expect(known.codes.has('B25003_003E')).toBe(true);
  });

  it('variables.json (--all-tables) gives the same labels as the groups/{T}.json documents', async () => {
    const dir = path.join(tmp, 'all');
    const result = await fetchLabels(dir, planLabels(parseSelection({ datasets: 'acs5', vintages: '2023', allTables: true })));
    expect(result.failed).toEqual([]);
    const inputs = await listTableInputs(dir);
    expect(inputs).toEqual(['api/2023/acs/acs5/groups.json.gz', 'api/2023/acs/acs5/variables.json.gz']);
    const viaAll = await collectDataset(dir, 'acs5', new Set(inputs));
    const viaGroups = await collectDataset(cacheDir, 'acs5', new Set(await listTableInputs(cacheDir)));
    expect(viaAll).toEqual(viaGroups);
  });
});

describe('a metadata body that is not the document', () => {
  const item = (doc: LabelItem['doc']): LabelItem => ({ dataset: 'acs5', vintage: 2023, doc });

  it('an HTML page with status 200 fails the download with that reason, after the retries', async () => {
    standin.inject({ match: '/groups/B19013.json', kind: 'html200', times: 3 });
    const r = await fetchLabels(path.join(tmp, 'html'), [item('groups/B19013.json')]);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0]!.path).toBe('api/2023/acs/acs5/groups/B19013.json.gz');
    expect(r.failed[0]!.error).toMatch(
      /malformed body: an HTML page instead of groups\/B19013\.json \("Census Data API: maintenance"\) \(after 3 tries\)/,
    );
    await expect(fs.access(path.join(tmp, 'html/api/2023/acs/acs5/groups/B19013.json.gz'))).rejects.toThrow();
  });

  it('JSON of another shape, a cut body or another group fails with what is wrong', async () => {
    const cases: Array<[LabelItem['doc'], string, RegExp]> = [
      ['groups.json', '{"groups": {"name": "B19013"}}', /groups\.json has no "groups" array/],
      ['groups/B19013.json', '{"variables": {"B19013_001E": {"label": "Estimate!!Med', /groups\/B19013\.json is not valid JSON/],
      [
        'groups/B19013.json',
        '{"variables": {"B25003_001E": {"label": "Estimate!!Total:", "group": "B25003"}}}',
        /a variable of another group/,
      ],
      ['groups/B19013.json', '{"variables": {"B19013_001E": {"concept": "x", "group": "B19013"}}}', /B19013_001E has no "label"/],
      ['variables.json', '[]', /variables\.json has no "variables" object/],
    ];
    for (const [doc, body, reason] of cases) {
      standin.inject({ match: `/acs5/${doc}`, kind: 'body', body, times: 2 });
      const r = await fetchLabels(path.join(tmp, 'bad'), [item(doc)], 1);
      expect(r.failed.map((f) => f.error).join('\n')).toMatch(reason);
    }
  });

  it('a table the API does not have (404) is no document, not a failure', async () => {
    const r = await fetchLabels(path.join(tmp, 'absent'), [item('groups/B99999.json')]);
    expect(r.failed).toEqual([]);
    expect(r.noData).toEqual(['api/2023/acs/acs5/groups/B99999.json.gz']);
  });
});

describe("the table-based Summary File's table shells (ACS{YYYY}5YR_Table_Shells.txt)", () => {
  const shellsTree = async (name: string, text: string) => {
    const dir = path.join(tmp, name);
    const rel = tableShellsPath('acs5', 2023)!;
    expect(rel).toBe('summary_file/2023/table-based-SF/documentation/ACS20235YR_Table_Shells.txt.gz');
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), gzipSync(Buffer.from(text)));
    return dir;
  };

  it('give the same lines, labels (the `!!` path rebuilt from the indents), titles and universes as the API documents', async () => {
    const dir = await shellsTree('sf', standinTableShells(standin.truth));
    const inputs = await listTableInputs(dir);
    expect(inputs).toEqual(['summary_file/2023/table-based-SF/documentation/ACS20235YR_Table_Shells.txt.gz']);
    expect(await listMetadataInputs(dir)).toEqual(inputs);
    const c = await collectDataset(dir, 'acs5', new Set(inputs));
    const viaApi = await collectDataset(path.join(tmp, 'tables'), 'acs5', new Set(await listTableInputs(path.join(tmp, 'tables'))));
    expect(c.tables).toEqual(viaApi.tables);
    // The shells do not say which lines have a margin of error; the API's documents do.
    const strip = (m: typeof c.columns) =>
      new Map([...m].map(([k, byV]) => [k, new Map([...byV].map(([v, x]) => [v, { ...x, noMoe: undefined }]))]));
    expect(strip(c.columns)).toEqual(strip(viaApi.columns));
    expect(c.columns.get('B01001_003E')?.get(2023)).toEqual({ label: standinLabel('B01001', 3, 5), indent: 2, predicateType: 'int' });
    const meta = await loadCodeVintages(dir, new Set(['B25003_002E']));
    expect(meta.codes.get('acs5')!.get('B25003_002E')!.get(2023)).toEqual({
      label: standinLabel('B25003', 2, 3),
      universe: standinUniverse('B25003'),
      source: inputs[0],
    });
  });

  it('a file that is not the shells, or an indent that skips a level, fails with the file and line', async () => {
    const bad = await shellsTree('sf-bad', 'Table ID|Line|Label\nB19013|1.0|Median\n');
    await expect(collectDataset(bad, 'acs5', new Set(await listTableInputs(bad)))).rejects.toThrow(
      /ACS20235YR_Table_Shells\.txt\.gz: missing column "Indent"/,
    );
    const skip = await shellsTree(
      'sf-skip',
      'Table ID|Line|Indent|Unique ID|Label|Title|Universe|Type\nB25003|1.0|0|B25003_001|Total:|T|U|int\nB25003|2.0|2|B25003_002|Owner|T|U|int\n',
    );
    await expect(collectDataset(skip, 'acs5', new Set(await listTableInputs(skip)))).rejects.toThrow(
      /row 3: indent "2" of B25003_002 does not follow/,
    );
  });
});
