// Strict, type-aware linting (typescript-eslint's strictTypeChecked). `npm run lint`; CI runs it.
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Plain helpers of a room (no kind suffix): what src/platform/lib holds, kept beside their concept. */
const ROOM_HELPERS = JSON.parse(readFileSync(new URL('./tools/room-helpers.json', import.meta.url), 'utf8')).helpers;

/**
 * The import directions of docs/architecture.md ("Rooms, and the direction of imports"): rooms are
 * concepts (src/payments, src/ledger, …), and inside every room a file's kind is its suffix
 * (`.rules`, `.routes`, …). For each kind, the kinds it must never import (type imports included),
 * told by the import's own path.
 */
function importDirections() {
  const message =
    'docs/architecture.md: imports run one way (entry points → stack → http/worker → services/activities → workflows/repositories → rules)';
  const kind = {
    http: '\\.(routes|schemas|middleware)$|(^|/)http/',
    service: '\\.service$|(^|/)services$',
    worker: '(^|/)worker/',
    activities: '\\.activities$|(^|/)(activities|activityResources)$',
    workflow: '\\.(workflow|messages)$',
    repository: '\\.repository$|(^|/)database/',
    format: '\\.format$',
    rules: '\\.rules$',
    lib: '(^|/)lib/|(^|/)config$',
    entry: '(^|/)(main|stack|demo|localSecrets)$|(^|/)bin/',
  };
  const never = (...kinds) => ({ regex: `^\\.\\.?/.*(${kinds.map((k) => kind[k]).join('|')})`, message });
  const only = (allowed, why) => ({ regex: `^\\.\\.?/(?!(.*/)?(${allowed}))`, message: `docs/architecture.md: ${why}` });
  const packages = (...names) =>
    names.map((name) => ({ regex: `^${name}(/|$)`, message: 'docs/architecture.md: not in this kind of file' }));
  const io = ['@temporalio/client', '@temporalio/worker', 'knex', 'pg', 'node:fs', 'node:http'];
  const rule = (files, ...patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });
  const helpers = [...ROOM_HELPERS, 'src/platform/lib/**'];
  return [
    rule(
      ['src/**/*.routes.ts', 'src/**/*.schemas.ts', 'src/**/*.middleware.ts', 'src/platform/http/**'],
      never('repository', 'workflow', 'activities', 'worker', 'entry'),
      ...packages('@temporalio/client', '@temporalio/worker', 'knex', 'pg'),
    ),
    rule(['src/platform/worker/**'], never('http', 'service', 'entry')),
    rule(['src/**/*.service.ts', 'src/platform/services.ts'], never('http', 'worker', 'activities', 'entry')),
    rule(['src/**/*.activities.ts', 'src/platform/activities.ts'], never('http', 'service', 'worker', 'workflow', 'entry')),
    rule(
      ['src/**/*.workflow.ts', 'src/**/*.messages.ts'],
      // Workflow code runs in Temporal's sandbox: the pure rules, other workflow code, the activities'
      // types, views, and of the webhook helpers the retry schedule (pure functions) only.
      only(
        '[^/]*\\.(rules|workflow|messages|view|activities)$|(activities|retrySchedule)$',
        'workflow code imports rules, workflow code, views and activity types only',
      ),
      ...packages('@temporalio/client', 'knex', 'pg'),
    ),
    rule(['src/**/*.repository.ts', 'src/platform/database/**'], never('http', 'service', 'worker', 'workflow', 'activities', 'entry')),
    // The bank's file formats (ISO 20022 XML) read the pure rules and nothing with I/O.
    rule(['src/**/*.format.ts'], only('[^/]*\\.(rules|format)$', 'a bank file format imports rules and formats only'), ...packages(...io)),
    rule(helpers, never('http', 'service', 'worker', 'workflow', 'activities', 'repository', 'rules', 'entry')),
    rule(['src/**/*.view.ts'], only('[^/]*\\.(rules|format|view)$', 'a view imports rules, formats and views only'), ...packages(...io)),
    // The pure rules import nothing of ours but rules, and no I/O.
    rule(['src/**/*.rules.ts'], only('[^/]*\\.rules$', 'rules import nothing of ours but rules'), ...packages(...io)),
    rule(['src/platform/config.ts'], {
      regex: '^\\./(?!lib/)',
      message: 'docs/architecture.md: src/platform/config.ts imports only src/platform/lib',
    }),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      '.cache',
      '.data',
      'test-output',
      'reports',
      '.stryker-tmp',
      'migrations',
      '*.config.mjs',
      '*.config.mts',
      'packages/client/src/schema.ts',
      'packages/client/build.mjs',
      'packages/client/dist',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Numbers and booleans read well in messages.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // knex rows and parsed JSON bodies are `any` until every repository is typed (a follow-up):
      // the zod schemas at the edge and the row mappers are where their shape is checked today.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // `ctx.state.principal!` after the authentication middleware set it; `() => void x()` shorthands.
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // Regexes that refuse control characters must name them.
      'no-control-regex': 'off',
      // knex's query builders are thenable, so builder callbacks look like promises to this rule.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }],
    },
  },
  ...importDirections(),
  {
    files: ['test/**', 'scripts/**', 'tools/**', 'examples/**', 'packages/**'],
    rules: {
      // Tests read JSON answers of any shape; helpers keep the HTTP client's body `any`.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
      '@typescript-eslint/restrict-plus-operands': 'off',
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      '@typescript-eslint/no-deprecated': 'off',
    },
  },
);
