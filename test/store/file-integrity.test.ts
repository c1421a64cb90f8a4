// FileIntegrity on real files: a verdict per file kept by identity, a damaged file refused until
// it matches its checksum again, a file changed within a clock tick of its check hashed again,
// and a store left out at start loaded once its file is repaired.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DamagedFile, FileIntegrity, HEALTH_RESTAT_MS } from '../../src/store/file-integrity.js';
import { AppError } from '../../src/domain/errors.js';

let dir: string;
const body = Buffer.from('x'.repeat(3 * 1024 * 1024 + 17));
const sum = (b: Buffer) => ({ sha256: createHash('sha256').update(b).digest('hex'), bytes: b.length });

function flip(rel: string, at: number): void {
  const b = fs.readFileSync(path.join(dir, rel));
  b[at] = b[at]! ^ 0x01;
  fs.writeFileSync(path.join(dir, rel), b);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-integrity-'));
  fs.mkdirSync(path.join(dir, 'catalog'));
  fs.writeFileSync(path.join(dir, 'catalog', 'catalog.json'), body);
  fs.writeFileSync(path.join(dir, 'other.json'), 'not recorded');
});

const integrity = () => new FileIntegrity(dir, { 'catalog/catalog.json': sum(body) });
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('FileIntegrity', () => {
  it('passes an intact file and one with no recorded checksum; a build without checksums checks nothing', async () => {
    const fi = integrity();
    await fi.check('catalog/catalog.json');
    await fi.check('other.json');
    expect(fi.verifiedIdentity('catalog/catalog.json')).toMatch(/^\d+:\d+:/);
    expect(await fi.faults()).toEqual([]);
    const none = new FileIntegrity(dir, undefined);
    expect(none.recorded).toBe(false);
    flip('catalog/catalog.json', 5);
    await none.check('catalog/catalog.json');
  });

  it('refuses a same-size change, names it in faults, and passes it again once repaired', async () => {
    const fi = integrity();
    await fi.check('catalog/catalog.json');
    flip('catalog/catalog.json', 2 * 1024 * 1024);
    const e = await rejection(fi.check('catalog/catalog.json'));
    expect(e).toBeInstanceOf(DamagedFile);
    expect(e).toMatchObject({ file: 'catalog/catalog.json', reason: 'checksum differs from the manifest (damaged)' });
    expect(await fi.faults()).toMatchObject([{ file: 'catalog/catalog.json', reason: /checksum/ }]);
    expect(fi.verifiedIdentity('catalog/catalog.json')).toBeUndefined();
    // As a 503 for a request: the file is not named to the client.
    const appError = await rejection(fi.require('catalog/catalog.json', 'The catalog is unavailable.'));
    expect(appError).toBeInstanceOf(AppError);
    expect((appError as AppError).message).toBe('The catalog is unavailable.');
    flip('catalog/catalog.json', 2 * 1024 * 1024);
    await fi.check('catalog/catalog.json');
    expect(await fi.faults()).toEqual([]);
  });

  it('reports a missing file and a truncated one by size', async () => {
    const fi = integrity();
    fs.truncateSync(path.join(dir, 'catalog', 'catalog.json'), 100);
    expect(await rejection(fi.check('catalog/catalog.json'))).toMatchObject({
      reason: `size 100 differs from the manifest's ${body.length}`,
    });
    fs.rmSync(path.join(dir, 'catalog', 'catalog.json'));
    expect(await rejection(fi.check('catalog/catalog.json'))).toMatchObject({ reason: 'file missing' });
  });

  it('hashes again a file changed within a second of its check even when inode, size and mtime look the same', async () => {
    const fi = integrity();
    const file = path.join(dir, 'catalog', 'catalog.json');
    await fi.check('catalog/catalog.json');
    const { atime, mtime } = fs.statSync(file);
    flip('catalog/catalog.json', 10);
    fs.utimesSync(file, atime, mtime); // the same identity, as two writes within one clock tick give
    expect(await rejection(fi.check('catalog/catalog.json'))).toBeInstanceOf(DamagedFile);
  });

  it('keeps the verdict of a settled file while its identity is unchanged (one stat, no hash)', async () => {
    const file = path.join(dir, 'catalog', 'catalog.json');
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, hourAgo, hourAgo);
    const fi = integrity();
    await fi.check('catalog/catalog.json');
    // Changed with its mtime set back on purpose: not seen until the identity changes (documented).
    flip('catalog/catalog.json', 10);
    fs.utimesSync(file, hourAgo, hourAgo);
    await fi.check('catalog/catalog.json');
    fs.utimesSync(file, new Date(), new Date());
    expect(await rejection(fi.check('catalog/catalog.json'))).toBeInstanceOf(DamagedFile);
  });

  it('loads a store deferred because of a damaged file once the file matches again', async () => {
    const fi = integrity();
    flip('catalog/catalog.json', 1);
    await expect(fi.check('catalog/catalog.json')).rejects.toBeInstanceOf(DamagedFile);
    let loads = 0;
    fi.deferUntilRepaired('catalog', ['catalog/catalog.json'], async () => ({ loaded: ++loads }));
    const stores: Record<string, unknown> = {};
    expect(await fi.recover(stores)).toEqual([]);
    expect(stores.catalog).toBeUndefined();
    expect(fi.deferredStores).toEqual(['catalog']);
    flip('catalog/catalog.json', 1);
    expect(await fi.recover(stores)).toEqual(['catalog']);
    expect(stores.catalog).toEqual({ loaded: 1 });
    expect(fi.deferredStores).toEqual([]);
    expect(await fi.recover(stores)).toEqual([]);
    expect(loads).toBe(1);
  });

  describe('/health polls (faults) on files checked on every use', () => {
    afterEach(() => vi.useRealTimers());

    it('looks at an intact one only every HEALTH_RESTAT_MS, a damaged one on every poll; a read finds damage at once', async () => {
      const start = Date.now();
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(start);
      fs.writeFileSync(path.join(dir, 'part.parquet'), body);
      const fi = new FileIntegrity(dir, { 'catalog/catalog.json': sum(body), 'part.parquet': sum(body) });
      fi.checkedOnUse(['part.parquet']);
      await fi.check('catalog/catalog.json');
      await fi.check('part.parquet');
      vi.setSystemTime(Date.now() + 2_000); // past the racy window of the writes above
      expect(await fi.faults()).toEqual([]);
      flip('part.parquet', 1000);
      flip('catalog/catalog.json', 1000);
      vi.setSystemTime(Date.now() + 2_000);
      // The file read at start is looked at on every poll; the one checked on use is not, yet.
      expect((await fi.faults()).map((f) => f.file)).toEqual(['catalog/catalog.json']);
      vi.setSystemTime(Date.now() + HEALTH_RESTAT_MS);
      expect((await fi.faults()).map((f) => f.file)).toEqual(['catalog/catalog.json', 'part.parquet']);
      // Repaired: the next poll says so, without waiting.
      flip('part.parquet', 1000);
      flip('catalog/catalog.json', 1000);
      vi.setSystemTime(Date.now() + 2_000);
      expect(await fi.faults()).toEqual([]);
      // Damaged again within the interval: not polled yet, but the request that reads it refuses it.
      flip('part.parquet', 7);
      vi.setSystemTime(Date.now() + 2_000);
      expect(await fi.faults()).toEqual([]);
      expect(await rejection(fi.check('part.parquet'))).toBeInstanceOf(DamagedFile);
      expect((await fi.faults()).map((f) => f.file)).toEqual(['part.parquet']);
    });
  });
});
