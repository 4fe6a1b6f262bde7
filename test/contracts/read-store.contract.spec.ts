import { mkdtempSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@svc/infrastructure/sqlite/driver';
import { MongoClient } from 'mongodb';
import { MongoReadStore, SqliteReadStore, createReadStore } from '@svc/infrastructure/read-store';
import { RETIRE_AFTER_MS } from '@svc/infrastructure/read-store/mongo-read-store';
import type { Doc, ProjectionBatch, WriteOp } from '@svc/infrastructure/read-store';
import type { ListIndexes } from '@svc/infrastructure/read-store/read-store.port';
import { NEWEST_FIRST_LIST, ReadStoreFixture, describeReadStoreContract } from './read-store.contract';

/** What SQLite itself says about a collection's table, read over a connection of its own. */
function inspectTable(file: string, physical: string): { indexes: string[]; analyzedRows: number | null } {
  const db = openSqlite(file, { readonly: true });
  try {
    const indexes = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`).pluck().all(`c_${physical}`) as string[];
    const hasStat1 = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get() !== undefined;
    const stat = hasStat1 ? (db.prepare('SELECT stat FROM sqlite_stat1 WHERE tbl = ? LIMIT 1').pluck().get(`c_${physical}`) as string | undefined) : undefined;
    return { indexes, analyzedRows: stat === undefined ? null : Number.parseInt(stat, 10) };
  } finally {
    db.close();
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

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
      afterRetireGrace: () => store.dropRetired(Date.now() + RETIRE_AFTER_MS),
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
    // $regex and other operators stay in mingo, on the candidates the rest of the filter selects...
    const partial = store.explain('notes', { ...listNotes, name: { $regex: '^notes/[12]' } }, newestFirst);
    expect(partial).toMatchObject({ exactFilter: false, sortPushedDown: true });
    expect(partial.where).toContain('"p:toolName"');
    // ...except a literal prefix, suffix or contains pattern (what filter wildcards compile to).
    expect(store.explain('notes', { ...listNotes, name: { $regex: '^notes/1' } }, newestFirst)).toMatchObject({ exactFilter: true, sortPushedDown: true });
  });

  it('continues the index of a List equality path with the list order, so a filtered List reads one index range in order', async () => {
    const list: ListIndexes = { order: NEWEST_FIRST_LIST, paths: ['toolName', 'displayName'] };
    await store.commit({ checkpoint: 'notes', position: { commit: 3n, prepare: 3n }, ops: [note(1), note(2), note(3)] });
    await store.ensureIndexes('notes', ['toolName', 'createTime', 'name', 'deleteTime'], list);
    const columns = (index: string) => {
      const db = openSqlite(fixture.file, { readonly: true });
      try {
        const rows = db.prepare(`SELECT name, "desc" FROM pragma_index_xinfo(?) WHERE key = 1`).all(index) as { name: string; desc: number }[];
        return rows.map((r) => `${r.name}${r.desc ? ' desc' : ''}`);
      } finally {
        db.close();
      }
    };
    expect(columns('ix:notes:toolName')).toEqual(['_org', 'p:toolName', 'p:createTime desc', 'p:name', '_id', 'p:deleteTime']);
    // Paths Lists do not filter on by equality keep a narrow index (every index costs every write).
    expect(columns('ix:notes:createTime')).toEqual(['_org', 'p:createTime']);
    // The List's page keys come from that index alone: no sort, no table read until the page is known.
    const plan = store.explain('notes', listNotes, newestFirst);
    const db = openSqlite(fixture.file, { readonly: true });
    try {
      const keys = `SELECT rowid FROM ${plan.table} WHERE ${plan.where} ORDER BY "p:createTime" DESC, "p:name" ASC, _id ASC LIMIT 51`;
      const steps = (db.prepare(`EXPLAIN QUERY PLAN ${keys}`).all(...plan.params) as { detail: string }[]).map((r) => r.detail);
      expect(steps).toEqual([expect.stringContaining('USING COVERING INDEX ix:notes:toolName')]);
    } finally {
      db.close();
    }
    expect((await store.collection('notes').find(listNotes, { sort: newestFirst })).map((d) => d.name)).toEqual(['notes/3', 'notes/1']);
    // Kept with the collection: another instance declaring a path later builds its index the same way.
    const other = new SqliteReadStore({ file: fixture.file });
    try {
      await other.ensureIndexes('notes', ['displayName']);
      expect(columns('ix:notes:displayName')).toEqual(['_org', 'p:displayName', 'p:createTime desc', 'p:name', '_id', 'p:deleteTime']);
    } finally {
      await other.close();
    }
    // New List indexes rebuild the path indexes.
    await store.ensureIndexes('notes', ['toolName'], { order: [{ path: 'name', direction: 1 }], paths: ['toolName'] });
    expect(columns('ix:notes:toolName')).toEqual(['_org', 'p:toolName', 'p:name']);
    expect(columns('ix:notes:displayName')).toEqual(['_org', 'p:displayName']);
  });

  it('opens a read store written before list orders were kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-read-store-old-'));
    try {
      const file = join(dir, 'read.db');
      const old = openSqlite(file);
      old.exec('CREATE TABLE _rs_collections (name TEXT PRIMARY KEY, org_flags INTEGER NOT NULL DEFAULT 0)');
      old.close();
      const reopened = new SqliteReadStore({ file });
      try {
        await reopened.ensureIndexes('notes', ['toolName'], { order: [{ path: 'createTime', direction: -1 }], paths: ['toolName'] });
        await reopened.commit({ checkpoint: 'notes', position: { commit: 1n, prepare: 1n }, ops: [note(1)] });
        expect(await reopened.collection('notes').find({ _org: 'acme', toolName: 'x' })).toEqual([expect.objectContaining({ name: 'notes/1' })]);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

  it('reads a document by _id as one primary-key lookup', async () => {
    await store.ensureIndexes('notes', ['toolName', 'name']);
    await store.commit({ checkpoint: 'notes', position: { commit: 1n, prepare: 1n }, ops: [note(1)] });
    expect(store.explain('notes', { _id: 'acme|notes/1' }).pointRead).toBe(true);
    expect(store.explain('notes', { _org: 'acme', _id: 'acme|notes/1' }).pointRead).toBe(true);
    expect(store.explain('notes', { _id: { $in: ['acme|notes/1'] } }).pointRead).toBe(false);
    expect(store.explain('notes', { _id: 'acme|notes/1', name: 'notes/1' }).pointRead).toBe(false);
    expect(store.explain('notes', {}).pointRead).toBe(false);
  });

  it('reads by _id in one statement on the cached schema state, sees every commit elsewhere at once, and reloads only on a schema change', async () => {
    await store.ensureIndexes('notes', ['toolName', 'createTime', 'name']);
    await store.commit({ checkpoint: 'notes', position: { commit: 2n, prepare: 2n }, ops: [note(1), note(2)] });
    const notes = store.collection('notes');
    const reads = async (): Promise<unknown[]> => [
      await notes.findOne({ _id: 'acme|notes/1' }),
      (await notes.find({ _org: 'acme', toolName: 'x' }, { sort: newestFirst })).map((d) => d.name),
      await notes.countDocuments({ _org: 'acme' }),
    ];
    await reads();
    const before = store.stats();
    expect(await reads()).toEqual([expect.objectContaining({ name: 'notes/1' }), ['notes/1'], 2]);
    // Own commits keep the cached state current: the point reads stay single statements, nothing reloads.
    await store.commit({ checkpoint: 'notes', position: { commit: 3n, prepare: 3n }, ops: [note(3)] });
    expect(await reads()).toEqual([expect.objectContaining({ name: 'notes/1' }), ['notes/3', 'notes/1'], 3]);
    expect(store.stats()).toEqual({ ...before, direct: before.direct + 2, transactional: before.transactional + 4 });

    const other = new SqliteReadStore({ file: fixture.file });
    try {
      // A document written by another connection: seen at once, with no reload (the schema did not change).
      await other.commit({ checkpoint: 'notes', position: { commit: 5n, prepare: 5n }, ops: [note(5)] });
      const afterDoc = store.stats();
      expect(await reads()).toEqual([expect.objectContaining({ name: 'notes/1' }), ['notes/5', 'notes/3', 'notes/1'], 4]);
      expect(await notes.findOne({ _id: 'acme|notes/5' })).toEqual(expect.objectContaining({ name: 'notes/5' }));
      expect(store.stats()).toEqual({ ...afterDoc, transactional: afterDoc.transactional + 2, direct: afterDoc.direct + 2 });
      // A path turning into an array elsewhere changes how the query must run: reloaded before it runs.
      await other.commit({ checkpoint: 'notes', position: { commit: 6n, prepare: 6n }, ops: [note(7, { toolName: ['x', 'z'] })] });
      const afterFlag = store.stats();
      expect((await notes.find({ _org: 'acme', toolName: 'x' }, { sort: newestFirst })).map((d) => d.name)).toEqual(['notes/7', 'notes/5', 'notes/3', 'notes/1']);
      expect(store.stats()).toEqual({ ...afterFlag, transactional: afterFlag.transactional + 1, stateLoads: afterFlag.stateLoads + 1 });
      // A swap elsewhere: the very next read by _id goes to the new collection.
      await other.commit({ checkpoint: 'r', position: { commit: 7n, prepare: 7n }, ops: [{ ...note(1, { toolName: 'rebuilt' }), collection: 'notes__v2' }] });
      await other.swapCollections({ notes: 'notes__v2' }, { name: 'notes', position: { commit: 7n, prepare: 7n } });
      expect(await notes.findOne({ _id: 'acme|notes/1' })).toEqual(expect.objectContaining({ toolName: 'rebuilt' }));
      expect(await notes.findOne({ _id: 'acme|notes/3' })).toBeNull();
      expect(await notes.countDocuments({})).toBe(1);
      // A collection another connection created after this one loaded its schema state: found at once.
      await other.commit({ checkpoint: 'tags', position: { commit: 8n, prepare: 8n }, ops: [{ op: 'update', collection: 'tags', id: 'acme|tags/9', pos: 9, upsert: true, update: { $set: { _org: 'acme', name: 'notes/9' } } }] });
      expect(await store.collection('tags').findOne({ _id: 'acme|tags/9' })).toEqual(expect.objectContaining({ name: 'notes/9' }));
      expect(await store.collection('labels').findOne({ _id: 'acme|labels/1' })).toBeNull();
    } finally {
      await other.close();
    }
  });

  describe('planner statistics', () => {
    const many = (from: number, to: number, collection = 'notes'): ProjectionBatch => ({
      checkpoint: 'notes',
      position: { commit: BigInt(to), prepare: BigInt(to) },
      ops: Array.from({ length: to - from }, (_, i) => ({ ...note(from + i), collection })),
    });

    it('never analyzes inside a commit', async () => {
      const quiet = new SqliteReadStore({ file: fixture.file, analyzeIntervalMs: 0 });
      try {
        await quiet.ensureIndexes('notes', ['toolName', 'createTime']);
        await quiet.commit(many(0, 400));
        await quiet.commitMany([many(400, 900)]);
        await new Promise((r) => setTimeout(r, 50));
        expect(inspectTable(fixture.file, 'notes').analyzedRows).toBeNull();
      } finally {
        await quiet.close();
      }
    });

    it('analyzes a collection that grew, on the idle-time timer, and again once it doubled', async () => {
      const timed = new SqliteReadStore({ file: fixture.file, analyzeIntervalMs: 30 });
      try {
        await timed.ensureIndexes('notes', ['toolName', 'createTime']);
        await timed.commit(many(0, 150));
        await new Promise((r) => setTimeout(r, 100));
        expect(inspectTable(fixture.file, 'notes').analyzedRows).toBeNull(); // too small to be worth it
        await timed.commit(many(150, 300));
        await until(() => inspectTable(fixture.file, 'notes').analyzedRows === 300, 'statistics of 300 rows');
        await timed.commit(many(300, 450));
        await new Promise((r) => setTimeout(r, 150));
        expect(inspectTable(fixture.file, 'notes').analyzedRows).toBe(300); // grew by half: not yet
        await timed.commit(many(450, 700));
        await until(() => inspectTable(fixture.file, 'notes').analyzedRows === 700, 'statistics of 700 rows');
      } finally {
        await timed.close();
      }
    });

    it('analyzes when ensureIndexes finds rows without statistics, and when a swap brings in a collection loaded without a bulk load', async () => {
      const quiet = new SqliteReadStore({ file: fixture.file, analyzeIntervalMs: 0 });
      try {
        await quiet.commit(many(0, 250));
        expect(inspectTable(fixture.file, 'notes').analyzedRows).toBeNull();
        await quiet.ensureIndexes('notes', ['toolName']);
        expect(inspectTable(fixture.file, 'notes').analyzedRows).toBe(250);
        await quiet.commit(many(0, 300, 'notes__v2'));
        expect(inspectTable(fixture.file, 'notes__v2').analyzedRows).toBeNull();
        await quiet.swapCollections({ notes: 'notes__v2' }, { name: 'notes', position: { commit: 300n, prepare: 300n } });
        expect(inspectTable(fixture.file, 'notes__v2').analyzedRows).toBe(300);
      } finally {
        await quiet.close();
      }
    });
  });

  it('keeps an (_org, _id) index only while no declared path index leads with _org, and reads the same either way', async () => {
    const named = (docs: Doc[]) => docs.map((d) => d.name);
    await store.commitMany([{ checkpoint: 'notes', position: { commit: 30n, prepare: 30n }, ops: Array.from({ length: 30 }, (_, i) => note(i)) }]);
    expect(inspectTable(fixture.file, 'notes').indexes).toEqual(['ix:notes#org']);
    const byId = await store.collection('notes').find({ _org: 'acme' }, { sort: { _id: -1 }, limit: 3 });
    const counted = await store.collection('notes').countDocuments({ _org: 'acme' });
    // A path looked up across organizations leads with itself: the organization's scans still need the index.
    await store.ensureIndexes('notes', [], undefined, ['toolName']);
    expect(inspectTable(fixture.file, 'notes').indexes).toEqual(['ix:notes#org', 'ix:notes:toolName']);
    await store.ensureIndexes('notes', ['createTime']);
    expect(inspectTable(fixture.file, 'notes').indexes).toEqual(['ix:notes:createTime', 'ix:notes:toolName']);
    expect(named(await store.collection('notes').find({ _org: 'acme' }, { sort: { _id: -1 }, limit: 3 }))).toEqual(named(byId));
    expect(await store.collection('notes').countDocuments({ _org: 'acme' })).toBe(counted);
    // A store made before this rule has the index: the next ensureIndexes drops it.
    openSqlite(fixture.file).exec('CREATE INDEX "ix:notes#org" ON "c_notes" (_org, _id)');
    const reopened = new SqliteReadStore({ file: fixture.file });
    try {
      await reopened.ensureIndexes('notes', ['createTime']);
      expect(inspectTable(fixture.file, 'notes').indexes).toEqual(['ix:notes:createTime', 'ix:notes:toolName']);
    } finally {
      await reopened.close();
    }
  });

  describe('bulk loads', () => {
    const load = (collection: string, from: number, to: number): ProjectionBatch[] => [
      {
        checkpoint: 'notes-rebuild',
        position: { commit: BigInt(to), prepare: BigInt(to) },
        ops: Array.from({ length: to - from }, (_, i) => ({ ...note(from + i), collection })),
      },
    ];

    it('builds the secondary indexes and statistics once the rows are in, keeping the pushdown', async () => {
      await store.ensureIndexes('notes__r1', ['toolName', 'createTime']);
      expect(inspectTable(fixture.file, 'notes__r1').indexes).toEqual(['ix:notes__r1:createTime', 'ix:notes__r1:toolName']);
      await store.beginBulk('notes__r1');
      expect(inspectTable(fixture.file, 'notes__r1').indexes).toEqual([]);
      await store.commitMany(load('notes__r1', 1, 200));
      await store.ensureIndexes('notes__r1', ['name', 'deleteTime']); // declared after part of the load
      await store.commitMany(load('notes__r1', 200, 301));
      expect(inspectTable(fixture.file, 'notes__r1')).toEqual({ indexes: [], analyzedRows: null });
      expect(store.explain('notes__r1', listNotes, newestFirst)).toMatchObject({ exactFilter: true, sortPushedDown: true });
      const during = await store.collection('notes__r1').find(listNotes, { sort: newestFirst, limit: 5 });
      await store.endBulk('notes__r1');
      expect(inspectTable(fixture.file, 'notes__r1')).toEqual({
        indexes: ['ix:notes__r1:createTime', 'ix:notes__r1:deleteTime', 'ix:notes__r1:name', 'ix:notes__r1:toolName'],
        analyzedRows: 300,
      });
      const after = await store.collection('notes__r1').find(listNotes, { sort: newestFirst, limit: 5 });
      expect(after).toEqual(during);
      expect(after.map((d) => d.name)).toEqual(['notes/119', 'notes/179', 'notes/239', 'notes/299', 'notes/59']); // all at :59, then by name
    });

    it('builds them in the swap when endBulk was forgotten', async () => {
      await store.beginBulk('notes__r2');
      await store.ensureIndexes('notes__r2', ['toolName']);
      await store.commitMany(load('notes__r2', 1, 251));
      await store.swapCollections({ notes: 'notes__r2' }, { name: 'notes', position: { commit: 251n, prepare: 251n } });
      expect(inspectTable(fixture.file, 'notes__r2')).toEqual({ indexes: ['ix:notes__r2:toolName'], analyzedRows: 250 });
      expect(await store.collection('notes').countDocuments({ _org: 'acme', toolName: 'x' })).toBe(125);
    });
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

describe('SqliteReadStore WAL checkpoints', () => {
  it('keeps the WAL bounded under sustained commits, its checkpoints run on a thread', async () => {
    const fixture = sqliteFixture();
    try {
      const pad = 'x'.repeat(400);
      for (let page = 0; page < 2000; page++) {
        const ops: WriteOp[] = Array.from({ length: 20 }, (_, i) => ({
          op: 'insert' as const,
          collection: 'notes',
          doc: { _id: `acme|notes/p${page}-${i}`, _org: 'acme', _pos: page * 20 + i + 1, name: `notes/p${page}-${i}`, pad },
        }));
        // The projector takes its next page from the event loop, where the checkpoint thread's answers arrive too.
        await new Promise((r) => setImmediate(r));
        await fixture.store.commitMany([{ checkpoint: 'notes', position: { commit: BigInt(page * 20 + 20), prepare: BigInt(page * 20 + 20) }, ops }]);
      }
      expect(await fixture.store.collection('notes').countDocuments({ _org: 'acme' })).toBe(40_000);
      // About 60 MB of pages went through the WAL (a 26 MB database, its pages rewritten by later commits);
      // the checkpointer lets it reach about 16 MB, then has the next commit wait for one last checkpoint
      // so that the WAL restarts (WalCheckpointer). Without checkpoints it keeps every page.
      const wal = statSync(`${fixture.file}-wal`).size;
      expect(wal).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await fixture.close();
    }
  }, 30_000);
});
