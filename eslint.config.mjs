// ESLint flat config: recommended rules, strict typing habits, the size budgets and Runplane's module boundaries
// (generated from project tags by tools/lint/boundaries.mjs).
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { defineConfig } from 'eslint/config';
import { importX } from 'eslint-plugin-import-x';
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
  // Budgets: a file of at most 300 lines and a function of at most 40 (code only, blank lines and comments not
  // counted), at most 4 parameters (an options object beyond that), at most 5 injected dependencies (a class
  // constructor's or a Nest provider's useFactory parameters), and no import cycle, within or across projects.
  {
    files: ['**/*.ts', '**/*.mjs'],
    plugins: { runplane, 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${workspaceRoot}/tsconfig.json` })],
    },
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 40, skipBlankLines: true, skipComments: true }],
      'runplane/max-params': ['error', { max: 4, injected: 5 }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // A spec's describe callback spans the whole file, so the function budget would only measure the file again;
    // specs keep the file budget.
    files: ['**/*.spec.ts', '**/*.test.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  ...boundaryConfigs(workspaceRoot),
);
