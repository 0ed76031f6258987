import { defineConfig } from 'vitest/config';

/** The API's answers checked against its OpenAPI document by Stoplight Prism's validating proxy: `npm run test:contract`. */
export default defineConfig({
  test: {
    include: ['test/contract/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    // Temporal workers use a native runtime: one forked process per file, never worker threads.
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
