// The web build as several processes meet it: `npm start` twice from one checkout, or parallel
// browser test files, each building dist/web at the same moment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../web/build.js';

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-web-build-'));
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

function snapshot(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const app of ['dashboard', 'explore'])
    for (const f of fs.readdirSync(path.join(outDir, app))) files[`${app}/${f}`] = fs.readFileSync(path.join(outDir, app, f), 'utf8');
  return files;
}

describe('web build', () => {
  it('three builds at once all succeed and leave whole files and no work directories', async () => {
    const results = await Promise.allSettled([1, 2, 3].map(() => buildWeb(outDir, { force: true })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const files = snapshot();
    expect(Object.keys(files).sort()).toEqual(
      [
        'dashboard/dashboard.css',
        'dashboard/dashboard.js',
        'dashboard/index.html',
        'explore/explore.css',
        'explore/explore.js',
        'explore/index.html',
      ].sort(),
    );
    expect(files['explore/explore.js']!.length).toBeGreaterThan(1_000);
    expect(fs.readdirSync(outDir).filter((f) => f.startsWith('.build-'))).toEqual([]);
  }, 120_000);

  it('is skipped when nothing under web/ changed, and rebuilds when an output is missing', async () => {
    const js = path.join(outDir, 'explore', 'explore.js');
    const before = fs.statSync(js).mtimeMs;
    await buildWeb(outDir);
    expect(fs.statSync(js).mtimeMs).toBe(before);
    fs.rmSync(js);
    await buildWeb(outDir);
    expect(fs.existsSync(js)).toBe(true);
  }, 120_000);
});
