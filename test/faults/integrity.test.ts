// A damaged file never yields a number. Bytes are flipped at random offsets (seeded) in every kind
// of file the server reads — Parquet partitions, serving indexes (cells.idx), FlatGeobuf
// boundaries and their key sidecars, the catalog, codebook, geography and table files, the
// partition list — of a running server's copy of the test build. After each flip every request
// that reads the file answers either exactly what the undamaged build answered or a scoped 503
// dependency-unavailable; /health is degraded and names the file; once the byte is put back,
// /health is ok again and the answers are the published ones. `npm test` runs a few dozen flips;
// `npm run test:faults` (FAULTS_FULL=1) runs over a thousand.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, copyTestData, FULL, get, startServer, tempDir, type DataCopy, type Got, type ServerProcess } from './support.js';

const SEED = Number(process.env.FAULTS_SEED ?? 27);
const FLIPS = FULL ? 1_050 : 21;

/** mulberry32: a small seeded generator, so a failing flip can be replayed with FAULTS_SEED. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const part = (dataset: string, vintage: number, level: string) => `observations/dataset=${dataset}/vintage=${vintage}/level=${level}`;

// Point lookups of a few geographies are answered from the serving index; wildcards and
// timeseries past 500 geography × vintage lookups are read by DuckDB from the Parquet files.
const STATE_POINT = '/v1/data?variables=B19013_001E,B01003_001E,B25077_001E&geo=state:06,state:16,state:48&dataset=acs1&vintage=2012';
const STATE_2018_POINT = '/v1/data?variables=B19013_001E,B01003_001E&geo=state:06,state:36&dataset=acs1&vintage=2018';
const STATE_SERIES = '/v1/timeseries?variables=B19013_001E&geo=state:*&dataset=acs1&from=2005&to=2018';
const NATION_POINT = '/v1/data?variables=B19013_001E,B01003_001E&geo=nation:1&dataset=acs1&vintage=2012';
const COUNTY_POINT = '/v1/data?variables=B01003_001E,B25001_001E&geo=county:06001,county:16001&dataset=acs5&vintage=2023';
const COUNTY_ALL = '/v1/data?variables=B01003_001E,B25001_001E&geo=county:*&dataset=acs5&vintage=2023';

interface Target {
  rel: string;
  /** Requests that read the file. */
  probes: string[];
  /** The partition a 503 must name, for observation files. */
  partition?: { dataset: string; vintage: number; level: string };
}

const observationTargets = (dataset: string, vintage: number, level: string, probes: string[]): Target[] =>
  ['data_0.parquet', 'cells.idx'].map((f) => ({
    rel: `${part(dataset, vintage, level)}/${f}`,
    probes,
    partition: { dataset, vintage, level },
  }));

const TARGETS: Target[] = [
  ...observationTargets('acs1', 2012, 'state', [STATE_POINT, STATE_SERIES]),
  ...observationTargets('acs1', 2018, 'state', [STATE_2018_POINT, STATE_SERIES]),
  ...observationTargets('acs1', 2012, 'nation', [NATION_POINT]),
  ...observationTargets('acs5', 2023, 'county', [COUNTY_POINT, COUNTY_ALL]),
  { rel: 'boundaries/state/20m.fgb', probes: ['/v1/boundaries/state'] },
  { rel: 'boundaries/state/20m.keys.json', probes: ['/v1/boundaries/state'] },
  { rel: 'boundaries/county/20m.fgb', probes: ['/v1/boundaries/county:06001'] },
  { rel: 'boundaries/centroids/state.fgb', probes: ['/v1/centroids/state'] },
  { rel: 'catalog/codebook.csv', probes: ['/v1/codebook.csv'] },
  { rel: 'catalog/codebook.json', probes: ['/v1/codebook.json'] },
  // Read in full when the server starts: answers come from what was verified then; damage on
  // disk afterwards is reported by /health (and refused at the next start, below).
  { rel: 'catalog/catalog.json', probes: [STATE_POINT, '/v1/variables/B19013_001E'] },
  { rel: 'geo/geographies.json', probes: [STATE_POINT, '/v1/geographies/state:16'] },
  { rel: 'tables/acs1.json', probes: ['/v1/tables/B19013?dataset=acs1'] },
  { rel: 'observations/index.json', probes: [STATE_POINT] },
  { rel: 'boundaries/index.json', probes: ['/v1/boundaries/state'] },
];

