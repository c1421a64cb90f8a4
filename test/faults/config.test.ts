// Config that fails fast: an unusable path setting stops the server and the admin CLI within
// seconds, with exit code 2 and a message naming the setting.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/paths.js';
import { spawnServer, tempDir } from './support.js';

async function exitsWithin(s: ReturnType<typeof spawnServer>, ms: number) {
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms));
  const out = await Promise.race([s.exited, timer]);
  if (out === 'timeout') s.child.kill('SIGKILL');
  return out;
}

describe('config that fails fast (issue 12)', () => {
  it('DATABASE_PATH under /proc: the server exits 2 naming it within seconds (was: spun at ~28% CPU forever, ignoring SIGTERM)', async () => {
    const started = Date.now();
    const s = spawnServer({ DATA_DIR: tempDir(), DATABASE_PATH: '/proc/cds-nope/accounts.sqlite' });
    const out = await exitsWithin(s, 15_000);
    expect(out).toEqual({ code: 2, signal: null });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(s.output()).toContain('DATABASE_PATH');
  }, 30_000);

  it('DATABASE_PATH that is a directory, or whose parent is a file: exit 2 naming it', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    for (const bad of [dir, path.join(dir, 'file', 'accounts.sqlite')]) {
      const s = spawnServer({ DATA_DIR: tempDir(), DATABASE_PATH: bad });
      expect(await exitsWithin(s, 15_000)).toEqual({ code: 2, signal: null });
      expect(s.output()).toContain('DATABASE_PATH');
    }
  }, 40_000);

  it('DATA_DIR under /proc with AUTO_BUILD_DATA: exit 2 naming it (was: the first-start build spun in mkdir)', async () => {
    const s = spawnServer({ DATA_DIR: '/proc/cds-nope/data', AUTO_BUILD_DATA: 'true', DATABASE_PATH: path.join(tempDir(), 'a.sqlite') });
    expect(await exitsWithin(s, 15_000)).toEqual({ code: 2, signal: null });
    expect(s.output()).toContain('DATA_DIR');
  }, 30_000);

  it('DATA_DIR that is a file: exit 2 naming it', async () => {
    const file = path.join(tempDir(), 'data');
    fs.writeFileSync(file, 'x');
    const s = spawnServer({ DATA_DIR: file, DATABASE_PATH: path.join(tempDir(), 'a.sqlite') });
    expect(await exitsWithin(s, 15_000)).toEqual({ code: 2, signal: null });
    expect(s.output()).toContain('DATA_DIR');
  }, 30_000);

  it('admin CLI with DATABASE_PATH under /proc: exit 2 naming it within seconds (was: hung)', () => {
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'src/cli/admin.ts'), 'keys', 'create', '--email', 'x@example.org', '--plan', 'free'],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_PATH: '/proc/cds-nope/accounts.sqlite' },
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('DATABASE_PATH');
    expect(r.stdout).toBe('');
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});
