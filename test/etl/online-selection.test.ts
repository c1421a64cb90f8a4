// The selection flags of `etl build --online` (etl/online/selection.ts): parsing, the plan, the
// URLs each level's requests take, and the --dry-run text.
import { describe, expect, it } from 'vitest';
import { dataUrl } from '../../etl/online/api.js';
import { describePlan, estimatePlan, parseSelection, parseVintages, planSelection, STATE_CODES } from '../../etl/online/selection.js';

describe('selection flags', () => {
  it('reads vintage lists and ranges', () => {
    expect(parseVintages('2017-2019,2023,2018')).toEqual([2017, 2018, 2019, 2023]);
    expect(() => parseVintages('2024-2017')).toThrow(/backwards/);
    expect(() => parseVintages('23')).toThrow(/not a year/);
  });

  it('refuses unknown datasets, levels and states, and needs exactly one table choice', () => {
    expect(() => parseSelection({ datasets: 'acs3', vintages: '2023', tables: 'B19013' })).toThrow(/unknown dataset/);
    expect(() => parseSelection({ vintages: '2023', levels: 'zip', tables: 'B19013' })).toThrow(/unknown level/);
    expect(() => parseSelection({ vintages: '2023', states: '99', tables: 'B19013' })).toThrow(/not a state FIPS/);
    expect(() => parseSelection({ vintages: '2023' })).toThrow(/exactly one of --tables/);
    expect(() => parseSelection({ vintages: '2023', tables: 'B19013', catalog: true })).toThrow(/exactly one of --tables/);
    expect(() => parseSelection({ vintages: '2023', tables: 'B19013;DROP' })).toThrow(/not a Census table id/);
  });

  it('plans every (vintage, level, table), leaves out what the API does not publish, scopes tracts and block groups to states', async () => {
    const sel = parseSelection({ datasets: 'acs1,acs5', vintages: '2012,2020,2023', levels: 'state,tract,block_group', tables: 'b19013' });
    const plan = await planSelection(sel, () => Promise.reject(new Error('not called')));
    const keys = plan.api.map((i) => `${i.dataset}/${i.vintage}/${i.level}/${i.group}`);
    expect(keys).toEqual([
      'acs1/2012/state/B19013',
      'acs1/2023/state/B19013',
      'acs5/2012/state/B19013',
      'acs5/2012/tract/B19013',
      'acs5/2020/state/B19013',
      'acs5/2020/tract/B19013',
      'acs5/2020/block_group/B19013',
      'acs5/2023/state/B19013',
      'acs5/2023/tract/B19013',
      'acs5/2023/block_group/B19013',
    ]);
    expect(sel.skipped.join('\n')).toMatch(/acs1 2020 state: acs1 has no 2020 release/);
    expect(sel.skipped.join('\n')).toMatch(/acs1 2012 tract: acs1 is not published for tract/);
    expect(sel.skipped.join('\n')).toMatch(/acs5 2012 block_group: the Data API has block_group only from 2013/);
    expect(plan.api.find((i) => i.level === 'tract')!.states).toEqual(STATE_CODES);
    expect(plan.api.find((i) => i.level === 'state')!.states).toBeUndefined();
  });

  it('builds the in= clauses each level needs', () => {
    const ep = { apiBase: 'https://api.census.gov' };
    const item = { vintage: 2023, dataset: 'acs5' as const };
    expect(decodeURIComponent(dataUrl(ep, { ...item, level: 'tract' }, 'group(B19013)', [['state', '48']]))).toBe(
      'https://api.census.gov/data/2023/acs/acs5?get=group(B19013)&for=tract:*&in=state:48',
    );
    expect(
      decodeURIComponent(
        dataUrl(ep, { ...item, level: 'block_group' }, 'NAME,B19013_001E', [
          ['state', '48'],
          ['county', '453'],
        ]),
      ),
    ).toBe('https://api.census.gov/data/2023/acs/acs5?get=NAME,B19013_001E&for=block group:*&in=state:48&in=county:453');
  });

  it('--catalog asks each catalogue table for its estimates and MOEs, NAME first, and the dry run prints the plan', async () => {
    const sel = parseSelection({ catalog: true, datasets: 'acs5', vintages: '2023', levels: 'county,tract', states: '48' });
    const plan = await planSelection(sel, () => Promise.reject(new Error('not called')));
    const b19013 = plan.api.find((i) => i.group === 'B19013' && i.level === 'county')!;
    expect(b19013.variables?.slice(0, 3)).toEqual(['NAME', 'B19013_001E', 'B19013_001M']);
    const est = estimatePlan(plan);
    const tract = est.rows.find((r) => r.level === 'tract')!;
    // One request per state per 50 variables of each table.
    expect(tract.requests).toBe(plan.api.filter((i) => i.level === 'tract').reduce((n, i) => n + Math.ceil(i.variables!.length / 50), 0));
    const text = describePlan(sel, plan, est, { apiBase: 'https://api.census.gov', cacheDir: '/c' });
    expect(text).toMatch(/^plan: acs5 · vintages 2023 · levels county,tract · states 48 · the catalogue's \d+ estimates in \d+ tables/);
    expect(text).toMatch(/total: \d+ files, [\d,]+ requests/);
    expect(text).toMatch(/disk needed ≈/);
    expect(text).toMatch(/nothing was downloaded/);
  });
});

describe('tract files of several runs', () => {
  it('--states 06 after --states 48 holds both states; a re-run fetches nothing and writes the same file', async () => {
    const { startCensusStandin } = await import('../support/census-standin.js');
    const { fetchSourceTree } = await import('../../etl/online/fetch.js');
    const { captureLog } = await import('../support/census-emulator.js');
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { gunzipSync } = await import('node:zlib');
    const standin = await startCensusStandin({
      seed: 9,
      vintage: 2023,
      dataset: 'acs5',
      tables: { B19013: 1 },
      geographies: [
        { level: 'tract', fips: ['48', '453', '000101'], name: 'Census Tract 1.01; Travis County; Texas' },
        { level: 'tract', fips: ['06', '075', '010101'], name: 'Census Tract 101.01; San Francisco County; California' },
      ],
    });
    const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'online-parts-'));
    try {
      const plan = async (states: string) =>
        planSelection(parseSelection({ vintages: '2023', levels: 'tract', states, tables: 'B19013' }), () => Promise.resolve([]));
      const run = async (states: string) =>
        fetchSourceTree({ cacheDir, plan: await plan(states), apiBase: standin.apiBase, log: captureLog().log });
      const file = path.join(cacheDir, 'api/2023/acs/acs5/tract/B19013.json.gz');
      const tracts = async () =>
        (JSON.parse(gunzipSync(await fs.readFile(file)).toString('utf8')) as string[][]).slice(1).map((r) => r.at(-1));
      expect(await run('48')).toMatchObject({ downloaded: 1, failed: [] });
      expect(await tracts()).toEqual(['000101']);
      expect(await run('06')).toMatchObject({ downloaded: 1, failed: [] });
      expect(await tracts()).toEqual(['010101', '000101']); // state order: 06, 48
      const before = standin.requests.length;
      expect(await run('06,48')).toMatchObject({ downloaded: 0, reused: 1, failed: [] });
      expect(standin.requests.length).toBe(before);
      expect(await tracts()).toEqual(['010101', '000101']);
    } finally {
      await standin.close();
      await fs.rm(cacheDir, { recursive: true, force: true });
    }
  });
});
