#!/usr/bin/env node
// Compares the two installed SQLite drivers on this Node (docs/performance.md, "Node 20, 22 and 24"):
//   node scripts/sqlite-driver-bench.js node_modules/better-sqlite3 node_modules/better-sqlite3-napi
// Each driver runs in its own child process, the drivers alternating, three rounds. The operations are
// the stores' kinds: inserts in transactions, point reads, raw pages, and a statement prepared per call.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function run(driverDir) {
  const Database = require(path.resolve(driverDir));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-bench-'));
  const db = new Database(path.join(dir, 'bench.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE e(seq INTEGER PRIMARY KEY, stream TEXT, rev INTEGER, type TEXT, data TEXT)');
  const insert = db.prepare('INSERT INTO e(stream, rev, type, data) VALUES (?, ?, ?, ?)');
  const payload = JSON.stringify({ a: 'x'.repeat(200), b: 42 });
  const time = (f) => {
    const started = performance.now();
    f();
    return Math.round(performance.now() - started);
  };
  const batch = db.transaction((from) => {
    for (let i = from; i < from + 100; i++) insert.run(`s-${i % 5000}`, i, 'NoteCreated', payload);
  });
  const get = db.prepare('SELECT stream, rev, type, data FROM e WHERE seq = ?');
  const page = db.prepare('SELECT seq, stream, rev, type, data FROM e WHERE seq > ? ORDER BY seq LIMIT 500').raw();
  const result = {
    'insert 100k (tx of 100)': time(() => { for (let i = 0; i < 100_000; i += 100) batch(i); }),
    'get 100k': time(() => { for (let i = 1; i <= 100_000; i++) get.get(i); }),
    '200 raw pages of 500': time(() => { for (let i = 0; i < 100_000; i += 500) page.all(i); }),
    'prepare+get 20k': time(() => { for (let i = 0; i < 20_000; i++) db.prepare('SELECT 1 FROM e WHERE seq = ?').get(i); }),
  };
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return result;
}

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(run(process.argv[3])));
} else {
  const drivers = process.argv.slice(2);
  if (drivers.length === 0) throw new Error('usage: sqlite-driver-bench.js <driver package dir>...');
  console.log(`node ${process.versions.node}`);
  for (let round = 1; round <= 3; round++) {
    for (const driver of drivers) {
      const ms = JSON.parse(execFileSync(process.execPath, [__filename, '--child', driver], { encoding: 'utf8' }));
      console.log(`${path.basename(driver)}: ${Object.entries(ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}`);
    }
  }
}
