// The two object stores behind one interface (src/store/object-store): the same behaviour on a
// directory and on a real S3-compatible server (s3rver), including a multipart upload.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirObjectStore } from '../../../src/store/object-store/dir.js';
import { openObjectStore, ObjectMissing, type ObjectStore } from '../../../src/store/object-store/index.js';
import { S3ObjectStore } from '../../../src/store/object-store/s3.js';
import { startLocalS3, type LocalS3 } from '../../support/s3.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-objects-'));
let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3();
});
afterAll(async () => {
  await s3?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const targets: Array<[string, () => Promise<ObjectStore>]> = [
  ['directory', async () => openObjectStore(path.join(tmp, 'dir'))],
  ['s3', async () => openObjectStore(s3.url('prefix/x'), s3.env)],
];

describe.each(targets)('%s', (_name, open) => {
  it('writes, stats, reads and streams objects; a missing one is undefined / ObjectMissing', async () => {
    const store = await open();
    expect(await store.stat('a/b.json')).toBeUndefined();
    expect(await store.read('a/b.json')).toBeUndefined();
    await expect(store.stream('a/b.json')).rejects.toBeInstanceOf(ObjectMissing);
    await store.write('a/b.json', Buffer.from('{"x":1}'));
    expect(await store.stat('a/b.json')).toEqual({ bytes: 7 });
    expect((await store.read('a/b.json'))!.toString()).toBe('{"x":1}');
    const file = path.join(tmp, `f-${_name}`);
    const bytes = crypto.randomBytes(300_000);
    fs.writeFileSync(file, bytes);
    await store.writeFile('blobs/f', file, bytes.length);
    const chunks: Buffer[] = [];
    for await (const c of await store.stream('blobs/f')) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('refuses keys that climb out of the target', async () => {
    const store = await open();
    for (const bad of ['../x', '/abs', 'a/../../x', 'a//b', '']) await expect(store.read(bad)).rejects.toThrow(/invalid object key/);
  });
});

describe('S3ObjectStore multipart', () => {
  it('uploads a file in parts above the threshold; the object is whole', async () => {
    const store = (await openObjectStore(s3.url('mp'), s3.env)) as S3ObjectStore;
    store.multipartThreshold = 6 * 1024 * 1024;
    store.partBytes = 5 * 1024 * 1024;
    const bytes = crypto.randomBytes(12 * 1024 * 1024 + 123);
    const file = path.join(tmp, 'big');
    fs.writeFileSync(file, bytes);
    await store.writeFile('blobs/big', file, bytes.length);
    expect(await store.stat('blobs/big')).toEqual({ bytes: bytes.length });
    const got = (await store.read('blobs/big'))!;
    expect(crypto.createHash('sha256').update(got).digest('hex')).toBe(crypto.createHash('sha256').update(bytes).digest('hex'));
  }, 60_000);

  it('a directory target never shows a half-written object under its key', async () => {
    const store = new DirObjectStore(path.join(tmp, 'atomic'));
    await expect(store.writeFile('blobs/x', path.join(tmp, 'does-not-exist'), 10)).rejects.toThrow();
    expect(await store.stat('blobs/x')).toBeUndefined();
    expect(fs.readdirSync(path.join(tmp, 'atomic', 'blobs'))).toEqual([]);
  });
});
