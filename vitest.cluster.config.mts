import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster`: docker-compose.yml's topology run by `npm run stack:cluster` (a Temporal server on
 * PostgreSQL, its UI server, two APIs, two workers), driven from outside as an operator and a client would.
 * Needs /usr/bin/chromium (scripts/install-browser.sh); stack:cluster installs the Temporal binaries itself
 * (tools/local-cluster/temporal-binaries.sh: from the machine-wide cache, else built with Go).
 */
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    // One stack, one file, tests in order (each builds on the payments of the one before).
    pool: 'forks',
    maxWorkers: 1,
    sequence: { concurrent: false },
    testTimeout: 180_000,
    hookTimeout: 400_000,
  },
});
