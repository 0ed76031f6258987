// Strict, type-aware linting (typescript-eslint's strictTypeChecked). `npm run lint`; CI runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  {
    files: ['test/**', 'scripts/**', 'examples/**'],
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
