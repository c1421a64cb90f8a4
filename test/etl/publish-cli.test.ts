// `npm run etl -- publish` as an operator runs it: the commander wiring, the messages, exit codes,
// and S3 settings taken from the environment (S3_ENDPOINT, AWS_*), on a small build directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openObjectStore } from '../../src/store/object-store/index.js';
import { blobKey, indexKey, LATEST_KEY } from '../../src/store/published-build.js';
import { REPO_ROOT } from '../support/paths.js';
import { startLocalS3, type LocalS3 } from '../support/s3.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-publish-cli-'));
const dataDir = path.join(tmp, 'data');
let s3: LocalS3;

/** Async: the S3 server runs in this process, so the event loop must keep turning while the CLI runs. */
function etl(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'etl/cli.ts'), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

beforeAll(async () => {
  // A small build as the ETL lays it out: builds/<id>/ with its manifest, and `current`.
  const build = path.join(dataDir, 'builds', 'b-small');
  fs.mkdirSync(path.join(build, 'catalog'), { recursive: true });
  fs.writeFileSync(
    path.join(build, 'manifest.json'),
    JSON.stringify({
      build_id: 'b-small',
      created_at: '2026-11-23T00:00:00.000Z',
      synthetic: false,
      source: { dir: '/x', mode: 'local' },
      steps: {},
    }),
  );
  fs.writeFileSync(path.join(build, 'catalog', 'catalog.json'), '{"variables":[]}');
  fs.writeFileSync(path.join(build, 'catalog', 'copy.json'), '{"variables":[]}');
  fs.symlinkSync(path.join('builds', 'b-small'), path.join(dataDir, 'current'));
  s3 = await startLocalS3();
});

afterAll(async () => {
  await s3?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('etl publish (CLI)', () => {
  it('publishes the live build to a directory, then says there is nothing to do', async () => {
    const target = path.join(tmp, 'target');
    const first = await etl(['publish', '--to', target, '-d', dataDir]);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('build b-small published to');
    expect(first.out).toContain('latest now points to it');
    // Two files with the same bytes are one blob.
    expect(fs.readdirSync(path.join(target, 'blobs', 'sha256'))).toHaveLength(2);
    const again = await etl(['publish', '--to', target, '-d', dataDir]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('already published');
    expect(again.out).toContain('uploaded 0');
  }, 60_000);

  it('a blob tampered with in the target (same size) is uploaded again, not trusted (was: "uploaded 0")', async () => {
    const target = path.join(tmp, 'target-tampered');
    expect((await etl(['publish', '--to', target, '-d', dataDir])).code).toBe(0);
    const blobs = path.join(target, 'blobs', 'sha256');
    const [victim] = fs.readdirSync(blobs);
    const good = fs.readFileSync(path.join(blobs, victim!));
    const bad = Buffer.from(good);
    bad[0] = bad[0]! ^ 0xff; // same size, other bytes
    fs.writeFileSync(path.join(blobs, victim!), bad);
    const again = await etl(['publish', '--build', 'b-small', '--to', target, '-d', dataDir]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('uploaded 1');
    expect(again.out).toContain('1 replaced');
    expect(fs.readFileSync(path.join(blobs, victim!))).toEqual(good);
    // Now everything there hashes to its key: nothing to do.
    expect((await etl(['publish', '--build', 'b-small', '--to', target, '-d', dataDir])).out).toContain('uploaded 0');
  }, 60_000);

  it('publishes to s3:// with the endpoint and credentials from the environment', async () => {
    const r = await etl(['publish', '--to', s3.url('cli'), '--build', 'b-small', '-d', dataDir], s3.env);
    expect(r.code, r.out).toBe(0);
    const store = await openObjectStore(s3.url('cli'), s3.env);
    expect(JSON.parse((await store.read(LATEST_KEY))!.toString('utf8')).build_id).toBe('b-small');
    expect(await store.read(indexKey('b-small'))).toBeDefined();
    // A blob overwritten in the bucket with other bytes of the same size is uploaded again.
    const index = JSON.parse((await store.read(indexKey('b-small')))!.toString('utf8')) as { files: { sha256: string }[] };
    const key = blobKey(index.files[0]!.sha256);
    const good = (await store.read(key))!;
    await store.write(key, Buffer.alloc(good.length, 0x20));
    const again = await etl(['publish', '--to', s3.url('cli'), '--build', 'b-small', '-d', dataDir], s3.env);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('uploaded 1');
    expect(await store.read(key)).toEqual(good);
  }, 60_000);

  it('an unknown build: exit 1, one line, latest unchanged', async () => {
    const r = await etl(['publish', '--to', path.join(tmp, 'other'), '--build', 'nope', '-d', dataDir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('no complete build nope');
    expect(r.out).toContain('latest` build is unchanged');
    expect(fs.existsSync(path.join(tmp, 'other', LATEST_KEY))).toBe(false);
  }, 60_000);
});
