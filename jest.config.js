// Jest runs TypeScript through SWC (type checking is `npm run typecheck`).
// A few dependencies ship only ES modules; SWC turns them into CommonJS for Jest.
const esmOnly = ['jose', 'file-type', 'strtok3', 'token-types', 'peek-readable', '@tokenizer', 'uint8array-extras', '@borewit', 'css-select', 'css-what', 'domutils', 'dom-serializer', 'domhandler', 'domelementtype', 'boolbase', 'nth-check', 'cssomnom', 'entities', 'email-reply-parser'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // file-type exports only `import`/`module-sync` (Node's require(esm) loads it; Jest's resolver
  // does not): point Jest at its entry, which SWC then turns into CommonJS.
  moduleNameMapper: { '^file-type$': '<rootDir>/node_modules/file-type/index.js' },
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testTimeout: 60_000,
  // Integration suites share one set of dev services. One worker: two suites that each start a
  // whole `npm start` stack (stack, start-signals) in parallel pick ports in two processes that
  // cannot see each other's choices, and a collision kept one stack from coming up (seen once in
  // four CI runs).
  maxWorkers: 1,
};
