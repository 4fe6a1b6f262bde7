import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { MongoReadStore, SqliteReadStore, createReadStore } from '@svc/infrastructure/read-store';
import type { Doc, WriteOp } from '@svc/infrastructure/read-store';
import { ReadStoreFixture, describeReadStoreContract } from './read-store.contract';

function sqliteFixture(): ReadStoreFixture & { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-read-store-'));
  const file = join(dir, 'read.db');
  const store = new SqliteReadStore({ file });
  return {
    dir,
    file,
    store,
    openAnother: async () => new SqliteReadStore({ file }),
    atomicBatches: true,
    explain: (collection, filter, sort) => store.explain(collection, filter, sort),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeReadStoreContract('SQLite', async () => sqliteFixture());

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  describeReadStoreContract('MongoDB', async () => {
    const dbName = `svc_read_store_contract_${Date.now()}_${process.pid}`;
    const store = await MongoReadStore.create({ url: mongoUrl, dbName });
    return {
      store,
      openAnother: () => MongoReadStore.create({ url: mongoUrl, dbName }),
      atomicBatches: store.transactional,
      close: async () => {
        await store.close();
        const client = await MongoClient.connect(mongoUrl);
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  });
}

describe('SqliteReadStore pushdown', () => {
  let fixture: ReturnType<typeof sqliteFixture>;
  let store: SqliteReadStore;
  beforeEach(() => {
    fixture = sqliteFixture();
    store = fixture.store as SqliteReadStore;
  });
  afterEach(() => fixture.close());

  const listNotes = { _org: 'acme', toolName: 'x', deleteTime: { $exists: false } };
  const newestFirst = { createTime: -1 as const, name: 1 as const };
  const note = (i: number, extra: Doc = {}): WriteOp => ({
    op: 'update',
    collection: 'notes',
    id: `acme|notes/${i}`,
    pos: i,
    upsert: true,
    update: { $set: { _org: 'acme', name: `notes/${i}`, toolName: i % 2 ? 'x' : 'y', createTime: `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`, ...extra } },
  });

  it('runs the ListNotes query entirely in SQL once its paths are declared', async () => {
    await store.commit({ checkpoint: 'notes', position: { commit: 1n, prepare: 1n }, ops: [note(1)] });
    expect(store.explain('notes', listNotes, newestFirst)).toMatchObject({ exactFilter: false, sortPushedDown: false });
    await store.ensureIndexes('notes', ['toolName', 'createTime', 'name', 'deleteTime']);
    expect(store.explain('notes', listNotes, newestFirst)).toMatchObject({ exactFilter: true, sortPushedDown: true });
    // $regex and other operators stay in mingo, on the candidates the rest of the filter selects.
    const partial = store.explain('notes', { ...listNotes, name: { $regex: '^notes/1' } }, newestFirst);
    expect(partial).toMatchObject({ exactFilter: false, sortPushedDown: true });
    expect(partial.where).toContain('"p:toolName"');
  });

  it('stops pushing a path down once it holds an array, also for another instance', async () => {
    await store.ensureIndexes('notes', ['toolName', 'createTime', 'name']);
    await store.commit({ checkpoint: 'notes', position: { commit: 3n, prepare: 3n }, ops: [note(1), note(2), note(3)] });
    const other = new SqliteReadStore({ file: fixture.file });
    try {
      expect(other.explain('notes', { _org: 'acme', toolName: 'x' }).exactFilter).toBe(true);
      await store.commit({ checkpoint: 'notes', position: { commit: 4n, prepare: 4n }, ops: [note(4, { toolName: ['x', 'z'] })] });
      expect(other.explain('notes', { _org: 'acme', toolName: 'x' }).exactFilter).toBe(false);
      const found = await other.collection('notes').find({ _org: 'acme', toolName: 'x' }, { sort: newestFirst });
      expect(found.map((d) => d.name)).toEqual(['notes/4', 'notes/3', 'notes/1']);
      // Booleans keep the filter exact (with type guards) but take the sort out of SQL.
      await store.commit({ checkpoint: 'notes', position: { commit: 5n, prepare: 5n }, ops: [note(5, { createTime: true })] });
      expect(other.explain('notes', { _org: 'acme', createTime: { $gt: '2024' } }, newestFirst)).toMatchObject({ exactFilter: true, sortPushedDown: false });
      expect((await other.collection('notes').find({ _org: 'acme' }, { sort: newestFirst })).map((d) => d.name)).toEqual([
        'notes/5',
        'notes/4',
        'notes/3',
        'notes/2',
        'notes/1',
      ]);
    } finally {
      await other.close();
    }
  });

  it('derives flags from existing documents when a path is declared late', async () => {
    await store.commit({ checkpoint: 'notes', position: { commit: 2n, prepare: 2n }, ops: [note(1), note(2, { pinned: true })] });
    await store.ensureIndexes('notes', ['pinned', 'name']);
    expect(store.explain('notes', { _org: 'acme', pinned: true }, { pinned: -1 })).toMatchObject({ exactFilter: true, sortPushedDown: false });
    expect((await store.collection('notes').find({ _org: 'acme', pinned: true })).map((d) => d.name)).toEqual(['notes/2']);
    expect((await store.collection('notes').find({ _org: 'acme', pinned: { $ne: true } })).map((d) => d.name)).toEqual(['notes/1']);
  });

  it('carries declared paths over a swap', async () => {
    await store.ensureIndexes('notes', ['toolName', 'createTime', 'name', 'deleteTime']);
    await store.commit({ checkpoint: 'notes-rebuild', position: { commit: 1n, prepare: 1n }, ops: [{ ...note(1), collection: 'notes__v2' }] });
    await store.swapCollections({ notes: 'notes__v2' }, { name: 'notes', position: { commit: 1n, prepare: 1n } });
    expect(store.explain('notes', listNotes, newestFirst)).toMatchObject({ table: '"c_notes__v2"', exactFilter: true, sortPushedDown: true });
    expect((await store.collection('notes').find(listNotes, { sort: newestFirst })).map((d) => d.name)).toEqual(['notes/1']);
  });

  it('createReadStore makes the data directory and read.db when MONGODB_URL is unset', async () => {
    const dir = join(fixture.dir, 'nested', 'data');
    const created = await createReadStore({ SVC_DATA_DIR: dir });
    try {
      expect(created).toBeInstanceOf(SqliteReadStore);
      expect(existsSync(join(dir, 'read.db'))).toBe(true);
    } finally {
      await created.close();
    }
  });
});
