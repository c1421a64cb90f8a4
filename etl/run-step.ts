// Run one ETL step on its own into a directory (no orchestrator, no checksums, nothing reused):
// for tests of a single step and for the ETL benchmark.
import { createStepLogger } from './log.js';
import type { EtlStep, StepResult } from './step.js';

export function runStepAlone(step: EtlStep, sourceDir: string, outDir: string): Promise<StepResult> {
  return step.run({
    sourceDir,
    outDir,
    previousDir: undefined,
    previousInputs: {},
    previousRows: {},
    inputs: {},
    log: createStepLogger({ quiet: true }),
    synthetic: false,
  });
}
