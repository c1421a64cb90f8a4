// The files the server trusted without checking (issue 36 §1–4), each on a real server process
// over its own copy of the test build: the published form (published-form.json) is checked against
// the manifest and follows the file under it; a damaged boundary file answers 503 before the first
// byte of a collection; a manifest that cannot be read, or whose seal differs, is not served.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_CENSUS } from '../support/paths.js';
import { adminKey, copyTestData, get, startServer, tempDir, type DataCopy, type Got, type ServerProcess } from './support.js';

const nation = (vintage: number) => `observations/dataset=acs1/vintage=${vintage}/level=nation`;
const FORM_2012 = `${nation(2012)}/published-form.json`;
const STATE_FGB = 'boundaries/state/20m.fgb';
const CENTROIDS_FGB = 'boundaries/centroids/state.fgb';
const STATE_POINT = '/v1/data?variables=B19013_001E,B01003_001E&geo=state:06,state:16&dataset=acs1&vintage=2012';

let data: DataCopy;
let server: ServerProcess;
let key: string;
let dbPath: string;
const env = () => ({ DATA_DIR: data.dataDir, DATABASE_PATH: dbPath, OBSERVATION_CACHE_CELLS: '0' });

beforeAll(async () => {
  data = await copyTestData({
    real: ['manifest.json', STATE_FGB, STATE_FGB.replace('.fgb', '.keys.json'), CENTROIDS_FGB, CENTROIDS_FGB.replace('.fgb', '.keys.json')],
  });
  dbPath = path.join(tempDir(), 'accounts.sqlite');
  key = adminKey(dbPath, 'enterprise');
  server = await startServer(env());
}, 180_000);

afterAll(async () => {
  await server?.stop();
  data?.remove();
});

const call = (s: ServerProcess, p: string) => get(s.url + p, { 'X-API-Key': key });
const census = (s: ServerProcess, vintage: number, query: string) => get(`${s.url}/data/${vintage}/acs/acs1?${query}&key=${key}`);

/** The Bureau's own answer (api/ files are its response bodies), cut to `columns`. */
function bureau(vintage: number, table: string, columns: string[]): string[][] {
  const file = path.join(SHARED_CENSUS, 'api', String(vintage), 'acs/acs1/nation', `${table}.json.gz`);
  const rows = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8')) as string[][];
  const at = columns.map((c) => rows[0]!.indexOf(c));
  return rows.map((r) => at.map((i) => r[i]!));
}

async function health(s: ServerProcess) {
  const h = await get(`${s.url}/health`);
  return { status: h.status, body: h.json<{ status: string; data: unknown; damaged_files: Array<{ file: string; reason: string }> }>() };
}

function expect503(r: Got, what: string): void {
  expect(r.status, `${what}: ${r.body.slice(0, 300)}`).toBe(503);
  expect(r.body, what).not.toMatch(/published-form|\.fgb|manifest|checksum|\/tmp/i);
}

