import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openSqlite, sqliteDriverPath } from './driver';
import { enableWal } from './wal';

describe('enableWal', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wal-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Another process holds an exclusive lock on the new file for `ms`, as a store opening it would. */
  async function lockedByAnotherProcess(file: string, ms: number): Promise<void> {
    const script = `const D=require(${JSON.stringify(sqliteDriverPath())});const db=new D(process.argv[1]);db.exec('CREATE TABLE t(x)');db.exec('BEGIN EXCLUSIVE');process.stdout.write('locked\\n');setTimeout(()=>{db.exec('COMMIT');db.close()},${ms});`;
    const child = spawn(process.execPath, ['-e', script, file], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`lock holder exited (${code})`)));
    });
  }

  it('waits out another process switching the same new file, instead of failing with SQLITE_BUSY', async () => {
    const file = path.join(dir, 'x.db');
    await lockedByAnotherProcess(file, 300);
    // No busy handler of its own: only enableWal's retries can wait for the lock.
    const db = openSqlite(file, { timeout: 0 });
    expect(() => db.pragma('journal_mode = WAL')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    enableWal(db, 5000);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('gives up with the store error once the timeout has passed', async () => {
    const file = path.join(dir, 'y.db');
    await lockedByAnotherProcess(file, 600);
    const db = openSqlite(file, { timeout: 0 });
    expect(() => enableWal(db, 100)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    db.close();
  });
});
