// Mutation testing of the pure rules (src/**/*.rules.ts) and the views (*.view.ts) against the stack-free unit tests: `npm run test:mutation`.
// See docs/testing.md for how to read a surviving mutant and the equivalent mutants accepted.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/**/*.rules.ts', 'src/**/*.view.ts'],
  testRunner: 'vitest',
  // vitest.config.mts gives Stryker's workers its `unit` project alone.
  vitest: { configFile: 'vitest.config.mts' },
  coverageAnalysis: 'perTest',
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // Two cores shared with the rest of the machine.
  concurrency: 2,
  // What the sandbox copy does not need (the Temporal CLI binary alone is 250 MB).
  ignorePatterns: ['.cache', '.data', 'test-output', 'dist', 'reports'],
  tempDirName: '.stryker-tmp',
  // Incremental: the last full run's results are committed in test/mutation/incremental.json, and a run
  // re-tests only the mutants whose code or covering tests changed since; the score (and its break) is
  // over every mutant, reused or re-tested. `npm run test:mutation:full` re-tests them all and rewrites
  // the file (docs/testing.md, "Mutation testing, incremental").
  incremental: true,
  incrementalFile: 'test/mutation/incremental.json',
};
