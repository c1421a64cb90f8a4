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
    expect(pooled).toEqual(here);
    const [a, b] = await Promise.all([fs.readFile(path.join(dir, 'here.tsv')), fs.readFile(path.join(dir, 'pooled.tsv'))]);
    expect(b.equals(a)).toBe(true);
    expect(a.toString('utf8').split('\n', 1)[0]!.split('\t')).toHaveLength(7);
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
    const { cells, ...rest } = ok;
    expect(rest).toEqual({ count: 2, tables: ['B19013', 'B19301'], places: [['state:06', null]] });
    expect(cells.columns()).toMatchObject({ geos: ['state:06'], variables: ['B19013_001E', 'B19301_001E'], rows: 2, dense: true });
    expect(await fs.readFile(path.join(dir, 'good.tsv'), 'utf8')).toBe(
      'state:06\tB19013\tB19013_001E\t75277\t317\t\t\nstate:06\tB19301\tB19301_001E\t5\t\t\tmissing_in_source\n',
    );
  });
});
