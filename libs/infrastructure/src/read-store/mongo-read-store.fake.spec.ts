/**
 * MongoReadStore against a fake of the driver's Db: collections that keep documents and evaluate
 * filters and updates as MongoDB does (mingo, document-update.ts), record every call, and answer an
 * upsert whose filter misses an existing `_id` with the driver's duplicate-key MongoBulkWriteError.
 */
import { type BulkWriteResult, type Db, MongoBulkWriteError, MongoServerError, type WriteError } from 'mongodb';
import type { Position } from '../event-store/event-store.port';
import { applyUpdate } from './document-update';
import { filterQuery } from './filter-query';
import { MongoReadStore } from './mongo-read-store';
import type { Doc, ListIndexes, Update, WriteOp } from './read-store.port';

type Model =
  | { updateOne: { filter: Doc; update: Update; upsert?: boolean } }
  | { deleteOne: { filter: Doc } };

class FakeCollection {
  readonly docs = new Map<string, Doc>();
  readonly declared: Array<Record<string, 1 | -1>> = [];
  readonly calls: string[] = [];
  exists = false;

  constructor(readonly name: string) {}

  find(filter: Doc) {
    this.calls.push(`find ${JSON.stringify(filter)}`);
    const docs = [...this.docs.values()].filter((doc) => filterQuery(filter).test(doc)).map((doc) => structuredClone(doc));
    const cursor = { toArray: () => Promise.resolve(docs), sort: () => cursor };
    return cursor;
  }

  findOne(filter: Doc) {
    this.calls.push(`findOne ${JSON.stringify(filter)}`);
    return Promise.resolve([...this.docs.values()].find((doc) => filterQuery(filter).test(doc)) ?? null);
  }

  createIndex(keys: Record<string, 1 | -1>) {
    this.exists = true;
    if (!this.declared.some((k) => JSON.stringify(k) === JSON.stringify(keys))) this.declared.push(keys);
    return Promise.resolve('name');
  }

  indexes(): Promise<Doc[]> {
    if (!this.exists) return Promise.reject(new MongoServerError({ code: 26, errmsg: 'ns does not exist' }));
    return Promise.resolve([{ name: '_id_', key: { _id: 1 } }, ...this.declared.map((key) => ({ name: Object.keys(key).join('_'), key }))]);
  }

  bulkWrite(models: Model[], options: { ordered?: boolean }) {
    this.calls.push(`bulkWrite ${models.length}${options.ordered ? ' ordered' : ''}`);
    this.exists = true;
    for (const [index, model] of models.entries()) {
      if ('deleteOne' in model) {
        const doc = [...this.docs.values()].find((d) => filterQuery(model.deleteOne.filter).test(d));
        if (doc) this.docs.delete(doc._id as string);
        continue;
      }
      const { filter, update, upsert } = model.updateOne;
      const doc = [...this.docs.values()].find((d) => filterQuery(filter).test(d));
      if (doc) {
        applyUpdate(doc, update, false);
      } else if (upsert) {
        const id = filter._id as string;
        if (this.docs.has(id)) {
          const writeErrors = [{ code: 11000, index, errmsg: 'E11000 duplicate key error' }] as unknown as WriteError[];
          return Promise.reject(new MongoBulkWriteError({ message: 'E11000 duplicate key error', code: 11000, writeErrors }, {} as BulkWriteResult));
        }
        const created: Doc = { _id: id };
        applyUpdate(created, update, true);
        this.docs.set(id, created);
      }
    }
    return Promise.resolve({});
  }

  updateOne(filter: Doc, update: Update, options: { upsert?: boolean } = {}) {
    return this.bulkWrite([{ updateOne: { filter, update, upsert: options.upsert } }], {});
  }

  deleteOne(filter: Doc) {
    return this.bulkWrite([{ deleteOne: { filter } }], {});
  }

  deleteMany() {
    return Promise.resolve({});
  }
}

function fakeDb() {
  const collections = new Map<string, FakeCollection>();
  const get = (name: string): FakeCollection => {
    let coll = collections.get(name);
    if (!coll) collections.set(name, (coll = new FakeCollection(name)));
    return coll;
  };
  const db = { collection: get } as unknown as Db;
  return { db, get };
}

const session = { withTransaction: async (fn: () => Promise<void>) => fn(), endSession: async () => undefined };
const lease = { client: { startSession: () => session } as never, release: async () => undefined };
const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
const set = (id: string, pos: number, fields: Doc, upsert = true): WriteOp => ({ op: 'update', collection: 'notes', id, pos, update: { $set: fields }, upsert });

