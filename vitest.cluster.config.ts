// `npm run test:cluster`: several server processes, PostgreSQL and S3 on loopback (test/cluster).
// One file, run alone: it owns its servers and measures timing across processes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/test-data-global-setup.ts', 'test/support/postgres-global-setup.ts'],
  },
});
