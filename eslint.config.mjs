// @ts-check
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O libraries, no
// database models or repositories. Activities may be imported for their types only.
const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);
const workflowBans = {
  paths: [
    ...nodeBuiltins.map((name) => ({ name, message: 'Workflows are deterministic: do I/O in an activity.' })),
    ...['mongoose', 'mongodb', 'minio', 'openai', 'stripe', 'koa', '@koa/router', 'pino', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'].map(
      (name) => ({ name, message: 'Workflows must not use I/O libraries: call an activity.', allowTypeImports: true }),
    ),
  ],
  patterns: [
    { group: ['**/*.model', '**/*.repo', '**/infra/*', '**/config'], message: 'Workflows must not touch the database, storage or config: call an activity.', allowTypeImports: true },
    { group: ['**/activities/*', '**/operations/**', '**/api/**', '**/workers/**'], message: "Workflows import pure rules and their own contracts: declare the activities a workflow calls in workflows/<domain>/activities.ts (the worker's factory implements it)." },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'web/dist/**', 'clients/dist/**', 'clients/src/generated/**', 'coverage/**', '.data/**', 'reports/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
    },
  },
  {
    // The dashboard's service worker (plain JavaScript, served as written): a worker's globals.
    files: ['web/public/sw.js'],
    languageOptions: { globals: { ...globals.serviceworker }, sourceType: 'script' },
  },
  {
    // Type-aware rules: a promise nobody awaits loses its error (an unhandled rejection) and its
    // order (a workflow step that runs whenever). Mark the deliberate ones with `void`.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', workflowBans],
    },
  },
  {
    // models/ is the bottom layer (rules, models, repositories, infra clients): it imports nothing
    // above it, so workflows, operations, routes and activities can all depend on it.
    files: ['models/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/api/**', '**/workflows/**', '**/operations/**', '**/activities/**', '**/workers/**', '../../ops/**', '../../../ops/**'], message: 'models/ is the bottom layer: move the code that needs this up (operations/, api/, activities/, ops/).' }] },
      ],
    },
  },
  {
    // operations/<domain>/: the use cases (ARCHITECTURE.md). They sit above the domain and start,
    // signal and query workflows (their functions and message definitions, workflows/ids), and are
    // called by routes, the CLI, activities and relays.
    files: ['operations/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/api/**', '**/activities/**', '**/workers/**', '../../ops/**', '../../../ops/**'], message: 'Operations are called by api/, ops/ and activities/, never the other way round.' }] },
      ],
    },
  },
  {
    // The API starts, signals and queries workflows through operations; activities run on workers.
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/activities/**', '**/workers/**', '../../ops/**', '../../../ops/**'], message: 'Routes call operations (operations/<domain>); activities belong to workers.' }] },
      ],
    },
  },
  {
    // The CLI, seeding and process scripts call operations, not routes. Benchmarks, like tests,
    // assemble the app in-process to measure it, so ops/bench/ may; ops/openapi/ writes the
    // services' OpenAPI documents from their definitions, so it reads api/ too.
    files: ['ops/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/api/**'], message: 'ops/ calls operations (operations/<domain>), not the API layer.' }] },
      ],
    },
  },
  {
    // The dashboard's page runs in the browser: browser globals, and it may import only pure
    // rules and data from models/ (Vite bundles them), never the server's layers.
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser }, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        // The top-level ops/ (not models/ops/, whose rules the page may use).
        { patterns: [{ group: ['**/api/**', '**/activities/**', '**/workers/**', '**/workflows/**', '../ops/**', '../../ops/**', '../../../ops/**', '../../../../ops/**', '**/*.repo', '**/*.model', '**/infra/**', '**/operations/**', '**/config'], message: 'The page imports only pure rules and data (models/**/*.rules.ts); it talks to the server over HTTP.' }] },
      ],
    },
  },
  {
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
