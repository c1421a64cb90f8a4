// The build lock (etl/lock.ts) after a SIGKILL: a lock or temp file a killed run left behind never
// blocks the next build, and a live owner's lock still does.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBuildLock } from '../../etl/lock.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'build-lock-'));
});
afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** A pid no process has (above the kernel's pid_max on Linux). */
const DEAD_PID = 4_194_305;

describe('the build lock', () => {
  it('is taken over from a killed owner: its pid is dead', async () => {
    await fs.writeFile(path.join(dir, '.build.lock'), String(DEAD_PID));
    expect(await withBuildLock(dir, async () => 'built', 2_000)).toBe('built');
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it('is taken over when it names no owner and is older than a few seconds (a kill between creating and writing it)', async () => {
    const lock = path.join(dir, '.build.lock');
    await fs.writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(lock, old, old);
    expect(await withBuildLock(dir, async () => 'built', 2_000)).toBe('built');
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it('holds its owner pid from the moment it exists, and removes what killed runs left of their own files', async () => {
    await fs.writeFile(path.join(dir, `.build.lock.${DEAD_PID}`), String(DEAD_PID));
    const seen = await withBuildLock(dir, async () => fs.readFile(path.join(dir, '.build.lock'), 'utf8'), 2_000);
    expect(seen).toBe(String(process.pid));
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it('still waits for a live owner, then says who holds it', async () => {
    await fs.writeFile(path.join(dir, '.build.lock'), String(process.ppid));
    await expect(withBuildLock(dir, async () => 'built', 600)).rejects.toThrow(`(pid ${process.ppid})`);
    await fs.rm(path.join(dir, '.build.lock'));
  });
});
