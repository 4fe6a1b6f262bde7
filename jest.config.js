// Unit and contract tests run from TypeScript through SWC; end-to-end tests start the built processes (npm test builds first).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' } }];
const moduleNameMapper = {
  '^@svc/(contracts|domain|infrastructure|application)$': '<rootDir>/libs/$1/src',
  '^@svc/(contracts|domain|infrastructure|application)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
// Packages published as ES modules only. Node 20.19+/22.12+ require() them natively, but Jest's own
// module loader does so only on Node 24.9+ (and under --experimental-vm-modules): below that it needs
// them compiled to CommonJS, so they are transformed like our sources instead of ignored.
// Octokit and its helpers too (content-type is the copy @octokit/request nests, ES modules only).
const ESM_ONLY = ['@nestjs', 'jose', 'uuid', '@octokit', 'universal-user-agent', 'before-after-hook', 'json-with-bigint', 'fast-content-type-parse', 'content-type', 'openid-client', 'oauth4webapi'];
const swcJs = ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const common = {
  transform: { '^.+\\.ts$': swc, '^.+\\.js$': swcJs },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
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
