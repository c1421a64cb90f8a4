import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runStepAlone } from '../../etl/run-step.js';
import type { EtlStep, StepResult } from '../../etl/step.js';
import { SHARED_CENSUS } from './paths.js';

/**
 * Run one ETL step on its own into a fresh temporary build directory (no orchestrator, no
 * checksums), for tests of a single step. Returns the build directory and the step's result.
 */
export async function runStepIsolated(
  step: EtlStep,
  opts: { sourceDir?: string; outDir?: string } = {},
): Promise<{ outDir: string; result: StepResult }> {
  const outDir = opts.outDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), `step-${step.name}-`)));
  return { outDir, result: await runStepAlone(step, opts.sourceDir ?? SHARED_CENSUS, outDir) };
}