/** Files a store reads in full at start, each with a request that needs that store. */
const READ_AT_START: Array<{ rel: string; probe: string }> = [
  { rel: 'catalog/catalog.json', probe: STATE_POINT },
  { rel: 'geo/geographies.json', probe: '/v1/geographies/state:16' },
  { rel: 'tables/acs1.json', probe: '/v1/tables/B19013?dataset=acs1' },
  { rel: 'observations/index.json', probe: STATE_POINT },
  { rel: 'boundaries/index.json', probe: '/v1/boundaries/state' },
];

let data: DataCopy;
let server: ServerProcess;
let key: string;
let dbPath: string;
const reference = new Map<string, string>();

const SERVER_ENV = () => ({ DATA_DIR: data.dataDir, DATABASE_PATH: dbPath, OBSERVATION_CACHE_CELLS: '0' });

beforeAll(async () => {
  data = await copyTestData({
    real: [...new Set(TARGETS.map((t) => t.rel).filter((r) => !r.startsWith('observations/dataset='))), 'manifest.json'],
  });
  dbPath = path.join(tempDir(), 'accounts.sqlite');
  key = adminKey(dbPath, 'enterprise');
  // No answer cache: every request reads the files (a cached answer is rightly served while a file is damaged).
  server = await startServer(SERVER_ENV());
}, 180_000);

afterAll(async () => {
  await server?.stop();
  data?.remove();
});

const call = (s: ServerProcess, p: string) => get(s.url + p, { 'X-API-Key': key });

/** What must not change: the data of a /v1 answer, else the whole body (GeoJSON, CSV, catalogue entries). */
function comparable(r: Got): string {
  if (!/json/.test(String(r.headers['content-type']))) return r.body;
  const body = r.json<Record<string, unknown>>();
  return JSON.stringify(body.data ?? body);
}

/** XOR one byte in place (same size); the same call puts it back. */
function flip(file: string, offset: number, mask: number): void {
  const fd = fs.openSync(file, 'r+');
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, offset);
    b[0] = b[0]! ^ mask;
    fs.writeSync(fd, b, 0, 1, offset);
  } finally {
    fs.closeSync(fd);
  }
}

async function usedRemaining(s: ServerProcess): Promise<number> {
  const r = await call(s, '/v1/topics');
  return Number(/"?monthly"?;r=(\d+)/.exec(String(r.headers['ratelimit']))?.[1]);
}

/** A 503 that names what is unavailable and nothing of the server's insides. */
function expectScoped503(r: Got, t: { rel: string; partition?: Target['partition'] }, what: string): void {
  expect(r.status, `${what}: ${r.body.slice(0, 300)}`).toBe(503);
  const body = r.json<Record<string, unknown>>();
  expect(body.type, what).toMatch(/dependency-unavailable$/);
  if (t.partition) expect(body, what).toMatchObject(t.partition);
  const { instance: _instance, ...rest } = body;
  expect(JSON.stringify(rest), what).not.toMatch(/cells\.idx|parquet|\.fgb|\.json|\/tmp|sha|checksum|ZSTD|Error:/i);
}

