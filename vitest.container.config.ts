// `npm run test:container`: builds the Dockerfile under podman and runs the image (test/container).
// Minutes and root (podman), so it is not part of `npm test`; no test-data build or PostgreSQL.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    testTimeout: 1_500_000,
    hookTimeout: 1_200_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
