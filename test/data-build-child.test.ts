// The first-start data build runs `etl build` in a child process of the server (src/data-build-child.ts),
// on the server's own Node and loader flags. A source tree that cannot be built: the child's own
// error reaches the server's stderr, the server says the build failed, and it still listens, with
// data endpoints unavailable (the success path, a full build, is what `npm run test:container` runs).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/paths.js';

const tmp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

describe('the first-start data build', () => {
  it('runs the ETL in a child process; its failure leaves a listening server without data', async () => {
    const dataDir = tmp('cds-first-build-');
    const source = path.join(tmp('cds-no-source-'), 'census');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/server.ts')], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: dataDir,
        DATABASE_PATH: path.join(dataDir, 'accounts.sqlite'),
        CENSUS_SOURCE_DIR: source,
        AUTO_BUILD_DATA: 'true',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const end = Date.now() + 60_000;
      while (!/Server listening at (http:\/\/[\d.:]+)/.test(out)) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`no listening line:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // The ETL's own message, printed by the child (the ETL ran, under the server's loader flags).
      expect(out).toContain(`etl: source directory not found: ${source}`);
      expect(out).toMatch(/"err":\{[^}]*"message":"etl build exited with code 1"/);
      expect(out).toContain('data build failed');
      const base = /Server listening at (http:\/\/[\d.:]+)/.exec(out)![1]!;
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'degraded', data: null, database: 'ok' });
      expect(fs.existsSync(path.join(dataDir, 'current'))).toBe(false);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 90_000);
});