function swap(a: string, b: string): void {
  const tmp = `${a}.swap`;
  fs.renameSync(a, tmp);
  fs.renameSync(b, a);
  fs.renameSync(tmp, b);
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

describe('the published form (published-form.json)', () => {
  it('follows the file under it: 2013 and 2014 nation partitions swapped for one request and back, 2013 answers 2013 text', async () => {
    const want = bureau(2013, 'B01002D', ['NAME', 'B01002D_002E', 'us']);
    expect(want[1]![1]).toBe('35.0');
    const a = path.join(data.buildDir, nation(2013));
    const b = path.join(data.buildDir, nation(2014));
    swap(a, b);
    try {
      // The first 2013 request of this server reads the form while 2014's file is under the path.
      expect503(await census(server, 2013, 'get=NAME,B01002D_002E&for=us:1'), 'swapped');
    } finally {
      swap(a, b);
    }
    const r = await census(server, 2013, 'get=NAME,B01002D_002E&for=us:1');
    expect(r.status, r.body).toBe(200);
    expect(r.json()).toEqual(want);
    expect((await health(server)).status).toBe(200);
  });

  it('a flipped byte (a NAME changed) answers the scoped 503, /health names the file, and it recovers once repaired', async () => {
    const want = bureau(2012, 'B01002D', ['NAME', 'B01002D_002E', 'us']);
    const file = path.join(data.buildDir, FORM_2012);
    const offset = fs.readFileSync(file).indexOf('"United States"') + 1;
    expect(offset).toBeGreaterThan(0);
    flip(file, offset, 0x20); // "united States": still valid JSON, the same size
    try {
      expect503(await census(server, 2012, 'get=NAME,B01002D_002E&for=us:1'), 'damaged form');
      const h = await health(server);
      expect(h.status).toBe(503);
      expect(h.body.damaged_files.map((f) => f.file)).toEqual([FORM_2012]);
    } finally {
      flip(file, offset, 0x20);
    }
    expect((await health(server)).status).toBe(200);
    const r = await census(server, 2012, 'get=NAME,B01002D_002E&for=us:1');
    expect(r.status, r.body).toBe(200);
    expect(r.json()).toEqual(want);
  });
});

describe('a damaged boundary file under a collection', () => {
  for (const [route, rel] of [
    ['/v1/boundaries/state', STATE_FGB],
    ['/v1/centroids/state', CENTROIDS_FGB],
  ] as const)
    it(`${route}: 503 before the first byte (no good file's ETag, no long-lived caching), /health names ${rel}, 200 once repaired`, async () => {
      const file = path.join(data.buildDir, rel);
      // A byte among the features, past the header and index the file is opened with.
      const offset = Math.floor(fs.statSync(file).size * 0.9);
      flip(file, offset, 0x55);
      let bad: Got;
      try {
        // This server has not read the file yet: the damage is met when the collection opens it.
        bad = await call(server, route);
        expect503(bad, route);
        expect(String(bad.headers['cache-control'] ?? '')).not.toMatch(/max-age=[1-9]/);
        const h = await health(server);
        expect(h.status).toBe(503);
        expect(h.body.damaged_files.map((f) => f.file)).toEqual([rel]);
      } finally {
        flip(file, offset, 0x55);
      }
      expect((await health(server)).status).toBe(200);
      const good = await call(server, route);
      expect(good.status).toBe(200);
      const collection = good.json<{ type: string; features: unknown[] }>();
      expect(collection.type).toBe('FeatureCollection');
      expect(collection.features.length).toBeGreaterThan(50);
      expect(good.headers.etag).toBeDefined();
      expect(bad.headers.etag).not.toBe(good.headers.etag);
    });
});

describe('the manifest', () => {
  // Each damage is made before a server starts on the copy: it starts (as with any other damaged
  // file), answers 503 on data routes with /health naming manifest.json, and serves once repaired.
  const flipAt = (at: (text: string) => number, mask: number) => {
    let offset = -1;
    return {
      damage: (file: string) => {
        offset = at(fs.readFileSync(file, 'utf8'));
        expect(offset).toBeGreaterThanOrEqual(0);
        flip(file, offset, mask);
      },
      repair: (file: string) => flip(file, offset, mask),
    };
  };
  const damages: Array<{ what: string; damage: (file: string) => void; repair: (file: string) => void }> = [
    { what: 'not JSON (its first byte)', ...flipAt(() => 0, 0x01) },
    // Same size and still valid JSON: a digit of a partition's row count. Only the seal tells.
    {
      what: 'a row count digit (valid JSON, same size)',
      ...flipAt((t) => t.indexOf('"acs1/2012/state": ') + '"acs1/2012/state": '.length, 0x01),
    },
    { what: 'gone', damage: (file) => fs.renameSync(file, `${file}.away`), repair: (file) => fs.renameSync(`${file}.away`, file) },
  ];
  it.each(damages)(
    '$what: data routes answer 503, /health names it, no restart needed once repaired',
    async ({ damage, repair }) => {
      const reference = await call(server, STATE_POINT);
      expect(reference.status).toBe(200);
      const file = path.join(data.buildDir, 'manifest.json');
      damage(file);
      let repaired = false;
      let s: ServerProcess | undefined;
      try {
        s = await startServer(env());
        expect503(await call(s, STATE_POINT), 'unreadable manifest');
        const h = await health(s);
        expect(h.status).toBe(503);
        expect(h.body.data).toBeNull();
        expect(h.body.damaged_files.map((f) => f.file)).toEqual(['manifest.json']);
        repair(file);
        repaired = true;
        expect((await health(s)).status).toBe(200);
        const r = await call(s, STATE_POINT);
        expect(r.status).toBe(200);
        expect(r.json<{ data: unknown }>().data).toEqual(reference.json<{ data: unknown }>().data);
      } finally {
        await s?.stop();
        if (!repaired) repair(file);
      }
    },
    120_000,
  );

  it('changed on disk under a running server: answers stay those of the manifest read at start, /health names it', async () => {
    const file = path.join(data.buildDir, 'manifest.json');
    const offset = fs.readFileSync(file, 'utf8').indexOf('"created_at"') + 20;
    flip(file, offset, 0x01);
    try {
      const h = await health(server);
      expect(h.status).toBe(503);
      expect(h.body.damaged_files.map((f) => f.file)).toEqual(['manifest.json']);
      expect((await call(server, STATE_POINT)).status).toBe(200);
    } finally {
      flip(file, offset, 0x01);
    }
    expect((await health(server)).status).toBe(200);
  });
});
