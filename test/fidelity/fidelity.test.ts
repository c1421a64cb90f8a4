// A small fidelity sample inside `npm test`: random published cells from every kind of source file,
// asked by census code over HTTP and compared with the raw file. `npm run check:fidelity` runs the
// large one (every file) and prints counts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../support/service.js';
import { SHARED_CENSUS } from '../support/paths.js';
import { checkCells, expected, listSourceFiles, rng, sampleFile } from './sample.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

describe('expected(): what a published cell must become', () => {
  it.each([
    [
      { e: '75277', m: '317', ea: null, ma: null },
      { estimate: 75277, moe: 317 },
    ],
    [
      { e: '-666666666.0', m: '-222222222', ea: '-', ma: '**' },
      { estimate: null, estimate_code: 'not_computable', moe: null, moe_code: 'moe_not_computable' },
    ],
    [
      { e: '84', m: '0', ea: null, ma: '*****' },
      { estimate: 84, moe: null, moe_code: 'controlled' },
    ],
    [
      { e: '250001', m: '-333333333', ea: '250,000+', ma: '***' },
      { estimate: 250001, moe: null, moe_code: 'moe_open_ended' },
    ],
    [
      { e: null, m: null, ea: null, ma: null },
      { estimate: null, estimate_code: 'not_published' },
    ],
    [
      { e: null, m: null, ea: undefined, ma: undefined },
      { estimate: null, estimate_code: 'missing_in_source' },
    ],
  ])('%j → %j', (raw, want) => {
    expect(expected({ file: 'x', dataset: 'acs1', vintage: 2018, geo: 'state:06', code: 'B19013_001E', ...raw })).toMatchObject(want);
  });
});

describe('a random sample of published cells, asked by census code', () => {
  it('is served exactly: every cell reachable, numbers equal, jam values null with their annotation', async () => {
    const apiDir = path.join(SHARED_CENSUS, 'api');
    const files = listSourceFiles(apiDir);
    const seed = Number(process.env.FIDELITY_SEED ?? 20261123);
    const random = rng(seed);
    // Every metro and county file (few, and each its own shape), plus a spread of state/nation files.
    const chosen = files.filter((f) => /\/(metro|county)\//.test(f) || random() < 0.012);
    const cells = chosen.flatMap((f) => sampleFile(apiDir, f, 4, random));
    const report = await checkCells(
      cells,
      async (url) => {
        const res = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });
        return { status: res.statusCode, body: res.json() };
      },
      chosen.length,
    );
    expect(report.cells, `seed ${seed}`).toBeGreaterThan(1000);
    expect(report.jamLeaks).toBe(0);
    expect(report.mismatches.slice(0, 10), `seed ${seed}: ${report.mismatches.length} of ${report.cells} differ`).toEqual([]);
    expect(report.exact).toBe(report.cells);
  }, 180_000);
});