describe('random byte flips in every kind of file the server reads', () => {
  it('answers every probe on the undamaged copy, with the published values', async () => {
    for (const t of TARGETS)
      for (const p of t.probes) {
        if (reference.has(p)) continue;
        const r = await call(server, p);
        expect(r.status, `${p}: ${r.body.slice(0, 300)}`).toBe(200);
        // Each data probe reads stored numbers (not only cells the partition does not hold).
        if (/^\/v1\/(data|timeseries)/.test(p)) expect(r.body, p).toMatch(/"estimate":\d/);
        reference.set(p, comparable(r));
      }
    // A value the Bureau published (api/2012/acs/acs1 B19013, Idaho): the wrong answer was -3.58e-263.
    const idaho = JSON.parse(reference.get(STATE_POINT)!) as Array<{ geo_key?: string; geo?: string; variable?: string; estimate: number }>;
    expect(JSON.stringify(idaho)).toContain('45489');
    const h = await get(`${server.url}/health`);
    expect(h.json()).toMatchObject({ status: 'ok', damaged_files: [], unavailable_partitions: [] });
  }, 120_000);

  it(`${FLIPS} flips (seed ${SEED}): no answer differs from the published one, every failure a scoped 503, /health names the file, recovery once repaired`, async () => {
    const rand = random(SEED);
    let served = 0;
    let refused = 0;
    for (let i = 0; i < FLIPS; i++) {
      const t = TARGETS[i % TARGETS.length]!;
      const file = path.join(data.buildDir, t.rel);
      const offset = Math.floor(rand() * fs.statSync(file).size);
      const mask = 1 + Math.floor(rand() * 255);
      const what = `flip ${i} (seed ${SEED}): ${t.rel} @${offset} ^${mask}`;
      flip(file, offset, mask);
      try {
        for (const p of t.probes) {
          const r = await call(server, p);
          if (r.status === 200) {
            expect(comparable(r), `${what}: ${p}`).toBe(reference.get(p));
            served++;
          } else {
            expectScoped503(r, t, `${what}: ${p}`);
            refused++;
          }
        }
        const h = await get(`${server.url}/health`);
        expect(h.status, what).toBe(503);
        const health = h.json<{ status: string; damaged_files: Array<{ file: string }>; unavailable_partitions: unknown[] }>();
        expect(health.status, what).toBe('degraded');
        expect(
          health.damaged_files.map((f) => f.file),
          what,
        ).toEqual([t.rel]);
        if (t.partition) expect(health.unavailable_partitions, what).toMatchObject([{ ...t.partition, file: t.rel }]);
      } finally {
        flip(file, offset, mask);
      }
      const h = await get(`${server.url}/health`);
      expect(h.status, `${what}: after repair ${h.body}`).toBe(200);
      // Recovery: the probes answer again, every few flips (each costs a full answer).
      if (i % TARGETS.length === TARGETS.length - 1 || i === FLIPS - 1)
        for (const p of t.probes) expect(comparable(await call(server, p)), `${what}: ${p} after repair`).toBe(reference.get(p));
    }
    // Partition files are re-verified on every change, so each of their flips is refused.
    expect(refused).toBeGreaterThan(0);
    console.info(`integrity: ${FLIPS} flips, ${refused} answers refused (503), ${served} served from verified bytes`);
  }, 1_800_000);

  it('a 503 for a damaged file is not charged', async () => {
    const t = TARGETS[0]!;
    const file = path.join(data.buildDir, t.rel);
    flip(file, 4096, 0x40);
    try {
      const before = await usedRemaining(server);
      expectScoped503(await call(server, t.probes[0]!), t, 'charge');
      // The refund is committed when the response closes; /v1/topics itself costs 1 unit.
      await new Promise((res) => setTimeout(res, 100));
      expect(await usedRemaining(server)).toBe(before - 1);
    } finally {
      flip(file, 4096, 0x40);
    }
  });

  it('the issue repro: 4 KB overwritten every 400 KB of a serving index (same size) answers 503, not wrong numbers', async () => {
    const file = path.join(data.buildDir, `${part('acs1', 2012, 'state')}/cells.idx`);
    const saved = fs.readFileSync(file);
    const damaged = Buffer.from(saved);
    const rand = random(SEED + 1);
    for (let at = 0; at + 4096 <= damaged.length; at += 400 * 1024)
      for (let k = 0; k < 4096; k++) damaged[at + k] = Math.floor(rand() * 256);
    fs.writeFileSync(file, damaged);
    try {
      expectScoped503(
        await call(server, STATE_POINT),
        { rel: file, partition: { dataset: 'acs1', vintage: 2012, level: 'state' } },
        'index',
      );
    } finally {
      fs.writeFileSync(file, saved);
    }
    expect(comparable(await call(server, STATE_POINT))).toBe(reference.get(STATE_POINT));
  });
});

