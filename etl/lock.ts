// One build at a time per data directory: concurrent builds (two test workers, a server
// auto-build and a manual run) would race on the symlink swap and prune each other's builds.
import fs from 'node:fs/promises';
import path from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function withBuildLock<T>(dataDir: string, fn: () => Promise<T>, timeoutMs = 15 * 60_000): Promise<T> {
  await fs.mkdir(dataDir, { recursive: true });
  const lock = path.join(dataDir, '.build.lock');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const h = await fs.open(lock, 'wx');
      await h.writeFile(String(process.pid));
      await h.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(await fs.readFile(lock, 'utf8').catch(() => 'NaN'));
      // A lock left by a killed process must not block forever.
      if (Number.isFinite(owner) && owner > 0 && !alive(owner)) {
        await fs.rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another build holds ${lock} (pid ${owner})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
