// The `boundaries` ETL step alone, as its own process, for bench:national-shapes (run under
// /usr/bin/time -v there for its peak RSS):
//   tsx bench/lib/boundaries-step.ts <repo root> <source dir> <out dir>
// The repo root is the checkout whose step runs (another checkout measures a former version).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EtlStep } from '../../etl/step.js';

const [root, sourceDir, outDir] = process.argv.slice(2);
if (!root || !sourceDir || !outDir) throw new Error('usage: boundaries-step.ts <repo root> <source dir> <out dir>');
const mod = (await import(pathToFileURL(path.join(path.resolve(root), 'etl/steps/boundaries.ts')).href)) as { boundariesStep: EtlStep };
const noop = () => {};
const t0 = Date.now();
const result = await mod.boundariesStep.run({
  sourceDir,
  outDir,
  previousDir: undefined,
  previousInputs: {},
  previousRows: {},
  inputs: {},
  log: { info: (m) => console.log(m), warn: (m) => console.log(m), progress: () => ({ increment: noop, stop: noop }) },
  synthetic: false,
});
console.log(`step seconds: ${((Date.now() - t0) / 1000).toFixed(1)}`);
console.log(`step rows: ${JSON.stringify(result.rows)}`);