describe('a file damaged before the server starts', () => {
  const cases = FULL ? READ_AT_START.flatMap((c) => [c, c]) : READ_AT_START.slice(0, 1);
  it(`leaves its store out (scoped 503, /health names it) and the store is loaded once the file is repaired (${cases.length} starts)`, async () => {
    const rand = random(SEED + 2);
    for (const c of cases) {
      const file = path.join(data.buildDir, c.rel);
      const offset = Math.floor(rand() * fs.statSync(file).size);
      flip(file, offset, 0x20);
      const s = await startServer(SERVER_ENV());
      try {
        const what = `${c.rel} @${offset}`;
        const r = await call(s, c.probe);
        expectScoped503(r, { rel: c.rel }, what);
        const h = await get(`${s.url}/health`);
        expect(h.status, what).toBe(503);
        expect(
          h.json<{ damaged_files: Array<{ file: string }> }>().damaged_files.map((f) => f.file),
          what,
        ).toEqual([c.rel]);
        flip(file, offset, 0x20);
        expect((await get(`${s.url}/health`)).status, `${what}: after repair`).toBe(200);
        const again = await call(s, c.probe);
        expect(again.status, `${what}: after repair ${again.body.slice(0, 300)}`).toBe(200);
        expect(comparable(again), what).toBe(reference.get(c.probe) ?? comparable(await call(server, c.probe)));
      } finally {
        await s.stop();
      }
    }
  }, 600_000);
});

describe('a build made before file checksums', () => {
  it('serves, and same-size damage DuckDB cannot decode is a scoped 503 with /health degraded, not a 500 (the Parquet damage of the issue)', async () => {
    const manifestFile = path.join(data.buildDir, 'manifest.json');
    const saved = fs.readFileSync(manifestFile);
    const { files: _files, manifest_sha256: _seal, ...older } = JSON.parse(saved.toString('utf8')) as Record<string, unknown>;
    fs.writeFileSync(manifestFile, JSON.stringify(older));
    const parquet = path.join(data.buildDir, `${part('acs5', 2023, 'county')}/data_0.parquet`);
    const parquetBytes = fs.readFileSync(parquet);
    const s = await startServer(SERVER_ENV());
    try {
      const clean = await call(s, COUNTY_ALL);
      expect(clean.status).toBe(200);
      // As `dd conv=notrunc` of random bytes into the pages, 64 KB of every 128 KB (so the table
      // asked for is surely hit); same size, magic and footer intact, so only reading the pages can tell.
      const damaged = Buffer.from(parquetBytes);
      const rand = random(SEED + 3);
      const pagesEnd = damaged.length - 8 - damaged.readUInt32LE(damaged.length - 8);
      for (let at = 4; at < pagesEnd; at += 128 * 1024)
        for (let k = at; k < Math.min(at + 65536, pagesEnd); k++) damaged[k] = Math.floor(rand() * 256);
      fs.writeFileSync(parquet, damaged);
      const r = await call(s, COUNTY_ALL);
      expectScoped503(r, { rel: parquet, partition: { dataset: 'acs5', vintage: 2023, level: 'county' } }, 'older build');
      const h = await get(`${s.url}/health`);
      expect(h.status).toBe(503);
      expect(h.json()).toMatchObject({ unavailable_partitions: [{ dataset: 'acs5', vintage: 2023, level: 'county' }] });
      fs.writeFileSync(parquet, parquetBytes);
      expect((await get(`${s.url}/health`)).status).toBe(200);
      expect(comparable(await call(s, COUNTY_ALL))).toBe(comparable(clean));
    } finally {
      await s.stop();
      fs.writeFileSync(manifestFile, saved);
      fs.writeFileSync(parquet, parquetBytes);
    }
  }, 180_000);
});
