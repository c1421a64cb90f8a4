// `npm run test:slow`: tests of a whole build that take longer than the suite's budget per file
// allows (a minute or more): not part of `npm test`. Same set-up as the suite (the test-data build
// they start from).
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    globalSetup: ['test/support/test-data-global-setup.ts'],
  },
});
