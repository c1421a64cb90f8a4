// The cache directory is a source tree: a file at its final path is complete. Writes go to a
// temporary name in the same directory, are flushed to disk, then renamed over the final name
// (rename is atomic within a filesystem), so an interrupted run leaves at worst a `.partial-*`
// file that no reader looks for and the next run deletes.
//
// On resume an existing `.gz` file is still decompressed once: gzip's trailer carries a CRC-32
// and the length, so a file damaged after the fact (a copy cut short, a crash before the data
// reached the disk on a filesystem that reorders rename) is detected and fetched again. That
// costs a read of the cache but needs no index that could itself get out of step with the files.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { isAlive } from '../process.js';

const gunzipAsync = promisify(gunzip);
const PARTIAL = '.partial-';

export async function writeAtomic(file: string, data: Buffer): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}${PARTIAL}${process.pid}-${randomBytes(4).toString('hex')}`;
  const fh = await fs.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/** Whether `file` is a complete cache entry; a `.gz` that fails to decompress is removed. */
export async function isComplete(file: string): Promise<boolean> {
  let data: Buffer;
  try {
    // A symlink is a file linked from the fallback tree by an earlier run: download it this time.
    if ((await fs.lstat(file)).isSymbolicLink()) return false;
    data = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (/\.(zip|xlsx)$/.test(file)) return hasZipDirectory(data);
  if (!file.endsWith('.gz')) return data.length > 0;
  try {
    await gunzipAsync(data);
    return true;
  } catch {
    await fs.rm(file, { force: true });
    return false;
  }
}

/** Delete temp files that interrupted runs left in `dir` (once per directory and run). */
export async function removeStalePartials(dir: string): Promise<number> {
  let names: string[];
  let removed = 0;
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  // Only partials of dead runs: a live concurrent run's temp file carries its pid.
  for (const n of names) {
    const at = n.indexOf(PARTIAL);
    if (at < 0) continue;
    const pid = Number(n.slice(at + PARTIAL.length).split('-')[0]);
    if (isAlive(pid)) continue;
    await fs.rm(path.join(dir, n), { force: true });
    removed++;
  }
  return removed;
}

/** A zip archive ends with its central directory record (PK\x05\x06, 22 bytes + a comment). */
function hasZipDirectory(data: Buffer): boolean {
  if (data.length < 22) return false;
  const at = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]), data.length - 22);
  return at >= 0 && at >= data.length - 22 - 0xffff;
}
