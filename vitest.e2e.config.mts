import { defineConfig } from 'vitest/config';

/** Browser tests against the Temporal UI of a real dev server: `npm run test:e2e` (needs /usr/bin/chromium, see scripts/install-browser.sh). */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/globalSetup.ts'],
    // Temporal workers use a native runtime: one forked process per file, never worker threads.
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
