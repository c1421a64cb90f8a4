// Builds published to a directory or S3 and pulled by a replica (etl/publish-remote.ts,
// src/store/build-pull.ts, src/store/build-follower.ts), against a real S3-compatible server
// (s3rver) on a loopback port. The prebuilt test build is what is published; a "newer build" is
// the same files under another build id (hard links and a rewritten manifest), so its upload and
// pull move one new file and link the rest — which is also what keeps this file fast.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishToStore } from '../../etl/publish-remote.js';
import { loadConfig } from '../../src/config.js';
import { LiveStores } from '../../src/context/live-stores.js';
import type { Stores } from '../../src/context/stores.js';
import { buildApp } from '../../src/http/app.js';
import { openAccountStores } from '../../src/store/accounts/index.js';
import { BuildFollower } from '../../src/store/build-follower.js';
import { BuildVerificationError, makeCurrent, pullBuild } from '../../src/store/build-pull.js';
import { readManifest, resolveCurrentBuild } from '../../src/store/data-dir.js';
import { openObjectStore } from '../../src/store/object-store/index.js';
import { openDataStores } from '../../src/store/open.js';
import { blobKey, indexKey, LATEST_KEY, PULLED_MARKER, sha256File } from '../../src/store/published-build.js';
import { adminIssueKey } from '../../src/verbs/account-admin-issue-key.js';
import { testBuildDir } from '../support/build.js';
import { verbContext } from '../support/context.js';
import { REPO_ROOT } from '../support/paths.js';
import { linkTree as link, publisherDir, scratchDir as scratch, type PublisherDir } from '../support/published.js';
import { startLocalS3, type LocalS3 } from '../support/s3.js';

const silent = pino({ level: 'silent' });
let s3: LocalS3;
let pub: PublisherDir;
/** The directory target the first test publishes A then B to. */
let dirTarget: string | undefined;
const cleanup: string[] = [];

beforeAll(async () => {
  const build = await testBuildDir();
  s3 = await startLocalS3();
  pub = publisherDir(build);
  cleanup.push(pub.dataDir);
}, 120_000);

afterAll(async () => {
  await s3?.close();
  for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
});

describe('etl publish', () => {
  it('to a directory: every file under its SHA-256, the index, latest last; again: a no-op', async () => {
    const target = scratch();
    cleanup.push(target);
    dirTarget = target;
    const first = await publishToStore({ dataDir: pub.dataDir, to: target });
    expect(first.buildId).toBe(pub.a);
    expect(first.uploaded).toBeGreaterThan(50);
    expect(first.indexWritten && first.latestMoved).toBe(true);
    const index = JSON.parse(fs.readFileSync(path.join(target, indexKey(pub.a)), 'utf8')) as {
      files: Array<{ path: string; sha256: string; bytes: number }>;
    };
    expect(index.files.map((f) => f.path)).toContain('manifest.json');
    const sample = index.files.find((f) => f.path.endsWith('.parquet'))!;
    expect((await sha256File(path.join(target, blobKey(sample.sha256)))).sha256).toBe(sample.sha256);
    expect(JSON.parse(fs.readFileSync(path.join(target, LATEST_KEY), 'utf8')).build_id).toBe(pub.a);

    const again = await publishToStore({ dataDir: pub.dataDir, to: target });
    expect(again).toMatchObject({ uploaded: 0, indexWritten: false, latestMoved: false });
    // A newer build: one new file (its manifest) is uploaded, the rest are already there.
    const next = await publishToStore({ dataDir: pub.dataDir, to: target, buildId: pub.b });
    expect(next).toMatchObject({ buildId: pub.b, uploaded: 1, indexWritten: true, latestMoved: true });
    expect(fs.readdirSync(target).some((e) => e.includes('.tmp-'))).toBe(false);
  }, 120_000);

  it('refuses to republish a build id with other content (builds are immutable)', async () => {
    const target = scratch();
    cleanup.push(target);
    const store = await openObjectStore(target);
    await store.write(indexKey(pub.a), Buffer.from('{"something":"else"}\n'));
    await expect(publishToStore({ dataDir: pub.dataDir, to: target, store })).rejects.toThrow(/immutable/);
    expect(await store.read(LATEST_KEY)).toBeUndefined();
  }, 120_000);
});

