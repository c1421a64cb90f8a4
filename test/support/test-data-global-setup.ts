// vitest globalSetup: build the test data once, before any test file starts. On a fresh clone the
// build takes minutes; done here, no test file's beforeAll waits for it under its own hook
// timeout (a slow CI runner timed out a 120 s hook while another file held the build lock).
import { build } from '../../etl/build.js';
import { SHARED_CENSUS } from './paths.js';
import { TEST_DATA_DIR } from './build.js';

export async function setup(): Promise<void> {
  await build({ sourceDir: SHARED_CENSUS, dataDir: TEST_DATA_DIR, quiet: true });
}
