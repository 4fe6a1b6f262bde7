import * as fs from 'node:fs';
import * as path from 'node:path';
import { SQLITE_DRIVER, SQLITE_DRIVERS, openSqlite, requireDriver, sqliteDriverFor, sqliteDriverPath } from './driver';

describe('the SQLite driver', () => {
  it('is better-sqlite3 12 on Node 20 and 22 and the Node-API 13 alias from Node 24 on', () => {
    expect(sqliteDriverFor('20.19.0')).toBe(SQLITE_DRIVERS.v8);
    expect(sqliteDriverFor('20.20.2')).toBe(SQLITE_DRIVERS.v8);
    expect(sqliteDriverFor('22.12.0')).toBe(SQLITE_DRIVERS.v8);
    expect(sqliteDriverFor('24.0.0')).toBe(SQLITE_DRIVERS.napi);
    expect(sqliteDriverFor('24.21.0')).toBe(SQLITE_DRIVERS.napi);
    expect(sqliteDriverFor('26.0.0')).toBe(SQLITE_DRIVERS.napi);
    expect(SQLITE_DRIVER).toBe(sqliteDriverFor(process.versions.node));
  });

  it('opens a database, runs statements and frees them on this Node', () => {
    const db = openSqlite(':memory:');
    db.exec('CREATE TABLE t(x INTEGER)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    db.transaction(() => [1, 2, 3].forEach((x) => insert.run(x)))();
    expect(db.prepare('SELECT sum(x) AS s FROM t').get()).toEqual({ s: 6 });
    expect(db.prepare('SELECT 1').raw().get()).toEqual([1]);
    db.close();
    expect(fs.existsSync(sqliteDriverPath())).toBe(true);
  });

  it('says which driver is missing and what to do, instead of a bare module error', () => {
    expect(() => requireDriver(SQLITE_DRIVERS.napi, () => {
      throw Object.assign(new Error(`Cannot find module '${SQLITE_DRIVERS.napi}'`), { code: 'MODULE_NOT_FOUND' });
    })).toThrow(/SQLite driver 'better-sqlite3-napi' is not installed, and Node .* needs it .*run `npm ci` with this Node/);
    // Another module missing inside the driver is not the driver missing: passed through as it is.
    const inner = Object.assign(new Error("Cannot find module 'bindings'"), { code: 'MODULE_NOT_FOUND' });
    expect(() => requireDriver(SQLITE_DRIVERS.v8, () => {
      throw inner;
    })).toThrow(inner);
  });

  it('is the only code that loads better-sqlite3 (the rest imports its types only)', () => {
    const root = path.resolve(__dirname, '../../../..');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.(ts|js)$/.test(entry.name) && file !== __filename && file !== path.join(__dirname, 'driver.ts')) {
          const text = fs.readFileSync(file, 'utf8');
          if (/^import (?!type )[^;]*from 'better-sqlite3'|require(\.resolve)?\(['"]better-sqlite3/m.test(text)) offenders.push(path.relative(root, file));
        }
      }
    };
    for (const dir of ['apps', 'libs', 'test', 'bench', 'scripts']) if (fs.existsSync(path.join(root, dir))) walk(path.join(root, dir));
    expect(offenders).toEqual([]);
  });
});
