#!/usr/bin/env node
// `npm start` (and the other start scripts) build first, but only when the sources changed since the
// last build: a hash of every input of the build (sources, tsconfigs, the lockfile) is kept beside the
// output in dist/.sources-hash. `npm run build` always builds. Plain Node: it runs before any build.
'use strict';
const { createHash } = require('node:crypto');
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.sources-hash');
const OUTPUT = path.join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const DIRS = ['apps', 'libs', 'bench'];

function walk(dir, found) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, found);
    else if (entry.isFile()) found.push(full);
  }
  return found;
}

function sourcesHash() {
  const files = [...FILES.map((f) => path.join(ROOT, f)), ...DIRS.flatMap((d) => walk(path.join(ROOT, d), []))]
    .filter((f) => fs.existsSync(f))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const current = sourcesHash();
const built = fs.existsSync(STAMP) && fs.existsSync(OUTPUT) ? fs.readFileSync(STAMP, 'utf8').trim() : null;
if (built === current) {
  process.stderr.write('build is up to date (no source changed since the last build)\n');
} else {
  execSync('npm run build', { cwd: ROOT, stdio: 'inherit' });
  fs.writeFileSync(STAMP, `${current}\n`);
}
