// A directory as an object store (a shared volume, an NFS mount, tests). Every write goes to a
// temporary name beside its target and is renamed into place, so a half-written file is never
// visible under its key, and a killed publisher leaves only `.tmp-*` files behind.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { checkKey, ObjectMissing, type ObjectStore } from './types.js';

export class DirObjectStore implements ObjectStore {
  constructor(readonly root: string) {}

  get url(): string {
    return this.root;
  }

  private file(key: string): string {
    return path.join(this.root, ...checkKey(key).split('/'));
  }

  async stat(key: string): Promise<{ bytes: number } | undefined> {
    const s = await fsp.stat(this.file(key)).catch(() => undefined);
    return s?.isFile() ? { bytes: s.size } : undefined;
  }

  async read(key: string): Promise<Buffer | undefined> {
    try {
      return await fsp.readFile(this.file(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async stream(key: string): Promise<Readable> {
    const file = this.file(key);
    // Opened first so a missing object fails here, not on the stream's first read.
    const handle = await fsp.open(file, 'r').catch((e: NodeJS.ErrnoException) => {
      throw e.code === 'ENOENT' ? new ObjectMissing(key) : e;
    });
    return handle.createReadStream();
  }

  private async atomically(key: string, put: (tmp: string) => Promise<void>): Promise<void> {
    const target = this.file(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await put(tmp);
      await fsp.rename(tmp, target);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
  }

  write(key: string, body: Buffer): Promise<void> {
    return this.atomically(key, (tmp) => fsp.writeFile(tmp, body));
  }

  writeFile(key: string, file: string, _bytes: number): Promise<void> {
    // A copy-on-write clone where the file system offers one, else a plain copy.
    return this.atomically(key, (tmp) => fsp.copyFile(file, tmp, fs.constants.COPYFILE_FICLONE));
  }
}
