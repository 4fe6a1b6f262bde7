/**
 * For seed-source specs: a SQLite read store in a temporary directory, made before each test and
 * removed after it, and documents put into it as a projection would. Named `testing.ts`, so the
 * build leaves it out (it uses jest's hooks); nothing in production uses it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SqliteReadStore } from '../read-store/sqlite-read-store';

/** Registers beforeEach / afterEach; `current()` is the store of the running test. */
export function temporaryReadStore(prefix: string): { current(): SqliteReadStore } {
  let dir: string;
  let reads: SqliteReadStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    reads = new SqliteReadStore({ file: path.join(dir, 'read.db') });
  });
  afterEach(async () => {
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { current: () => reads };
}

/** Inserts documents `{collection, org, name, ...fields}` as one projection commit. */
export function insertDocs(reads: SqliteReadStore, docs: ReadonlyArray<{ collection: string; org: string; name: string } & Record<string, unknown>>): Promise<void> {
  const ops = docs.map(({ collection, org, name, ...extra }) => ({ op: 'insert' as const, collection, doc: { _id: `${org}|${name}`, _org: org, name, ...extra } }));
  return reads.commit({ checkpoint: 'test', position: { commit: 1n, prepare: 1n }, ops });
}
