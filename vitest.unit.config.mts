import { defineConfig } from 'vitest/config';

/**
 * The stack-free unit tests (test/unit): no globalSetup, so no Temporal dev server and no
 * PostgreSQL. `npm run test:mutation` runs them under Stryker; `npm test` runs them too.
 */
export default defineConfig({
  test: {
    // test/merkle.test.ts needs no stack either (the audit trail's Merkle tree, RFC 9162 vectors).
    include: ['test/unit/**/*.test.ts', 'test/merkle.test.ts'],
    // A test file that fails to load counts as a failed test (for Stryker; see the reporter).
    reporters: ['default', './test/unit/support/loadFailureReporter.ts'],
  },
});
