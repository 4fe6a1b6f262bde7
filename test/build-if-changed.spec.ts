/**
 * `npm start` builds only when the sources changed (scripts/build-if-changed.js), run here on a copy
 * of the script in a scratch project whose build only counts its runs.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../scripts/build-if-changed.js');

describe('scripts/build-if-changed.js (npm start)', () => {
  let root: string;
  const builds = () => (fs.existsSync(path.join(root, 'builds')) ? fs.readFileSync(path.join(root, 'builds'), 'utf8').length : 0);
  const start = () => execFileSync(process.execPath, [path.join(root, 'scripts/build-if-changed.js')], { cwd: root, stdio: 'pipe' });

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-build-if-changed-'));
    fs.mkdirSync(path.join(root, 'scripts'));
    fs.copyFileSync(SCRIPT, path.join(root, 'scripts/build-if-changed.js'));
    for (const dir of ['apps/api/src', 'libs/x', 'bench']) fs.mkdirSync(path.join(root, dir), { recursive: true });
    fs.writeFileSync(path.join(root, 'apps/api/src/main.ts'), 'export const a = 1;\n');
    // The build as the real one: dist removed and written again; each run leaves a mark.
    const build = "node -e \"const fs=require('fs');fs.rmSync('dist',{recursive:true,force:true});fs.mkdirSync('dist/apps/api/src',{recursive:true});fs.writeFileSync('dist/apps/api/src/main.js','');fs.appendFileSync('builds','x')\"";
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'scratch', private: true, scripts: { build } }));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds the first time, not again while nothing changed, and again after a source or the lockfile changes', () => {
    start();
    expect(builds()).toBe(1);
    start();
    expect(builds()).toBe(1);
    fs.writeFileSync(path.join(root, 'libs/x/y.ts'), 'export const b = 2;\n');
    start();
    expect(builds()).toBe(2);
    fs.writeFileSync(path.join(root, 'package-lock.json'), '{}');
    start();
    expect(builds()).toBe(3);
    // A removed build output is rebuilt even with the same sources.
    fs.rmSync(path.join(root, 'dist/apps/api/src/main.js'));
    start();
    expect(builds()).toBe(4);
  }, 60_000);
});
