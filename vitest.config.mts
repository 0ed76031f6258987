import path from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The test projects, one per command (package.json):
 * - `unit` (`npm run test:unit`): stack-free, no globalSetup: no Temporal dev server, no PostgreSQL.
 *   `npm run test:mutation` runs it under Stryker.
 * - `stack` (with `unit`, `npm test`): against one real Temporal dev server and real PostgreSQL
 *   (test/globalSetup.ts).
 * - `e2e`: one real dev server with its UI for two suites, booted once when both run (`vitest run
 *   --project e2e`, as .ci/run does): `npm run test:contract` (test/contract: the API's answers checked
 *   against its OpenAPI document by Stoplight Prism's validating proxy) and `npm run test:e2e`
 *   (test/e2e: the Temporal UI in Chromium, scripts/install-browser.sh).
 * - `neighbours` (`npm run test:neighbours`): a quiet account beside a noisy one on a stack of its own
 *   (scripts/bench/neighbours.ts), the one latency bound of the suite, run alone.
 * - `cluster` (`npm run test:cluster`): docker-compose.yml's topology run by `npm run stack:cluster`
 *   (a Temporal server on PostgreSQL, its UI server, two APIs, two workers), driven from outside as an
 *   operator and a client would. Needs Chromium; stack:cluster installs the Temporal binaries itself
 *   (tools/local-cluster/temporal-binaries.sh).
 */
/** The client package by its name, from its source, as tsconfig.json's `paths` gives it to tsc and tsx. */
const alias = { 'payment-custody-client': path.join(__dirname, 'packages/client/src/index.ts') };

const unit: TestProjectInlineConfiguration = {
  test: {
    alias,
    name: 'unit',
    // The local cluster's pure tests sit beside it (tools/local-cluster).
    include: ['test/unit/**/*.test.ts', 'tools/**/*.test.ts'],
    // As the stack project's: `npm test` runs both in one pool, which vitest allows only with one maxWorkers.
    maxWorkers: 2,
    // A hang guard, not a speed bound: the property tests run for seconds under Stryker's instrumentation on a busy machine.
    testTimeout: 30_000,
  },
};

/**
 * The Temporal SDK `require`s the payload converter by path (src/platform/worker/dataConverter.ts): in the
 * forked test processes Node loads it through tsx, as `npm start` does.
 */
const execArgv = ['--import', 'tsx'];

// Temporal workers use a native runtime: one forked process per file, never worker threads.
const stack: TestProjectInlineConfiguration = {
  test: {
    alias,
    name: 'stack',
    include: ['test/**/*.test.ts'],
    exclude: ['test/unit/**', 'test/e2e/**', 'test/cluster/**', 'test/contract/**', 'test/neighbours/**'],
    globalSetup: ['test/globalSetup.ts'],
    pool: 'forks',
    execArgv,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
};

const e2e: TestProjectInlineConfiguration = {
  test: {
    alias,
    name: 'e2e',
    include: ['test/e2e/**/*.test.ts', 'test/contract/**/*.test.ts'],
    globalSetup: ['test/e2e/globalSetup.ts'],
    pool: 'forks',
    execArgv,
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
};

/** One test with a stack of its own under a bounded flood (test/neighbours): alone on the machine, as its bound is one of latency. */
const neighbours: TestProjectInlineConfiguration = {
  test: {
    alias,
    name: 'neighbours',
    include: ['test/neighbours/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    pool: 'forks',
    execArgv,
    maxWorkers: 1,
    testTimeout: 400_000,
    hookTimeout: 180_000,
  },
};

const cluster: TestProjectInlineConfiguration = {
  test: {
    alias,
    name: 'cluster',
    include: ['test/cluster/**/*.test.ts'],
    // One stack, one file, tests in order (each builds on the payments of the one before).
    pool: 'forks',
    execArgv,
    maxWorkers: 1,
    sequence: { concurrent: false },
    testTimeout: 180_000,
    hookTimeout: 400_000,
  },
};

/**
 * Under CI (.ci/run) each vitest run also writes a JUnit report, one file per CI step, so the slowest files
 * and tests are known (scripts/ci-slowest.ts; docs/testing.md, "How long CI takes"). Not under Stryker.
 */
const junit =
  process.env.CI === 'true' && process.env.STRYKER_MUTATOR_WORKER === undefined
    ? [['junit', { outputFile: `test-output/junit/${process.env.CI_STEP ?? 'vitest'}.xml` }] as const]
    : [];

export default defineConfig({
  test: {
    // Stryker's vitest runner takes no --project option; its workers (STRYKER_MUTATOR_WORKER set) see the unit project alone.
    projects: process.env.STRYKER_MUTATOR_WORKER === undefined ? [unit, stack, e2e, neighbours, cluster] : [unit],
    // A test file that fails to load counts as a failed test (for Stryker; see the reporter).
    reporters: ['default', './test/unit/support/loadFailureReporter.ts', ...junit],
  },
});
