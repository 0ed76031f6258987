// Strict, type-aware linting (typescript-eslint's strictTypeChecked). `npm run lint`; CI runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The import directions of docs/architecture.md ("Rooms and the direction of imports"): for each
 * room, the rooms and packages it must never import (type imports included).
 */
function importDirections() {
  const room = (...names) => ({
    regex: `^(\\.\\./)+(${names.join('|')})(/|$)`,
    message: 'docs/architecture.md: imports run one way (entry points → stack → api/worker → services/activities → workflows/db → domain)',
  });
  const packages = (...names) => names.map((name) => ({ regex: `^${name}(/|$)`, message: 'docs/architecture.md: not in this room' }));
  const rule = (files, ...patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });
  const entry = ['stack', 'main', 'bin'];
  return [
    rule(
      ['src/api/**'],
      room('db', 'workflows', 'activities', 'worker', ...entry),
      ...packages('@temporalio/client', '@temporalio/worker', 'knex', 'pg'),
    ),
    rule(['src/worker/**'], room('api', 'services', ...entry)),
    rule(['src/services/**'], room('api', 'worker', 'activities', ...entry)),
    rule(['src/activities/**'], room('api', 'services', 'worker', 'workflows', ...entry)),
    rule(
      ['src/workflows/**'],
      room('api', 'services', 'worker', 'db', 'lib', 'config', 'bankFiles', ...entry),
      // Of src/webhookRules, only the retry schedule (pure functions) may be imported into workflow code.
      {
        regex: '^(\\.\\./)+webhookRules/(?!retryPolicy$)',
        message: 'docs/architecture.md: workflows import src/webhookRules/retryPolicy only',
      },
      ...packages('@temporalio/client', 'knex', 'pg'),
    ),
    rule(['src/db/**'], room('api', 'services', 'worker', 'workflows', 'activities', ...entry)),
    // The bank's file formats (ISO 20022 XML) read the pure rules and nothing with I/O.
    rule(
      ['src/bankFiles/**'],
      room('api', 'services', 'worker', 'workflows', 'activities', 'db', ...entry),
      ...packages('@temporalio/client', '@temporalio/worker', 'knex', 'pg', 'node:fs', 'node:http'),
    ),
    rule(['src/webhookRules/**', 'src/lib/**'], room('api', 'services', 'worker', 'workflows', 'activities', 'db', 'domain', ...entry)),
    // The pure rules import nothing of ours outside src/domain, and no I/O.
    rule(
      ['src/domain/**'],
      { regex: '^\\.\\./', message: 'docs/architecture.md: src/domain imports nothing of ours' },
      ...packages('@temporalio/client', '@temporalio/worker', 'knex', 'pg', 'node:fs', 'node:http'),
    ),
    rule(['src/config.ts'], { regex: '^\\./(?!lib/)', message: 'docs/architecture.md: src/config.ts imports only src/lib' }),
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
