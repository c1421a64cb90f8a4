// `npm run test:resume`: `etl build --online` killed at random points and run again (test/resume):
// a dozen builds of the test data plus a selection, minutes on 2 cores, so not part of `npm test`.
// The test data build first (it is the live build the selection adds to).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/resume/**/*.test.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 1_200_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/test-data-global-setup.ts'],
  },
});