describe('s3: publish, pull, verify, switch', () => {
  let replicaDir: string;

  beforeAll(async () => {
    const r = await publishToStore({ dataDir: pub.dataDir, to: s3.url('census'), env: s3.env });
    expect(r.uploaded).toBeGreaterThan(50);
    replicaDir = scratch();
    cleanup.push(replicaDir);
  }, 180_000);

  it('pulls the latest build, verifying every file; a second pull downloads nothing', async () => {
    const store = await openObjectStore(s3.url('census'), s3.env);
    const pulled = await pullBuild(store, replicaDir);
    expect(pulled.buildId).toBe(pub.a);
    expect(pulled.downloaded).toBeGreaterThan(50);
    expect(fs.existsSync(path.join(pulled.dir, PULLED_MARKER))).toBe(true);
    const src = path.join(pub.dataDir, 'builds', pub.a, 'catalog', 'catalog.json');
    expect((await sha256File(path.join(pulled.dir, 'catalog', 'catalog.json'))).sha256).toBe((await sha256File(src)).sha256);
    expect(await pullBuild(store, replicaDir)).toMatchObject({ downloaded: 0 });
    // Re-publishing the same build to S3 is a no-op too.
    expect(await publishToStore({ dataDir: pub.dataDir, to: s3.url('census'), env: s3.env })).toMatchObject({
      uploaded: 0,
      indexWritten: false,
      latestMoved: false,
    });
  }, 180_000);

  it('refuses a tampered object: nothing of the build is kept', async () => {
    // Build B staged (latest stays on A); a replica that has A pulls B: only B's new file is fetched.
    const store = await openObjectStore(s3.url('census'), s3.env);
    expect(
      await publishToStore({ dataDir: pub.dataDir, to: s3.url('census'), env: s3.env, buildId: pub.b, setLatest: false }),
    ).toMatchObject({
      uploaded: 1,
      latestMoved: false,
    });
    const dir = scratch();
    cleanup.push(dir);
    link(path.join(replicaDir, 'builds'), path.join(dir, 'builds'), true);
    const index = JSON.parse((await store.read(indexKey(pub.b)))!.toString('utf8')) as { files: Array<{ path: string; sha256: string }> };
    const manifest = index.files.find((f) => f.path === 'manifest.json')!;
    const original = (await store.read(blobKey(manifest.sha256)))!;
    const before = fs.readdirSync(path.join(dir, 'builds')).sort();
    try {
      // Same size, one bit different: only the hash can tell.
      const bad = Buffer.from(original);
      bad[10] = bad[10]! ^ 1;
      await store.write(blobKey(manifest.sha256), bad);
      await expect(pullBuild(store, dir, { buildId: pub.b })).rejects.toThrow(BuildVerificationError);
      expect(fs.readdirSync(path.join(dir, 'builds')).sort()).toEqual(before);
      // Truncated.
      await store.write(blobKey(manifest.sha256), original.subarray(0, 100));
      await expect(pullBuild(store, dir, { buildId: pub.b })).rejects.toThrow(/bytes, expected/);
      expect(fs.readdirSync(path.join(dir, 'builds')).sort()).toEqual(before);
    } finally {
      await store.write(blobKey(manifest.sha256), original);
    }
    // An index that is not the one latest.json names.
    const other = await openObjectStore(s3.url('tampered'), s3.env);
    await other.write(indexKey(pub.b), (await store.read(indexKey(pub.b)))!);
    await other.write(
      LATEST_KEY,
      Buffer.from(JSON.stringify({ build_id: pub.b, index_sha256: '0'.repeat(64), published_at: new Date().toISOString() })),
    );
    await expect(pullBuild(other, dir)).rejects.toThrow(/does not match latest/);
    expect(fs.readdirSync(path.join(dir, 'builds')).sort()).toEqual(before);
  }, 180_000);

  it('switches to a newly published build under steady load with no failed request', async () => {
    const config = loadConfig(
      { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
      { DATA_DIR: replicaDir, DATABASE_PATH: path.join(replicaDir, 'accounts.sqlite') },
    );
    const follower = new BuildFollower({
      source: s3.url('census'),
      dataDir: replicaDir,
      intervalMs: 0,
      env: s3.env,
      log: silent,
      open: (dir) => openDataStores(dir, silent),
    });
    await follower.prepare();
    expect(readManifest(resolveCurrentBuild(replicaDir)!).build_id).toBe(pub.a);
    const data = await openDataStores(resolveCurrentBuild(replicaDir)!, silent);
    const accounts = openAccountStores(config);
    const stores: Stores = { ...data.stores, ...accounts, buildSource: follower.status };
    const live = new LiveStores(stores, data.close);
    const app = await buildApp({ config, stores, live, logger: silent });
    follower.start(live);
    const { key } = (
      await adminIssueKey({ ctx: verbContext(stores, { plan: null }), input: { email: 'e@example.org', plan: 'enterprise' } })
    ).data;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const results: Array<{ status: number; build?: string; start: number; end: number }> = [];
      let running = true;
      const worker = async (i: number) => {
        while (running) {
          const start = performance.now();
          if (i % 2 === 0) {
            const r = await fetch(`${base}/health`);
            const body = (await r.json()) as { data: { build_id: string } | null };
            results.push({ status: r.status, build: body.data?.build_id, start, end: performance.now() });
          } else {
            const r = await fetch(`${base}/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018`, {
              headers: { 'X-API-Key': key },
            });
            await r.arrayBuffer();
            results.push({ status: r.status, start, end: performance.now() });
          }
          await new Promise((r) => setTimeout(r, 3));
        }
      };
      const workers = [0, 1, 2, 3].map(worker);
      await new Promise((r) => setTimeout(r, 300));

      // Switch at a moment when requests are running on the old build (waited for, at most 5 s).
      let inFlightAtSwitch = 0;
      const switchTo = live.switchTo.bind(live);
      live.switchTo = (...args) => {
        const at = async () => {
          const end = Date.now() + 5_000;
          while (live.inFlight === 0 && Date.now() < end) await new Promise((r) => setImmediate(r));
          inFlightAtSwitch = live.inFlight;
          return switchTo(...args);
        };
        return at();
      };
      const published = await publishToStore({ dataDir: pub.dataDir, to: s3.url('census'), env: s3.env, buildId: pub.b });
      expect(published).toMatchObject({ uploaded: 0, latestMoved: true });
      const switchStart = performance.now();
      await follower.check();
      const switched = performance.now();
      await new Promise((r) => setTimeout(r, 300));
      running = false;
      await Promise.all(workers);

      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      expect(inFlightAtSwitch).toBeGreaterThan(0);
      expect(results.length).toBeGreaterThan(50);
      // Requests were running across the switch, and the builds answered in order A… then B….
      expect(results.some((r) => r.start < switched && r.end > switchStart)).toBe(true);
      const builds = results.filter((r) => r.build).sort((x, y) => x.end - y.end);
      expect(builds[0]!.build).toBe(pub.a);
      expect(builds.at(-1)!.build).toBe(pub.b);
      expect(follower.status).toMatchObject({ reachable: true, latest: pub.b, switches: 1, last_error: null });
      expect(live.drainingCount).toBe(0);
      expect(fs.readlinkSync(path.join(replicaDir, 'current'))).toBe(path.join('builds', pub.b));
      const health = (await (await fetch(`${base}/health`)).json()) as { data: { build_id: string }; source: { latest: string } };
      expect(health.data.build_id).toBe(pub.b);
      expect(health.source.latest).toBe(pub.b);
    } finally {
      await follower.stop();
      await app.close();
      live.close();
      accounts.accounts.close();
    }
  }, 180_000);

  it('unreachable at start with a build already pulled: serves it and says so', async () => {
    const dead = await startLocalS3();
    const env = dead.env;
    await dead.close();
    // replicaDir holds the pulled builds; the source is now a closed port.
    const follower = new BuildFollower({
      source: 's3://builds/census',
      dataDir: replicaDir,
      intervalMs: 0,
      env,
      log: silent,
      open: (dir) => openDataStores(dir, silent),
    });
    await follower.prepare();
    expect(follower.status.reachable).toBe(false);
    expect(follower.status.last_error).toMatch(/unreachable/);
    expect(follower.status.last_error).not.toMatch(/127\.0\.0\.1/);
    expect(resolveCurrentBuild(replicaDir)).toBeDefined();
    // A later failed poll changes nothing that is served either.
    const data = await openDataStores(resolveCurrentBuild(replicaDir)!, silent);
    const live = new LiveStores({ ...data.stores, buildSource: follower.status }, data.close);
    follower.start(live);
    await follower.check();
    expect(live.stores.build?.manifest.build_id).toBe(readManifest(resolveCurrentBuild(replicaDir)!).build_id);
    await follower.stop();
    live.close();
  }, 60_000);
});

