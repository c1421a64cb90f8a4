// The observations step's staging: parsed on worker threads (ParsePool) or on the calling thread,
// the staging file of a partition is the same bytes, and an input error raised in a worker reaches
// the step with its file and row.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupPartitions, listApiFiles, stagePartition, type Partition } from '../../etl/steps/observations.js';
import { ParsePool } from '../../etl/steps/observations/parse-pool.js';
import { InputError } from '../../etl/step.js';
import { SHARED_CENSUS } from '../support/paths.js';

let dir: string;
let pool: ParsePool;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'obs-staging-'));
  pool = new ParsePool(2);
});
afterAll(async () => {
  await pool.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('stagePartition', () => {
  it('writes the same staging file on worker threads as on the calling thread (real files, in file order)', async () => {
    const p = groupPartitions(await listApiFiles(SHARED_CENSUS)).find(
      (x) => x.dataset === 'acs1' && x.vintage === 2018 && x.level === 'state',
    )!;
    const part: Partition = { ...p, files: p.files.slice(0, 60) };
    const here = await stagePartition(SHARED_CENSUS, part, path.join(dir, 'here.tsv'));
    const pooled = await stagePartition(SHARED_CENSUS, part, path.join(dir, 'pooled.tsv'), () => {}, pool);
    expect(here.count).toBeGreaterThan(10_000);
    const strip = ({ cells: _, ...rest }: typeof here) => rest;
    expect(strip(pooled)).toEqual(strip(here));
    expect(pooled.cells.columns()).toEqual(here.cells.columns());
    const [a, b] = await Promise.all([fs.readFile(path.join(dir, 'here.tsv')), fs.readFile(path.join(dir, 'pooled.tsv'))]);
    expect(b.equals(a)).toBe(true);
    expect(a.toString('utf8').split('\n', 1)[0]!.split('\t')).toHaveLength(7);
  });

  it('stages a partition of one table per file in the Parquet file’s order, so the COPY need not sort it', async () => {
    // The real files: geographies come in the API's order (not sorted), and some headers list
    // their variables out of order (B02017, B07009); the staging file is in (table, geography,
    // variable) order all the same.
    const p = groupPartitions(await listApiFiles(SHARED_CENSUS)).find(
      (x) => x.dataset === 'acs1' && x.vintage === 2018 && x.level === 'state',
    )!;
    const files = p.files.filter((f) => /\/(B01001|B02017|B07009|B19013)\.json/.test(f));
    expect(files).toHaveLength(4);
    const staged = await stagePartition(SHARED_CENSUS, { ...p, files }, path.join(dir, 'ordered.tsv'), () => {}, pool);
    expect(staged.sorted).toBe(true);
    const keys = (await fs.readFile(path.join(dir, 'ordered.tsv'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t', 3) as [string, string, string]);
    expect(keys).toHaveLength(staged.count);
    const cmp = (a: [string, string, string], b: [string, string, string]) =>
      a[1] !== b[1] ? (a[1] < b[1] ? -1 : 1) : a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
    expect(keys.every((k, i) => i === 0 || cmp(keys[i - 1]!, k) < 0)).toBe(true);
  });

  it('leaves the sorting to DuckDB when a file holds two tables, or the files are not in table order', async () => {
    const src = path.join(dir, 'two-tables');
    const level = path.join(src, 'api/2018/acs/acs1/state');
    await fs.mkdir(level, { recursive: true });
    await fs.writeFile(
      path.join(level, 'B19013.json'),
      JSON.stringify([
        ['B19301_001E', 'B19013_001E', 'state'],
        ['5', '7', '06'],
      ]),
    );
    const [p] = groupPartitions(await listApiFiles(src));
    const staged = await stagePartition(src, p!, path.join(dir, 'two.tsv'), () => {}, pool);
    expect(staged.sorted).toBe(false);
    const one = await stagePartition(src, { ...p!, files: [] }, path.join(dir, 'none.tsv'), () => {}, pool);
    expect(one.sorted).toBe(true);
  });

  it('hands a small file whose variables come out of order back from a worker (its sorted lines are a pooled Buffer, which Node 22 will not transfer)', async () => {
    const src = path.join(dir, 'unordered');
    const level = path.join(src, 'api/2018/acs/acs1/state');
    await fs.mkdir(level, { recursive: true });
    await fs.writeFile(
      path.join(level, 'B19001.json'),
      JSON.stringify([
        ['B19001_002E', 'B19001_001E', 'state'],
        ['5', '7', '06'],
      ]),
    );
    const [p] = groupPartitions(await listApiFiles(src));
    await stagePartition(src, p!, path.join(dir, 'unordered-workers.tsv'), () => {}, pool);
    await stagePartition(src, p!, path.join(dir, 'unordered-here.tsv'), () => {});
    const lines = (await fs.readFile(path.join(dir, 'unordered-workers.tsv'), 'utf8')).split('\n');
    expect(lines.slice(0, 2).map((l) => l.split('\t').slice(0, 4))).toEqual([
      ['state:06', 'B19001', 'B19001_001E', '7'],
      ['state:06', 'B19001', 'B19001_002E', '5'],
    ]);
    expect(await fs.readFile(path.join(dir, 'unordered-workers.tsv'))).toEqual(await fs.readFile(path.join(dir, 'unordered-here.tsv')));
  });

  it("reports a worker's input error with its file and row, and the pool keeps working", async () => {
    const src = path.join(dir, 'src');
    const level = path.join(src, 'api/2018/acs/acs1/state');
    await fs.mkdir(level, { recursive: true });
    const header = ['B19013_001E', 'B19013_001M', 'state'];
    await fs.writeFile(path.join(level, 'B19013.json'), JSON.stringify([header, ['75277', '317', '06'], ['12x', '5', '01']]));
    await fs.writeFile(
      path.join(level, 'B19301.json'),
      JSON.stringify([
        ['B19301_001E', 'state'],
        ['5', '06'],
      ]),
    );
    const [p] = groupPartitions(await listApiFiles(src));
    const err = await stagePartition(src, p!, path.join(dir, 'bad.tsv'), () => {}, pool).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).file).toBe('api/2018/acs/acs1/state/B19013.json');
    expect((err as InputError).row).toBe(2);
    expect((err as InputError).message).toBe('api/2018/acs/acs1/state/B19013.json, row 2: B19013_001E is not a number: "12x"');

    await fs.writeFile(path.join(level, 'B19013.json'), JSON.stringify([header, ['75277', '317', '06']]));
    const ok = await stagePartition(src, p!, path.join(dir, 'good.tsv'), () => {}, pool);
    const { cells, form, ...rest } = ok;
    expect(JSON.parse(form.json()).tables).toEqual({ B19013: '001E 001M', B19301: '001E' });
    expect(rest).toEqual({ count: 2, tables: ['B19013', 'B19301'], places: [['state:06', null]], sorted: true });
    expect(cells.columns()).toMatchObject({ geos: ['state:06'], variables: ['B19013_001E', 'B19301_001E'], rows: 2, dense: true });
    expect(await fs.readFile(path.join(dir, 'good.tsv'), 'utf8')).toBe(
      'state:06\tB19013\tB19013_001E\t75277\t317\t\t\nstate:06\tB19301\tB19301_001E\t5\t\t\tmissing_in_source\n',
    );
  });
});
