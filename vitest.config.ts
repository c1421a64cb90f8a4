import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The container test builds and runs the image under podman (minutes): `npm run test:container`;
    // the kill-and-resume test of `etl build --online` runs a dozen builds: `npm run test:resume`;
    // test/slow: whole builds of a minute or more (`npm run test:slow`).
    exclude: [...configDefaults.exclude, 'test/container/**', 'test/resume/**', 'test/slow/**'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // The test data build first (minutes on a fresh clone, seconds after), then PostgreSQL for the
    // accounts-store tests that run against both implementations.
    globalSetup: ['test/support/test-data-global-setup.ts', 'test/support/postgres-global-setup.ts'],
  },
});
