// Unit and contract tests run from TypeScript through SWC; end-to-end tests start the built processes (npm test builds first).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' } }];
const moduleNameMapper = {
  '^@svc/(contracts|domain|infrastructure|application)$': '<rootDir>/libs/$1/src',
  '^@svc/(contracts|domain|infrastructure|application)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
const common = { transform: { '^.+\\.ts$': swc }, moduleNameMapper, testEnvironment: 'node' };
module.exports = {
  projects: [
    // test/*.spec.ts: static checks of the repository itself (test/layout.spec.ts), no build needed.
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.ts'] },
    { ...common, displayName: 'contracts', testMatch: ['<rootDir>/test/contracts/**/*.spec.ts'] },
  ],
};
