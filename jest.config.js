// Unit and contract tests run from TypeScript through SWC; end-to-end tests start the built processes (npm test builds first).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' } }];
const moduleNameMapper = {
  '^@svc/(contracts|domain|infrastructure|application)$': '<rootDir>/libs/$1/src',
  '^@svc/(contracts|domain|infrastructure|application)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
// ESM-only packages (Octokit and its helpers) are compiled to CommonJS for jest, as Node 20.19+ loads them with require() itself.
const esmOnly = ['@octokit', 'universal-user-agent', 'before-after-hook', 'json-with-bigint', 'fast-content-type-parse', 'content-type'];
const swcJs = ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' } }];
const common = {
  transform: { '^.+\\.ts$': swc, '^.+\\.js$': swcJs },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleNameMapper,
  testEnvironment: 'node',
};
module.exports = {
  // Unit specs that hash with scrypt or spawn a process need more than jest's 5 s on a busy 2-core machine.
  testTimeout: 20_000,
  projects: [
    // test/*.spec.ts: static checks of the repository itself (test/layout.spec.ts), no build needed.
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.ts'] },
    { ...common, displayName: 'contracts', testMatch: ['<rootDir>/test/contracts/**/*.spec.ts'] },
  ],
};
