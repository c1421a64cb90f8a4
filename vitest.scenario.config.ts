import { defineConfig } from 'vitest/config';

// The judging scenarios that build from the census.gov stand-in through the CLI and then serve
// (minutes each): `npm run test:scenario`, not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/scenario/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 900_000,
    pool: 'forks',
    globalSetup: ['test/support/test-data-global-setup.ts'],
  },
});
