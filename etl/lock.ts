// One build at a time per data directory: concurrent builds (two test workers, a server
// auto-build and a manual run) would race on the symlink swap and prune each other's builds.
//
// The lock file appears with its owner's pid already in it: the pid is written to a file of the
// process's own, which is then hard-linked to the lock's name (link(2) fails if the name exists, as
// an exclusive create does). Created empty and written after, a lock whose writer was killed in
// between held the pid of no one: every later build waited out its timeout (15 minutes), then failed.
import fs from 'node:fs/promises';
import path from 'node:path';
import { isAlive } from './process.js';

/** A lock file with no readable owner (left by a version that wrote the pid after creating it) is stale after this. */
const OWNERLESS_STALE_MS = 10_000;
const OWN_PREFIX = '.build.lock.';

/** Take the lock once; false when another live process holds it. */
async function tryLock(dataDir: string, lock: string): Promise<{ taken: true } | { taken: false; owner: number | undefined }> {
  const own = path.join(dataDir, `${OWN_PREFIX}${process.pid}`);
  await fs.writeFile(own, String(process.pid));
  try {
    await fs.link(own, lock);
    return { taken: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await fs.rm(own, { force: true });
  }
  const text = await fs.readFile(lock, 'utf8').catch(() => undefined);
  if (text === undefined) return { taken: false, owner: undefined }; // released meanwhile: try again
  const owner = Number(text);
  const known = Number.isInteger(owner) && owner > 0;
  // A lock left by a killed process must not block forever.
  const ownerless = !known && Date.now() - (await fs.stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs > OWNERLESS_STALE_MS;
  if ((known && !isAlive(owner)) || ownerless) await fs.rm(lock, { force: true });
  return { taken: false, owner };
}

/** The per-process files of killed runs (a kill between writing one and removing it). */
async function removeStaleOwnFiles(dataDir: string): Promise<void> {
  for (const e of await fs.readdir(dataDir).catch(() => [] as string[])) {
    if (!e.startsWith(OWN_PREFIX)) continue;
    const pid = Number(e.slice(OWN_PREFIX.length));
    if (pid !== process.pid && !isAlive(pid)) await fs.rm(path.join(dataDir, e), { force: true });
  }
}

export async function withBuildLock<T>(dataDir: string, fn: () => Promise<T>, timeoutMs = 15 * 60_000): Promise<T> {
  await fs.mkdir(dataDir, { recursive: true });
  await removeStaleOwnFiles(dataDir);
  const lock = path.join(dataDir, '.build.lock');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await tryLock(dataDir, lock);
    if (r.taken) break;
    if (Date.now() > deadline) throw new Error(`another build holds ${lock} (pid ${r.owner})`);
    if (r.owner === undefined) continue;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
