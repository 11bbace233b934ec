// ESLint flat config: recommended rules, strict typing habits and Runplane's module boundaries
// (generated from project tags by tools/lint/boundaries.mjs).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { boundaryConfigs } from './tools/lint/boundaries.mjs';
import runplane from './tools/lint/plugin.mjs';

const workspaceRoot = import.meta.dirname;

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      'tmp/**',
      '.nx/**',
      'libs/db/src/generated/**',
      // A standalone engine executable, not project TypeScript.
      'tools/prisma-schema-engine/**',
      '**/*.js',
      '**/*.cjs',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    plugins: { runplane },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
    },
  },
  {
    files: ['**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly', console: 'readonly' } },
  },
  ...boundaryConfigs(workspaceRoot),
);
