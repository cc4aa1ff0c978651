// Lint: typescript-eslint's recommended rules, plus the rule that keeps workflows deterministic.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**', 'test/histories/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', module: 'writable', require: 'readonly', __dirname: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Workflows run in Temporal's deterministic sandbox: only types may come from I/O modules.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['pg', 'viem', 'viem/*', 'decimal.js', '@solana/*', 'koa', 'node:*', 'fs', 'path', 'crypto', '../activities/*', '../db/*', '../api/*'], allowTypeImports: true, message: 'Workflows are deterministic: import only types from I/O modules.' },
        ],
      }],
    },
  },
);
