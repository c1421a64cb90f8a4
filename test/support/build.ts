import path from 'node:path';
import { build } from '../../etl/build.js';
import { REPO_ROOT, SHARED_CENSUS } from './paths.js';

/** Data directory shared by the test suite (build output, git-ignored). */
export const TEST_DATA_DIR = path.join(REPO_ROOT, '.cache', 'test-data');

let pending: Promise<string> | undefined;

/**
 * The live test build over ../shared/census, built on first use by any test file. Incremental
 * and locked, so many workers asking at once build it once and later runs only checksum inputs.
 */
export function testBuildDir(): Promise<string> {
  pending ??= build({ sourceDir: SHARED_CENSUS, dataDir: TEST_DATA_DIR, quiet: true }).then((s) => s.buildDir);
  return pending;
}