describe('MongoReadStore (a fake of the driver)', () => {
  it('indexes the default unfiltered List order under _org, and cross-organization paths leading with the path', async () => {
    const { db, get } = fakeDb();
    const store = new MongoReadStore(lease, db, false);
    const list: ListIndexes = { order: [{ path: 'createTime', direction: -1 }, { path: 'name', direction: 1 }, { path: '_id', direction: 1 }], paths: ['toolName'] };
    await store.ensureIndexes('notes', ['toolName', 'createTime', 'team'], list, ['team']);
    expect(get('notes').declared.map((k) => JSON.stringify(k))).toEqual([
      JSON.stringify({ _org: 1, toolName: 1, createTime: -1, name: 1, _id: 1 }),
      JSON.stringify({ _org: 1, createTime: 1 }),
      JSON.stringify({ team: 1, _org: 1 }),
      JSON.stringify({ _org: 1, createTime: -1, name: 1, _id: 1 }),
      JSON.stringify({ _org: 1, _id: 1 }),
    ]);
  });

  it('reads findByIds with one $in query per collection, answering in the order asked', async () => {
    const { db, get } = fakeDb();
    for (const id of ['a', 'b', 'c']) get('keys').docs.set(id, { _id: id, v: id });
    get('members').docs.set('~access', { _id: '~access', _pos: 3 });
    const store = new MongoReadStore(lease, db, false);
    const found = await store.findByIds([
      { collection: 'keys', id: 'c' },
      { collection: 'members', id: '~access' },
      { collection: 'keys', id: 'zz' },
      { collection: 'keys', id: 'a' },
    ]);
    expect(found.map((d) => d?._id ?? null)).toEqual(['c', '~access', null, 'a']);
    expect(get('keys').calls).toEqual([`find ${JSON.stringify({ _id: { $in: ['c', 'zz', 'a'] } })}`]);
    expect(get('members').calls).toHaveLength(1);
  });

  it('commits a transaction part as one read of positions and one ordered bulkWrite per collection, guards intact', async () => {
    const { db, get } = fakeDb();
    get('notes').docs.set('n1', { _id: 'n1', v: 'newer', _pos: 50 });
    get('notes').docs.set('n2', { _id: 'n2', v: 'old', _pos: 5 });
    const store = new MongoReadStore(lease, db, true);
    await store.commit({
      checkpoint: 'notes',
      position: at(20),
      ops: [
        set('n1', 20, { v: 'stale' }), // older than the stored document: skipped
        set('n2', 20, { v: 'new' }),
        set('n3', 20, { v: 'created' }),
        set('n4', 20, { v: 'absent' }, false), // no upsert, no document: nothing
        { op: 'insert', collection: 'notes', doc: { _id: 'n5', v: 'inserted' } },
        set('n5', 21, { w: 1 }), // the insert before it in the same part made it exist
        { op: 'delete', collection: 'notes', id: 'n2' },
        set('n2', 22, { v: 'again' }, false), // deleted just before: nothing
      ],
    });
    expect(get('notes').calls).toEqual([`find ${JSON.stringify({ _id: { $in: ['n1', 'n2', 'n3', 'n4', 'n5'] } })}`, 'bulkWrite 5 ordered']);
    expect(Object.fromEntries([...get('notes').docs].map(([id, d]) => [id, { ...d, _id: undefined }]))).toEqual({
      n1: { v: 'newer', _pos: 50 },
      n3: { v: 'created', _pos: 20 },
      n5: { v: 'inserted', w: 1, _pos: 21 },
    });
    expect(await store.getCheckpoint('notes')).toEqual(at(20));
  });

  it('without transactions, writes one guarded bulkWrite per collection and steps over an upsert the guard turned into a duplicate key', async () => {
    const { db, get } = fakeDb();
    get('notes').docs.set('n1', { _id: 'n1', v: 'newer', _pos: 50 });
    const store = new MongoReadStore(lease, db, false);
    await store.commit({ checkpoint: 'notes', position: at(20), ops: [set('n0', 20, { v: 'a' }), set('n1', 20, { v: 'stale' }), set('n2', 20, { v: 'b' })] });
    expect(get('notes').calls).toEqual(['bulkWrite 3 ordered', 'bulkWrite 1 ordered']);
    expect([...get('notes').docs.values()].map((d) => [d._id, d.v])).toEqual([
      ['n1', 'newer'],
      ['n0', 'a'],
      ['n2', 'b'],
    ]);
  });

  it('a rebuild that declared its indexes keeps just those; one that declared none gets the old collection\'s', async () => {
    const { db, get } = fakeDb();
    await get('notes').createIndex({ _org: 1, obsolete: 1 });
    const store = new MongoReadStore(lease, db, false);
    await store.ensureIndexes('notes__r1', ['toolName']);
    await store.swapCollections({ notes: 'notes__r1' }, { name: 'notes', position: at(1) });
    expect(get('notes__r1').declared).not.toContainEqual({ _org: 1, obsolete: 1 });
    get('other__r2').exists = true;
    await get('other').createIndex({ _org: 1, kept: 1 });
    await store.swapCollections({ other: 'other__r2' }, { name: 'other', position: at(2) });
    expect(get('other__r2').declared).toEqual([{ _org: 1, kept: 1 }]);
  });
});
