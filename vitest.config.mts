import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The local cluster's pure tests sit beside it (tools/local-cluster); test/cluster is `npm run test:cluster`.
    include: ['test/**/*.test.ts', 'tools/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/cluster/**', 'test/contract/**'],
    globalSetup: ['test/globalSetup.ts'],
    // Temporal workers use a native runtime: one forked process per file, never worker threads.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
