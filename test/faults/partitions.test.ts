// Damaged data (issue 12): a truncated, deleted or swapped Parquet partition answers 503
// dependency-unavailable naming the dataset, vintage and level, for exactly the requests that
// need it; its neighbours are served; /health says `degraded` and lists it, then recovers by
// itself once the file is back; and the failed request is not charged.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, copyTestData, get, startServer, tempDir, type DataCopy, type ServerProcess } from './support.js';

let data: DataCopy;
let server: ServerProcess;
let key: string;
let dbPath: string;

// Answers are cached (builds are immutable), so each test asks for a variable no other test asked
// for: a cached answer needs no file and is rightly served even while the file is damaged.
let variable = 'B19013_001E';
const q = (geo: string, vintage = 2012, dataset = 'acs1') =>
  `/v1/data?variables=${variable}&geo=${geo}&dataset=${dataset}&vintage=${vintage}`;

beforeAll(async () => {
  data = await copyTestData();
  dbPath = path.join(tempDir(), 'accounts.sqlite');
  key = adminKey(dbPath, 'pro');
  server = await startServer({ DATA_DIR: data.dataDir, DATABASE_PATH: dbPath });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  data?.remove();
});

const call = (p: string) => get(server.url + p, { 'X-API-Key': key });

async function usedUnits(): Promise<number> {
  const r = await call('/v1/topics');
  // RateLimit: "monthly";r=<remaining>;t=…  → remaining units; compare two readings.
  const m = /"?monthly"?;r=(\d+)/.exec(String(r.headers['ratelimit']));
  return Number(m?.[1]);
}

async function withDamagedFile(file: string, damage: () => void, check: () => Promise<void>) {
  const saved = fs.readFileSync(file);
  damage();
  try {
    await check();
  } finally {
    fs.writeFileSync(file, saved);
  }
}

describe('damaged or missing partitions', () => {
  it('serves all partitions and says ok while nothing is damaged', async () => {
    expect((await call(q('nation:1'))).status).toBe(200);
    expect((await call(q('state:06'))).status).toBe(200);
    const h = await get(`${server.url}/health`);
    expect(h.status).toBe(200);
    expect(h.json()).toMatchObject({ status: 'ok', database: 'ok', unavailable_partitions: [] });
  });

  it('truncated acs1 2012 nation file: 503 naming the partition, state 2012 unaffected, health degraded, not charged (was: 500 "No magic bytes", charged)', async () => {
    variable = 'B01003_001E';
    const file = data.partition('acs1', 2012, 'nation');
    await withDamagedFile(
      file,
      () => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2)),
      async () => {
        const before = await usedUnits();
        const r = await call(q('nation:1'));
        expect(r.status).toBe(503);
        expect(r.json()).toMatchObject({
          type: expect.stringMatching(/dependency-unavailable$/),
          dataset: 'acs1',
          vintage: 2012,
          level: 'nation',
        });
        expect(r.json<{ detail: string }>().detail).toContain('acs1 2012 nation');
        expect(r.body).not.toMatch(/magic|parquet|\/tmp/i);
        // The refund is committed when the response closes; /v1/topics itself costs 1 unit.
        await new Promise((res) => setTimeout(res, 100));
        expect(await usedUnits()).toBe(before - 1);
        expect((await call(q('state:06'))).status).toBe(200);
        expect((await call(q('nation:1', 2013))).status).toBe(200);
        const h = await get(`${server.url}/health`);
        expect(h.status).toBe(503);
        expect(h.json()).toMatchObject({
          status: 'degraded',
          database: 'ok',
          unavailable_partitions: [{ dataset: 'acs1', vintage: 2012, level: 'nation' }],
        });
      },
    );
    // Restored: served again and health recovers by itself.
    expect((await call(q('nation:1'))).status).toBe(200);
    const h = await get(`${server.url}/health`);
    expect(h.status).toBe(200);
  });

  it('deleted acs1 2012 nation file: 503 for nation only, acs1 2012 state still served (was: both 500 "No files found")', async () => {
    variable = 'B25077_001E';
    const file = data.partition('acs1', 2012, 'nation');
    await withDamagedFile(
      file,
      () => fs.rmSync(file),
      async () => {
        const r = await call(q('nation:1'));
        expect(r.status).toBe(503);
        expect(r.json()).toMatchObject({ level: 'nation', vintage: 2012 });
        const s = await call('/v1/data?variables=B19013_001E&geo=state:48&dataset=acs1&vintage=2012');
        expect(s.status).toBe(200);
        expect(s.json<{ data: Array<{ estimate: number }> }>().data[0]!.estimate).toEqual(expect.any(Number));
        // A query with no stored row at all (this table is not in the 2012 state file): nulls, not a 500.
        expect((await call(q('state:06'))).status).toBe(200);
        const st = await call(q('state:*'));
        expect(st.status).toBe(200);
        expect((await get(`${server.url}/health`)).json()).toMatchObject({
          unavailable_partitions: [{ level: 'nation', reason: 'file missing' }],
        });
      },
    );
    expect((await call(q('nation:1'))).status).toBe(200);
  });

  it('a file swapped for another partition (manifest row count differs): 503, neighbours served', async () => {
    variable = 'B19301_001E';
    const file = data.partition('acs1', 2012, 'nation');
    const other = data.partition('acs1', 2011, 'nation');
    await withDamagedFile(
      file,
      () => fs.copyFileSync(other, file),
      async () => {
        const r = await call(q('nation:1'));
        expect(r.status).toBe(503);
        expect(
          (await get(`${server.url}/health`)).json<{ unavailable_partitions: Array<{ reason: string }> }>().unavailable_partitions[0]!
            .reason,
        ).toMatch(/manifest/);
        expect((await call(q('nation:1', 2011))).status).toBe(200);
      },
    );
  });

  it('a timeseries across a damaged vintage: 503 naming it, not a 500', async () => {
    const file = data.partition('acs1', 2012, 'state');
    await withDamagedFile(
      file,
      () => fs.writeFileSync(file, 'not parquet at all'),
      async () => {
        variable = 'B25001_001E';
        const r = await call('/v1/timeseries?variables=B25001_001E&geo=state:06&dataset=acs1&from=2010&to=2014');
        expect(r.status).toBe(503);
        expect(r.json()).toMatchObject({ vintage: 2012, level: 'state' });
        expect((await call(q('state:06', 2013))).status).toBe(200);
      },
    );
  });
});
