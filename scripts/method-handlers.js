#!/usr/bin/env node
// `npm run docs:handlers`: rewrites docs/method-handlers.md from the method registry of a booted api.
// It runs the same code as the check that fails when the file is stale (apps/api/src/method-handlers.spec.ts),
// told to write the file first, so the generator and the check can never disagree about the output.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const jest = require.resolve('jest/bin/jest', { paths: [ROOT] });
const result = spawnSync(process.execPath, [jest, '--selectProjects', 'unit', '--', 'apps/api/src/method-handlers.spec.ts'], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, SVC_WRITE_DOCS: '1' },
});
process.exit(result.status ?? 1);
