// PartitionGuard on a real Parquet file read by DuckDB: /health's poll (faults) looks at a healthy
// partition only every HEALTH_RESTAT_MS (require() re-checks it before every query anyway), a
// faulted one on every poll, so damage is reported and a repair shows at once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DuckPool, sqlString } from '../../src/store/duckdb.js';
import { HEALTH_RESTAT_MS } from '../../src/store/file-integrity.js';
import { PartitionGuard, PartitionUnavailable } from '../../src/store/partition-guard.js';

let pool: DuckPool;
let dir: string;
let file: string;
let intact: Buffer;
const KEY = 'acs1/2012/nation';

beforeAll(async () => {
  pool = await DuckPool.open({ connections: 1, threads: 1 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-guard-'));
  file = path.join(dir, 'part.parquet');
  await pool.rows(`COPY (SELECT range AS x FROM range(100)) TO ${sqlString(file)} (FORMAT parquet)`);
  intact = fs.readFileSync(file);
});
afterAll(() => {
  pool?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
  fs.writeFileSync(file, intact);
});

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

async function guard(): Promise<PartitionGuard> {
  const g = new PartitionGuard(pool, new Map([[KEY, { file, rels: ['part.parquet'], rows: 100 }]]));
  await g.verifyAll();
  return g;
}

describe('PartitionGuard polled by /health', () => {
  it('reports a truncated partition within HEALTH_RESTAT_MS with no request, and its repair on the next poll', async () => {
    const g = await guard();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    expect(await g.faults()).toEqual([]);
    fs.truncateSync(file, 50);
    vi.setSystemTime(start + 1_000);
    expect(await g.faults()).toEqual([]);
    vi.setSystemTime(start + HEALTH_RESTAT_MS);
    expect(await g.faults()).toMatchObject([{ partition: KEY, reason: /not a complete Parquet file/ }]);
    fs.writeFileSync(file, intact);
    vi.setSystemTime(start + HEALTH_RESTAT_MS + 1_000);
    expect(await g.faults()).toEqual([]);
  });

  it('a query finds the damage at once, and /health lists it from then on', async () => {
    const g = await guard();
    expect(await g.faults()).toEqual([]);
    fs.truncateSync(file, 50);
    expect(await g.faults()).toEqual([]);
    expect(await rejection(g.require(KEY))).toBeInstanceOf(PartitionUnavailable);
    expect(await g.faults()).toMatchObject([{ partition: KEY }]);
    fs.writeFileSync(file, intact);
    expect(await g.faults()).toEqual([]);
    await g.require(KEY);
  });
});

describe('PartitionGuard while a file is replaced under a check', () => {
  it('a partition swapped with another during its check and swapped back is served again, not kept faulted', async () => {
    // Another partition's file (120 rows) renamed over this one's path while the guard reads the
    // footer, then renamed back: the fault found on the other file must not be kept with the
    // identity of this one, or /health and every request would report it until a restart.
    const other = path.join(dir, 'other.parquet');
    await pool.rows(`COPY (SELECT range AS x FROM range(120)) TO ${sqlString(other)} (FORMAT parquet)`);
    const swap = () => {
      fs.renameSync(file, `${file}.swap`);
      fs.renameSync(other, file);
      fs.renameSync(`${file}.swap`, other);
    };
    const g = new PartitionGuard(pool, new Map([[KEY, { file, rels: ['part.parquet'], rows: 100 }]]));
    const columns = pool.columns.bind(pool);
    const spy = vi.spyOn(pool, 'columns').mockImplementationOnce(async (sql: string) => {
      swap(); // the footer read below sees the other partition's file
      return columns(sql);
    });
    try {
      expect(await rejection(g.require(KEY))).toBeInstanceOf(PartitionUnavailable);
    } finally {
      spy.mockRestore();
      swap();
    }
    expect(await g.faults()).toEqual([]);
    await g.require(KEY);
    fs.rmSync(other);
  });
});