describe('npm start with DATA_SOURCE', () => {
  it('pulls the published latest build into an empty DATA_DIR, verifies it, serves it and reports it in /health', async () => {
    expect(dirTarget).toBeDefined();
    const dataDir = scratch();
    cleanup.push(dataDir);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/server.ts')], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'test',
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: path.join(dataDir, 'data'),
        DATABASE_PATH: path.join(dataDir, 'accounts.sqlite'),
        DATA_SOURCE: dirTarget!,
        DATA_POLL_INTERVAL_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const end = Date.now() + 90_000;
      while (!/listening at http:\/\/127\.0\.0\.1:\d+/.test(out)) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`server did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const port = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1];
      const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as {
        data: { build_id: string };
        source: { kind: string; reachable: boolean; latest: string };
      };
      // The first test left `latest` on B.
      expect(health.data.build_id).toBe(pub.b);
      expect(health.source).toMatchObject({ kind: 'directory', reachable: true, latest: pub.b });
      expect(JSON.stringify(health)).not.toContain(dirTarget!);
      expect(out).toContain('data build pulled and verified');
      expect(fs.existsSync(path.join(dataDir, 'data', 'builds', pub.b, PULLED_MARKER))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 150_000);
});

describe('makeCurrent', () => {
  it('replaces the current symlink atomically', async () => {
    const dir = scratch();
    cleanup.push(dir);
    fs.mkdirSync(path.join(dir, 'builds', 'x'), { recursive: true });
    await makeCurrent(dir, 'x');
    expect(fs.readlinkSync(path.join(dir, 'current'))).toBe(path.join('builds', 'x'));
  });
});
