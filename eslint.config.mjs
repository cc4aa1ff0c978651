// Lint: typescript-eslint's recommended rules, plus the rule that keeps workflows deterministic.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'client/dist/**', '.data*/**', 'coverage/**', 'test/histories/**'] },
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
    // Workflows run in Temporal's deterministic sandbox. Values may come only from an allow-list: the workflow SDK,
    // the Temporal contract (temporal/messages, workflow-ids, task-queues, long-lived), other workflow modules, and pure domain
    // modules with no I/O and no decimal.js. Anything else (activities, pg, viem, node:*, services) only as a type.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          {
            regex: '^(?!@temporalio/workflow$|\\.\\./temporal/(messages|workflow-ids|task-queues|long-lived)$|\\./[\\w-]+$|\\.\\./domain/(calendar|market-status|attestation-state|error-codes)(/[\\w-]+)?$)',
            allowTypeImports: true,
            message: 'Workflows are deterministic: values only from @temporalio/workflow, temporal/ contract modules, workflows/ and pure domain/ modules; import anything else with `import type`.',
          },
        ],
      }],
    },
  },
);
