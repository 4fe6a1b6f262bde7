/**
 * The read store contract: every adapter (SQLite, MongoDB) must pass it. Expected results are
 * MongoDB's semantics, written out by hand for the operator tests and computed with mingo (filter)
 * plus a reference comparator (sort) for the randomized comparison.
 */
import { Query } from 'mingo';
import type { Position } from '@svc/infrastructure/event-store/event-store.port';
import type { Doc, Filter, ListIndexes, ProjectionBatch, ReadStore, Sort, WriteOp } from '@svc/infrastructure/read-store/read-store.port';
import { describeFilterContract } from './read-store-filters.contract';

export interface ReadStoreFixture {
  store: ReadStore;
  /** Another instance over the same storage, as another process would see it. */
  openAnother: () => Promise<ReadStore>;
  /** A batch is all-or-nothing (SQLite; MongoDB with transactions). */
  atomicBatches: boolean;
  close: () => Promise<void>;
  /**
   * Lets the grace period of swapped-out collections pass (MongoDB drops them only once other
   * processes' alias caches cannot name them any more); absent where the swap drops them at once.
   */
  afterRetireGrace?: () => Promise<void>;
  /** How the adapter would run a query, when it can say (SQLite): proves the randomized test exercises pushdown. */
  explain?: (collection: string, filter: Filter, sort?: Sort) => { exactFilter: boolean; sortPushedDown: boolean };
}

const pos = (n: number, prepare = n): Position => ({ commit: BigInt(n), prepare: BigInt(prepare) });
const batch = (checkpoint: string, at: number, ops: WriteOp[]): ProjectionBatch => ({ checkpoint, position: pos(at), ops });
const ids = (docs: Doc[]): string[] => docs.map((d) => d._id as string);

/** Bounded poll: no fixed sleeps, a clear failure instead of a hang. */
async function eventually<T>(read: () => Promise<T>, expected: T, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: last saw ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 20));
    last = await read();
  }
}

/** Small deterministic PRNG (mulberry32), so a failing randomized case reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Reference MongoDB sort order for the values the randomized data uses (scalars, one-level arrays,
 * flat objects): null = missing < numbers < strings < objects < booleans; an array sorts by its
 * smallest element ascending and its largest descending; ties by `_id`.
 */
function referenceCompare(sort: Sort): (a: Doc, b: Doc) => number {
  const rank = (v: unknown): number => {
    if (v === undefined || v === null) return 1;
    if (typeof v === 'number') return 2;
    if (typeof v === 'string') return 3;
    if (typeof v === 'boolean') return 8;
    if (typeof v === 'object' && !Array.isArray(v)) return 4;
    throw new Error(`reference sort does not handle ${JSON.stringify(v)}`);
  };
  const cmp = (x: unknown, y: unknown): number => {
    const r = rank(x) - rank(y);
    if (r !== 0 || rank(x) === 1) return r;
    if (typeof x === 'boolean') return Number(x) - Number(y);
    if (typeof x === 'object') return JSON.stringify(x) < JSON.stringify(y) ? -1 : JSON.stringify(x) > JSON.stringify(y) ? 1 : 0;
    return (x as number | string) < (y as number | string) ? -1 : (x as number | string) > (y as number | string) ? 1 : 0;
  };
  const key = (d: Doc, path: string, dir: number): unknown => {
    let v: unknown = d;
    for (const seg of path.split('.')) v = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Doc)[seg] : undefined;
    if (!Array.isArray(v)) return v;
    if (v.length === 0) throw new Error('reference sort does not handle empty arrays');
    return v.reduce((best, e) => (cmp(e, best) * dir < 0 ? e : best));
  };
  const keys: [string, number][] = [...Object.entries(sort), ['_id', 1]];
  return (a, b) => {
    for (const [path, dir] of keys) {
      const c = cmp(key(a, path, dir), key(b, path, dir));
      if (c !== 0) return c * dir;
    }
    return 0;
  };
}

/** The List order of most resources (`create_time desc`, then name), as projections declare it (listIndexes). */
export const NEWEST_FIRST_LIST: ListIndexes['order'] = [
  { path: 'createTime', direction: -1 },
  { path: 'name', direction: 1 },
  { path: '_id', direction: 1 },
  { path: 'deleteTime', direction: 1 },
];

export function describeReadStoreContract(name: string, make: () => Promise<ReadStoreFixture>): void {
  describe(`ReadStore contract: ${name}`, () => {
    let fixture: ReadStoreFixture;
    let store: ReadStore;
    let seq = 0;
    /** A fresh collection name per test: the fixture is shared to keep the suite fast. */
    const fresh = (prefix: string): string => `${prefix}_${++seq}`;

    beforeAll(async () => {
      fixture = await make();
      store = fixture.store;
    });
    afterAll(async () => {
      await fixture?.close();
    });

    describe('writes', () => {
      it('upserts with $set/$setOnInsert/$push and updates with $set/$unset/$push, setting _pos', async () => {
        const c = fresh('w');
        const id = 'acme|things/a';
        await store.commit(
          batch('w1', 10, [
            {
              op: 'update',
              collection: c,
              id,
              pos: 10,
              upsert: true,
              update: {
                $set: { _org: 'acme', name: 'things/a', labels: { env: 'prod' } },
                $setOnInsert: { createTime: 't1' },
                $push: { history: 'created' },
              },
            },
          ]),
        );
        expect(await store.collection(c).findOne({ _id: id })).toEqual({
          _id: id,
          _org: 'acme',
          name: 'things/a',
          labels: { env: 'prod' },
          createTime: 't1',
          history: ['created'],
          _pos: 10,
        });
        await store.commit(
          batch('w1', 11, [
            {
              op: 'update',
              collection: c,
              id,
              pos: 11,
              upsert: true,
              update: {
                $set: { 'labels.team': 'core' },
                $unset: { name: '' },
                $setOnInsert: { createTime: 't2' },
                $push: { history: 'updated' },
              },
            },
          ]),
        );
        expect(await store.collection(c).findOne({ _id: id })).toEqual({
          _id: id,
          _org: 'acme',
          labels: { env: 'prod', team: 'core' },
          createTime: 't1',
          history: ['created', 'updated'],
          _pos: 11,
        });
      });

      it('applies top-level $set, $unset and $setOnInsert together, $setOnInsert only when inserting', async () => {
        const c = fresh('w');
        const id = 'acme|top';
        const update = (at: number, set: Doc, unset: string[]): WriteOp => ({
          op: 'update',
          collection: c,
          id,
          pos: at,
          upsert: true,
          update: { $set: set, $unset: Object.fromEntries(unset.map((f) => [f, ''])), $setOnInsert: { createTime: `t${at}`, origin: { at } } },
        });
        await store.commit(batch('w-top', 1, [update(1, { _org: 'acme', a: 1, b: { x: [1, 2] } }, ['never'])]));
        expect(await store.collection(c).findOne({ _id: id })).toEqual({ _id: id, _org: 'acme', a: 1, b: { x: [1, 2] }, createTime: 't1', origin: { at: 1 }, _pos: 1 });
        await store.commit(batch('w-top', 2, [update(2, { a: null, c: 'new' }, ['b', 'never'])]));
        expect(await store.collection(c).findOne({ _id: id })).toEqual({ _id: id, _org: 'acme', a: null, c: 'new', createTime: 't1', origin: { at: 1 }, _pos: 2 });
      });

      it('applies $inc, $addToSet and $pull', async () => {
        const c = fresh('w');
        const id = 'acme|n';
        await store.commit(
          batch('w2', 1, [
            { op: 'update', collection: c, id, pos: 1, upsert: true, update: { $set: { _org: 'acme', n: 1, tags: ['a', 'b'] } } },
            { op: 'update', collection: c, id, pos: 2, update: { $inc: { n: 2 }, $addToSet: { tags: 'a' } } },
            { op: 'update', collection: c, id, pos: 3, update: { $addToSet: { tags: 'c' }, $set: { 'labels.env': 'dev' } } },
            { op: 'update', collection: c, id, pos: 4, update: { $pull: { tags: 'b' } } },
          ]),
        );
        expect(await store.collection(c).findOne({ _id: id })).toEqual({ _id: id, _org: 'acme', n: 3, tags: ['a', 'c'], labels: { env: 'dev' }, _pos: 4 });
      });

      it('guards by position: re-applying a batch changes nothing, an older or equal position is ignored', async () => {
        const c = fresh('w');
        const id = 'acme|g';
        const b = batch('w3', 20, [
          { op: 'update', collection: c, id, pos: 20, upsert: true, update: { $set: { _org: 'acme', v: 'twenty' }, $push: { log: 20 } } },
        ]);
        await store.commit(b);
        const once = await store.collection(c).findOne({ _id: id });
        await store.commit(b);
        expect(await store.collection(c).findOne({ _id: id })).toEqual(once);
        await store.commit(batch('w3', 20, [{ op: 'update', collection: c, id, pos: 19, update: { $set: { v: 'older' }, $push: { log: 19 } } }]));
        await store.commit(batch('w3', 20, [{ op: 'update', collection: c, id, pos: 20, upsert: true, update: { $set: { v: 'same' } } }]));
        expect(await store.collection(c).findOne({ _id: id })).toEqual({ _id: id, _org: 'acme', v: 'twenty', log: [20], _pos: 20 });
      });

      it('does not create a document for an update without upsert', async () => {
        const c = fresh('w');
        await store.commit(batch('w4', 1, [{ op: 'update', collection: c, id: 'acme|none', pos: 1, update: { $set: { _org: 'acme', v: 1 } } }]));
        expect(await store.collection(c).findOne({ _id: 'acme|none' })).toBeNull();
        expect(await store.collection(c).countDocuments({})).toBe(0);
      });

      it('inserts only when the _id is absent, and deletes', async () => {
        const c = fresh('w');
        await store.commit(batch('w5', 1, [{ op: 'insert', collection: c, doc: { _id: 'acme|e1', _org: 'acme', v: 1 } }]));
        await store.commit(batch('w5', 2, [{ op: 'insert', collection: c, doc: { _id: 'acme|e1', _org: 'acme', v: 2 } }]));
        expect(await store.collection(c).find({})).toEqual([{ _id: 'acme|e1', _org: 'acme', v: 1 }]);
        await store.commit(
          batch('w5', 3, [
            { op: 'delete', collection: c, id: 'acme|e1' },
            { op: 'delete', collection: c, id: 'acme|never' },
          ]),
        );
        expect(await store.collection(c).find({})).toEqual([]);
      });

      it('commits the checkpoint with the ops, keeping both parts of the position', async () => {
        const c = fresh('w');
        expect(await store.getCheckpoint('cp-never')).toBeNull();
        await store.commit({
          checkpoint: 'cp-a',
          position: pos(100, 99),
          ops: [{ op: 'update', collection: c, id: 'acme|x', pos: 100, upsert: true, update: { $set: { _org: 'acme' } } }],
        });
        expect(await store.getCheckpoint('cp-a')).toEqual(pos(100, 99));
        await store.commit(batch('cp-a', 101, [])); // events that produced no op still advance the checkpoint
        expect(await store.getCheckpoint('cp-a')).toEqual(pos(101));
        const listed = (await store.listCheckpoints()).find((r) => r.name === 'cp-a');
        expect(listed?.position).toEqual(pos(101));
        expect(new Date(listed?.updatedAt ?? '').toString()).not.toBe('Invalid Date');
        await store.deleteCheckpoint('cp-a');
        expect(await store.getCheckpoint('cp-a')).toBeNull();
        expect((await store.listCheckpoints()).some((r) => r.name === 'cp-a')).toBe(false);
      });

      it('applies nothing and keeps the checkpoint when an op fails midway (atomic backends)', async () => {
        if (!fixture.atomicBatches) return; // MongoDB without transactions: guarded writes, not atomic
        const c = fresh('w');
        await store.commit(batch('cp-atomic', 5, []));
        const failing = batch('cp-atomic', 6, [
          { op: 'update', collection: c, id: 'acme|first', pos: 6, upsert: true, update: { $set: { _org: 'acme', v: 1 } } },
          { op: 'insert', collection: c, doc: { _id: 'acme|second', _org: 'acme' } },
          { op: 'update', collection: c, id: 'acme|first', pos: 7, upsert: true, update: { $bogus: { v: 2 } } },
        ]);
        await expect(store.commit(failing)).rejects.toThrow();
        expect(await store.collection(c).find({})).toEqual([]);
        expect(await store.getCheckpoint('cp-atomic')).toEqual(pos(5));
      });

      describe('commitMany', () => {
        const upsert = (collection: string, id: string, at: number, set: Doc): WriteOp => ({
          op: 'update',
          collection,
          id,
          pos: at,
          upsert: true,
          update: { $set: { _org: 'acme', ...set } },
        });

        it('applies the batches in order, each advancing its own checkpoint (the last one wins for a shared name)', async () => {
          const [c1, c2] = [fresh('m'), fresh('m')];
          const [cpA, cpB] = [fresh('cp-many'), fresh('cp-many')];
          const batches: ProjectionBatch[] = [
            batch(cpA, 10, [upsert(c1, 'acme|x', 10, { v: 1 }), { op: 'insert', collection: c2, doc: { _id: 'acme|log1', _org: 'acme', at: 10 } }]),
            batch(cpB, 11, [
              { op: 'update', collection: c1, id: 'acme|x', pos: 11, update: { $set: { v: 2 }, $push: { seen: 'b' } } },
              upsert(c1, 'acme|y', 11, { v: 'y' }),
            ]),
            batch(cpA, 12, [{ op: 'delete', collection: c1, id: 'acme|y' }, { op: 'insert', collection: c2, doc: { _id: 'acme|log1', _org: 'acme', at: 12 } }]),
            batch(fresh('cp-many'), 13, []),
          ];
          await store.commitMany(batches);
          expect(await store.collection(c1).find({})).toEqual([{ _id: 'acme|x', _org: 'acme', v: 2, seen: ['b'], _pos: 11 }]);
          expect(await store.collection(c2).find({})).toEqual([{ _id: 'acme|log1', _org: 'acme', at: 10 }]);
          expect(await store.getCheckpoint(cpA)).toEqual(pos(12));
          expect(await store.getCheckpoint(cpB)).toEqual(pos(11));
          expect(await store.getCheckpoint(batches[3].checkpoint)).toEqual(pos(13)); // no ops, still advances

          await store.commitMany(batches); // redelivery
          expect(await store.collection(c1).find({})).toEqual([{ _id: 'acme|x', _org: 'acme', v: 2, seen: ['b'], _pos: 11 }]);
          expect(await store.collection(c2).find({})).toEqual([{ _id: 'acme|log1', _org: 'acme', at: 10 }]);
        });

        it("advances every projection of a live page to the page's position, and each one's own when they differ", async () => {
          const c = fresh('m');
          const names = Array.from({ length: 23 }, () => fresh('cp-page'));
          const behind = fresh('cp-page-behind');
          await store.commitMany([batch(behind, 3, [])]);
          await store.commitMany([...names.map((name, i) => batch(name, 40, i === 5 ? [upsert(c, 'acme|n', 40, { v: 1 })] : [])), batch(behind, 38, [])]);
          for (const name of names) expect(await store.getCheckpoint(name)).toEqual(pos(40));
          expect(await store.getCheckpoint(behind)).toEqual(pos(38));
          await store.commitMany(names.map((name) => batch(name, 41, [])));
          for (const name of names) expect(await store.getCheckpoint(name)).toEqual(pos(41));
          expect((await store.listCheckpoints()).filter((r) => names.includes(r.name))).toHaveLength(23);
        });

        it('does nothing for an empty list', async () => {
          const cp = fresh('cp-many-empty');
          await store.commitMany([]);
          expect(await store.getCheckpoint(cp)).toBeNull();
        });

        it('applies nothing of any batch and keeps every checkpoint when an op fails (atomic backends)', async () => {
          if (!fixture.atomicBatches) return;
          const c = fresh('m');
          const [cpA, cpB] = [fresh('cp-many-atomic'), fresh('cp-many-atomic')];
          await store.commitMany([batch(cpA, 1, [upsert(c, 'acme|kept', 1, { v: 1 })]), batch(cpB, 1, [])]);
          const failing = [
            batch(cpA, 5, [upsert(c, 'acme|new', 5, { v: 5 }), { op: 'update', collection: c, id: 'acme|kept', pos: 5, update: { $set: { v: 5 } } }]),
            batch(cpB, 6, [upsert(c, 'acme|other', 6, {}), { op: 'update', collection: c, id: 'acme|kept', pos: 7, update: { $bogus: { v: 2 } } }]),
          ] satisfies ProjectionBatch[];
          await expect(store.commitMany(failing)).rejects.toThrow();
          expect(await store.collection(c).find({})).toEqual([{ _id: 'acme|kept', _org: 'acme', v: 1, _pos: 1 }]);
          expect(await store.getCheckpoint(cpA)).toEqual(pos(1));
          expect(await store.getCheckpoint(cpB)).toEqual(pos(1));
        });
      });
    });

    describe('queries', () => {
      const acme: Doc[] = [
        {
          _id: 'acme|a',
          _org: 'acme',
          name: 'a',
          n: 1,
          s: 'apple',
          b: true,
          tags: ['x', 'y'],
          nested: { level: 1, label: 'Low' },
          items: [
            { k: 'p', v: 1 },
            { k: 'q', v: 5 },
          ],
        },
        { _id: 'acme|b', _org: 'acme', name: 'b', n: 5, s: 'Banana', b: false, tags: ['y'], nested: { level: 3, label: 'high' }, items: [{ k: 'p', v: 7 }] },
        { _id: 'acme|c', _org: 'acme', name: 'c', n: 10, s: 'cherry', tags: [], nested: { level: null } },
        { _id: 'acme|d', _org: 'acme', name: 'd', n: null, s: 'date', b: true },
        { _id: 'acme|e', _org: 'acme', name: 'e', n: '7', s: 'Elder' },
        { _id: 'acme|f', _org: 'acme', name: 'f', s: 'fig' },
      ];
      const globex: Doc[] = [{ _id: 'globex|a', _org: 'globex', name: 'a', n: 1, s: 'apple', b: true }];
      const paths = ['name', 'n', 's', 'b', 'tags', 'nested.level', 'nested.label', 'items.v'];
      let plain: string;
      let indexed: string;

      beforeAll(async () => {
        plain = fresh('q_plain');
        indexed = fresh('q_indexed');
        await store.ensureIndexes(indexed, paths);
        const ops = (collection: string): WriteOp[] => [...acme, ...globex].map((doc) => ({ op: 'insert', collection, doc: doc as Doc & { _id: string } }));
        await store.commit(batch('q', 1, [...ops(plain), ...ops(indexed)]));
      });

      const cases: [string, Filter, string[]][] = [
        ['implicit $eq', { n: 5 }, ['b']],
        ['$eq', { n: { $eq: 1 } }, ['a']],
        ['$ne matches missing, null and other types', { n: { $ne: 5 } }, ['a', 'c', 'd', 'e', 'f']],
        ['$gt stays within numbers', { n: { $gt: 1 } }, ['b', 'c']],
        ['$gte', { n: { $gte: 5 } }, ['b', 'c']],
        ['$lt', { n: { $lt: 10 } }, ['a', 'b']],
        ['$lte', { n: { $lte: 10 } }, ['a', 'b', 'c']],
        ['range', { n: { $gt: 1, $lt: 10 } }, ['b']],
        ['$gt on strings stays within strings', { n: { $gt: '5' } }, ['e']],
        ['$lt on strings stays within strings', { s: { $lt: 'c' } }, ['a', 'b', 'e']],
        ['$in', { n: { $in: [1, 10] } }, ['a', 'c']],
        ['$in with null', { n: { $in: [null] } }, ['d', 'f']],
        ['$in with strings', { s: { $in: ['fig', 'date', 'nope'] } }, ['d', 'f']],
        ['$nin', { n: { $nin: [1, 5] } }, ['c', 'd', 'e', 'f']],
        ['null matches null and missing', { n: null }, ['d', 'f']],
        ['$exists false', { n: { $exists: false } }, ['f']],
        ['$exists true includes null', { n: { $exists: true } }, ['a', 'b', 'c', 'd', 'e']],
        ['boolean true', { b: true }, ['a', 'd']],
        ['boolean false', { b: false }, ['b']],
        ['$ne boolean', { b: { $ne: true } }, ['b', 'c', 'e', 'f']],
        ['boolean missing', { b: { $exists: false } }, ['c', 'e', 'f']],
        ['dotted path', { 'nested.level': 3 }, ['b']],
        ['dotted path range', { 'nested.level': { $gte: 1 } }, ['a', 'b']],
        ['dotted path null or missing', { 'nested.level': null }, ['c', 'd', 'e', 'f']],
        ['dotted path string', { 'nested.label': 'high' }, ['b']],
        ['array contains', { tags: 'y' }, ['a', 'b']],
        ['$elemMatch on scalars', { tags: { $elemMatch: { $eq: 'x' } } }, ['a']],
        ['$elemMatch on objects', { items: { $elemMatch: { k: 'p', v: { $gt: 3 } } } }, ['b']],
        ['dotted path into an array of objects', { 'items.v': 5 }, ['a']],
        ['$regex is case sensitive', { s: { $regex: '^b' } }, []],
        ['$regex with $options i', { s: { $regex: '^b', $options: 'i' } }, ['b']],
        ['$regex unanchored', { s: { $regex: 'an' } }, ['b']],
        ['$not', { s: { $not: { $regex: '^[a-c]' } } }, ['b', 'd', 'e', 'f']],
        ['$or', { $or: [{ n: 1 }, { b: false }] }, ['a', 'b']],
        ['$and', { $and: [{ n: { $gte: 1 } }, { n: { $lte: 5 } }] }, ['a', 'b']],
        ['$nor', { $nor: [{ b: true }, { n: { $exists: false } }] }, ['b', 'c', 'e']],
        ['_id', { _id: 'acme|c' }, ['c']],
        ['_id $in', { _id: { $in: ['acme|a', 'acme|e', 'globex|a'] } }, ['a', 'e']],
        ['string range on a sorted field', { name: { $gt: 'c' } }, ['d', 'e', 'f']],
      ];

      it.each(cases)('%s', async (_label, filter, expected) => {
        const want = expected.map((x) => `acme|${x}`);
        for (const c of [plain, indexed]) {
          expect(ids(await store.collection(c).find({ _org: 'acme', ...filter }))).toEqual(want);
          expect(await store.collection(c).countDocuments({ _org: 'acme', ...filter })).toBe(want.length);
        }
      });

      it('scopes by organization', async () => {
        for (const c of [plain, indexed]) {
          expect(ids(await store.collection(c).find({ _org: 'globex' }))).toEqual(['globex|a']);
          expect(ids(await store.collection(c).find({ _org: 'acme', name: 'a' }))).toEqual(['acme|a']);
          expect(ids(await store.collection(c).find({ name: 'a' }))).toEqual(['acme|a', 'globex|a']);
          expect(await store.collection(c).countDocuments({ _org: 'acme' })).toBe(6);
          expect(await store.collection(c).countDocuments({ _org: 'initech' })).toBe(0);
        }
      });

      it('finds across organizations by a path declared for cross-organization lookups, declared before or after the documents', async () => {
        const c = fresh('crossorg');
        const doc = (org: string, name: string, team: string, pos: number): WriteOp => ({
          op: 'update', collection: c, id: `${org}|${name}`, pos, upsert: true, update: { $set: { _org: org, name, details: { team } } },
        });
        await store.ensureIndexes(c, ['name'], undefined, ['details.team']);
        await store.commit(batch(c, 1, [doc('acme', 'a', 'T1', 1), doc('globex', 'b', 'T1', 1), doc('initech', 'c', 'T2', 1)]));
        expect(ids(await store.collection(c).find({ 'details.team': 'T1' }))).toEqual(['acme|a', 'globex|b']);
        expect(ids(await store.collection(c).find({ $or: [{ 'details.team': 'T2' }, { 'details.other': 'T2' }] }))).toEqual(['initech|c']);
        // Declared again, or as a plain path, it stays cross-organization; per organization it still filters.
        await store.ensureIndexes(c, ['name', 'details.team']);
        expect(ids(await store.collection(c).find({ _org: 'globex', 'details.team': 'T1' }))).toEqual(['globex|b']);
        const later = fresh('crossorg');
        await store.commit(batch(later, 1, [doc('acme', 'a', 'T9', 1)].map((op) => ({ ...op, collection: later }))));
        await store.ensureIndexes(later, ['name'], undefined, ['details.team']);
        expect(ids(await store.collection(later).find({ 'details.team': 'T9' }))).toEqual(['acme|a']);
      });

      const sorts: [string, Sort, string[]][] = [
        ['null and missing first ascending, numbers before strings', { n: 1 }, ['d', 'f', 'a', 'b', 'c', 'e']],
        ['descending, ties by _id', { n: -1 }, ['e', 'c', 'b', 'a', 'd', 'f']],
        ['booleans descending then a second key', { b: -1, name: 1 }, ['a', 'd', 'b', 'c', 'e', 'f']],
        ['dotted path descending then a descending tie-breaker', { 'nested.level': -1, name: -1 }, ['b', 'a', 'f', 'e', 'd', 'c']],
        ['strings by code point (uppercase first)', { s: 1 }, ['b', 'e', 'a', 'c', 'd', 'f']],
      ];

      it.each(sorts)('sorts: %s', async (_label, sort, expected) => {
        for (const c of [plain, indexed]) {
          expect(ids(await store.collection(c).find({ _org: 'acme' }, { sort }))).toEqual(expected.map((x) => `acme|${x}`));
        }
      });

      it('limits, finds one, and projects', async () => {
        for (const c of [plain, indexed]) {
          const coll = store.collection(c);
          expect(ids(await coll.find({ _org: 'acme' }, { sort: { name: -1 }, limit: 2 }))).toEqual(['acme|f', 'acme|e']);
          expect(ids(await coll.find({ _org: 'acme', b: true }, { sort: { name: -1 }, limit: 1 }))).toEqual(['acme|d']);
          expect((await coll.findOne({ _org: 'acme' }, { sort: { n: -1 } }))?._id).toBe('acme|e');
          expect(await coll.findOne({ _org: 'acme', _id: 'acme|zzz' })).toBeNull();
          expect(await coll.find({ _org: 'acme', name: { $in: ['a', 'b'] } }, { projection: { name: 1 } })).toEqual([
            { _id: 'acme|a', name: 'a' },
            { _id: 'acme|b', name: 'b' },
          ]);
          expect(await coll.findOne({ _id: 'acme|a' }, { projection: { tags: 0, items: 0, nested: 0, s: 0 } })).toEqual({
            _id: 'acme|a',
            _org: 'acme',
            name: 'a',
            n: 1,
            b: true,
          });
          expect(await coll.findOne({ _id: 'acme|a' }, { projection: { 'nested.label': 1, _id: 0 } })).toEqual({ nested: { label: 'Low' } });
        }
      });

      it('answers an unknown collection with nothing', async () => {
        expect(await store.collection('never_written').find({ _org: 'acme' })).toEqual([]);
        expect(await store.collection('never_written').findOne({})).toBeNull();
        expect(await store.collection('never_written').countDocuments({})).toBe(0);
      });

      it('reads one document by _id, optionally checking _org, as MongoDB would', async () => {
        for (const c of [plain, indexed]) {
          const coll = store.collection(c);
          const a = acme[0];
          expect(await coll.findOne({ _id: 'acme|a' })).toEqual(a);
          expect(await coll.find({ _id: 'acme|a' })).toEqual([a]);
          expect(await coll.findOne({ _id: 'acme|a', _org: 'acme' })).toEqual(a);
          expect(await coll.findOne({ _org: 'acme', _id: 'acme|a' })).toEqual(a);
          expect(await coll.findOne({ _id: 'acme|a', _org: 'globex' })).toBeNull();
          expect(await coll.find({ _id: 'acme|a', _org: 'globex' })).toEqual([]);
          expect(await coll.findOne({ _id: 'acme|a', _org: { $in: ['globex', 'acme'] } })).toEqual(a);
          expect(await coll.findOne({ _id: 'acme|a', _org: null })).toBeNull();
          expect(await coll.findOne({ _id: 'acme|nope' })).toBeNull();
          expect(await coll.find({ _id: 'acme|nope', _org: 'acme' })).toEqual([]);
          expect(await coll.find({ _id: 'acme|b' }, { sort: { n: -1 }, limit: 5, projection: { name: 1, _id: 0 } })).toEqual([{ name: 'b' }]);
          expect(await coll.countDocuments({ _id: 'acme|b', _org: 'acme' })).toBe(1);
        }
      });

      it('matches _org by MongoDB rules in a read by _id when a document holds a non-string _org', async () => {
        const c = fresh('q_org');
        await store.commit(
          batch('q_org', 1, [
            { op: 'insert', collection: c, doc: { _id: 'odd|1', _org: ['acme', 'globex'], v: 1 } },
            { op: 'insert', collection: c, doc: { _id: 'odd|2', v: 2 } },
          ]),
        );
        const coll = store.collection(c);
        expect(await coll.findOne({ _id: 'odd|1', _org: 'globex' })).toEqual({ _id: 'odd|1', _org: ['acme', 'globex'], v: 1 });
        expect(await coll.findOne({ _id: 'odd|1', _org: 'initech' })).toBeNull();
        expect(await coll.findOne({ _id: 'odd|2', _org: null })).toEqual({ _id: 'odd|2', v: 2 });
        expect(await coll.findOne({ _id: 'odd|2', _org: 'acme' })).toBeNull();
      });
    });

    describeFilterContract({ fixture: () => fixture, fresh });

    describe('indexed and unindexed collections agree (randomized)', () => {
      const random = rng(20240611);
      const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
      const MISSING = Symbol('missing');
      const kinds = ['alpha', 'beta', 'gamma', 'Delta'];

      function makeDoc(i: number): Doc & { _id: string } {
        const org = i % 5 === 0 ? 'globex' : 'acme';
        const doc: Doc & { _id: string } = { _id: `${org}|items/${String(i).padStart(4, '0')}`, _org: org, name: `items/${String(i).padStart(4, '0')}` };
        const set = (key: string, v: unknown): void => {
          if (v !== MISSING) doc[key] = v;
        };
        set('kind', pick([...kinds, MISSING]));
        set('score', pick([-3, 0, 1, 2.5, 7, 7, 12, 'x', 'y', '10', null, MISSING, true, false]));
        set('rank', pick([0, 1, 2, 3, 5, 8, 13, 21, 'r', null, MISSING]));
        set('flag', pick([true, false, MISSING]));
        set('createTime', pick([`2024-01-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00Z`, `2023-12-${String(1 + (i % 9)).padStart(2, '0')}T10:00:00Z`, MISSING]));
        set('meta', pick([{ level: pick([1, 2, 3, null]), tag: pick(['t1', 't2']) }, 'flat', MISSING, { tag: 't3' }]));
        set('tags', pick([[], ['a'], ['a', 'b'], ['c'], MISSING]));
        set('deleteTime', random() < 0.2 ? '2024-02-01T00:00:00Z' : MISSING);
        return doc;
      }

      function makeFilter(): Filter {
        const org = pick(['acme', 'globex']);
        const num = pick([-1, 0, 1, 2.5, 5, 7, 10]);
        const str = pick(['x', 'r', '10', 'beta']);
        const parts: Filter[] = [
          { kind: pick(kinds) },
          { kind: { $in: [pick(kinds), pick(kinds)] } },
          { kind: { $nin: [pick(kinds)] } },
          { kind: { $ne: pick(kinds) } },
          { score: { [pick(['$gt', '$gte', '$lt', '$lte'])]: num } },
          { score: { [pick(['$gt', '$gte', '$lt', '$lte'])]: str } },
          { score: pick([num, str, true, false, null]) },
          { score: { $ne: pick([num, str, true, null]) } },
          { score: { $exists: pick([true, false]) } },
          { rank: { $gte: pick([0, 2, 5]), $lt: pick([5, 13, 30]) } },
          { rank: { $in: [pick([0, 1, 8]), pick(['r', null])] } },
          { flag: pick([true, false]) },
          { flag: { $ne: true } },
          { 'meta.level': { [pick(['$gt', '$lte'])]: pick([1, 2]) } },
          { 'meta.level': null },
          { 'meta.level': { $exists: true } },
          { tags: pick(['a', 'b', 'c']) },
          { deleteTime: { $exists: false } },
          { createTime: { $gte: '2024-01-10' } },
          { name: { $regex: pick(['^items/00', '3$', 'ITEMS/01']), $options: pick(['', 'i']) } },
          { $or: [{ kind: pick(kinds) }, { rank: { $lt: 3 } }] },
          { $nor: [{ flag: true }, { score: { $gt: 2 } }] },
          { $and: [{ rank: { $gt: 1 } }, { rank: { $lt: 20 } }] },
        ];
        const filter: Filter = { _org: org };
        const n = Math.floor(random() * 3);
        for (let i = 0; i < n; i++) Object.assign(filter, pick(parts));
        return filter;
      }

      const sorts: (Sort | undefined)[] = [
        undefined,
        { createTime: -1, name: 1 },
        { name: 1 },
        { name: -1 },
        { rank: 1 },
        { rank: -1, kind: 1 },
        { score: 1 },
        { score: -1, createTime: 1 },
        { 'meta.level': -1 },
        { kind: 1, rank: -1, name: 1 },
        { flag: 1, name: -1 },
      ];

      it('returns the same documents in the same order as mingo with a reference sort, with and without ensureIndexes', async () => {
        const plain = fresh('r_plain');
        const indexed = fresh('r_indexed');
        // With List indexes, as the projections declare them: the equality paths' indexes continue with the order.
        const list: ListIndexes = { order: NEWEST_FIRST_LIST, paths: ['kind', 'flag', 'tags', 'score'] };
        await store.ensureIndexes(indexed, ['kind', 'score', 'rank', 'flag', 'createTime', 'meta.level', 'tags', 'deleteTime', 'name'], list);
        let docs = Array.from({ length: 500 }, (_, i) => makeDoc(i));
        const write = async (at: number, ds: (Doc & { _id: string })[]): Promise<void> => {
          const ops = (collection: string): WriteOp[] =>
            ds.map((doc) => ({ op: 'update', collection, id: doc._id, pos: at, upsert: true, update: { $set: stripId(doc) } }));
          await store.commit(batch('r', at, [...ops(plain), ...ops(indexed)]));
        };
        const stripId = ({ _id, ...rest }: Doc): Doc => rest;
        await write(1, docs);
        docs = docs.map((d) => ({ ...d, _pos: 1 }));

        const plans = { inSql: 0, mingo: 0 };
        const check = async (round: number): Promise<void> => {
          for (let i = 0; i < 120; i++) {
            const filter = makeFilter();
            const sort = pick(sorts);
            const limit = pick([undefined, undefined, 1, 7, 51]);
            const query = new Query(filter, {});
            let expected = docs.filter((d) => query.test(d)).sort(referenceCompare(sort ?? {}));
            if (limit) expected = expected.slice(0, limit);
            const what = `round ${round}: find(${JSON.stringify(filter)}, sort ${JSON.stringify(sort)}, limit ${limit})`;
            const plan = fixture.explain?.(indexed, filter, sort);
            if (plan) plans[plan.exactFilter && plan.sortPushedDown ? 'inSql' : 'mingo']++;
            for (const c of [plain, indexed]) {
              const got = await store.collection(c).find(filter, { sort, limit });
              expect({ what, c, ids: ids(got) }).toEqual({ what, c, ids: ids(expected) });
            }
            expect({ what, count: await store.collection(indexed).countDocuments(filter) }).toEqual({
              what,
              count: docs.filter((d) => query.test(d)).length,
            });
          }
        };
        await check(1);
        if (fixture.explain) {
          // Both paths must be exercised, or agreement proves nothing.
          expect(plans.inSql).toBeGreaterThan(30);
          expect(plans.mingo).toBeGreaterThan(30);
        }
        // Change types under the declared paths (arrays, objects, booleans, nulls) and check again.
        const changed = docs.filter(() => random() < 0.3).map((d): Doc & { _id: string } => ({ ...makeDoc(Number((d.name as string).slice(6))), _pos: 2 }));
        changed.forEach((d, i) => {
          if (i % 7 === 0) d.rank = ['r', 1];
          if (i % 11 === 0) d.kind = { nested: 'object' };
          if (i % 5 === 0) d.createTime = null;
        });
        // $set of a whole document replaces the fields it names: clear the others first, as MongoDB would keep them.
        await store.commit(
          batch('r', 2, [
            ...[plain, indexed].flatMap((collection): WriteOp[] => changed.map((d) => ({ op: 'delete', collection, id: d._id }))),
          ]),
        );
        await write(2, changed.map(({ _pos, ...d }) => d as Doc & { _id: string }));
        const byId = new Map(changed.map((d) => [d._id, d]));
        docs = docs.map((d) => byId.get(d._id) ?? d);
        await check(2);

        // Update documents in place: each $set/$unset touches a random subset of the fields, so the
        // stored row changes in some materialized columns and not in others (types included).
        const fields = ['kind', 'score', 'rank', 'flag', 'createTime', 'meta', 'tags', 'deleteTime'];
        const updates: WriteOp[] = [];
        docs = docs.map((d) => {
          if (random() >= 0.4) return d;
          const next = makeDoc(Number((d.name as string).slice(6)));
          const $set: Doc = {};
          const $unset: Record<string, ''> = {};
          for (const field of fields) {
            if (random() < 0.5) continue;
            if (field in next) $set[field] = next[field];
            else $unset[field] = '';
          }
          if (random() < 0.1) $set.tags = pick([['a', 'c'], 'a', { nested: true }]);
          const update = { $set: { ...$set }, ...(Object.keys($unset).length > 0 ? { $unset } : {}) };
          for (const collection of [plain, indexed]) updates.push({ op: 'update', collection, id: d._id, pos: 3, update });
          const updated: Doc & { _id: string } = { ...d, ...$set, _id: d._id, _pos: 3 };
          for (const field of Object.keys($unset)) delete updated[field];
          return updated;
        });
        await store.commit(batch('r', 3, updates));
        await check(3);
      });
    });

    describe('bulk loads', () => {
      /** Ops a rebuild typically produces, including the awkward ones, written to `collection`. */
      const rebuildOps = (collection: string, from: number, to: number): WriteOp[] => {
        const ops: WriteOp[] = [];
        for (let i = from; i < to; i++) {
          const id = `acme|items/${String(i).padStart(4, '0')}`;
          const set = { _org: 'acme', name: `items/${i}`, kind: ['alpha', 'beta', 'gamma'][i % 3], rank: i % 7, createTime: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}` };
          ops.push({ op: 'update', collection, id, pos: i, upsert: true, update: { $set: set, $setOnInsert: { firstPos: i } } });
          if (i % 5 === 0) ops.push({ op: 'update', collection, id, pos: i + 1000, update: { $set: { rank: 100 + i }, $push: { log: 'updated in the same batch' } } });
          if (i % 11 === 0) ops.push({ op: 'update', collection, id: `acme|never-${i}`, pos: i, update: { $set: { _org: 'acme', kind: 'ghost' } } });
          if (i % 13 === 0) ops.push({ op: 'insert', collection, doc: { _id: `acme|log-${i % 3}`, _org: 'acme', kind: 'log', first: i } });
          if (i % 17 === 0) ops.push({ op: 'delete', collection, id });
          if (i % 34 === 0) ops.push({ op: 'update', collection, id, pos: i + 2000, upsert: true, update: { $set: { _org: 'acme', kind: 'reborn' } } });
          if (i % 19 === 0) ops.push({ op: 'update', collection, id, pos: i - 1, update: { $set: { kind: 'older, ignored' } } });
        }
        return ops;
      };
      /** Later pages update documents that earlier pages (or batches) created. */
      const laterOps = (collection: string): WriteOp[] => [
        { op: 'update', collection, id: 'acme|items/0003', pos: 5000, update: { $set: { kind: 'late' }, $unset: { createTime: '' } } },
        { op: 'update', collection, id: 'acme|items/0004', pos: 5001, upsert: true, update: { $set: { rank: -1 } } },
        { op: 'update', collection, id: 'acme|items/9999', pos: 5002, upsert: true, update: { $set: { _org: 'acme', kind: 'alpha', rank: 3 } } },
        { op: 'update', collection, id: 'acme|items/0005', pos: 10, update: { $set: { kind: 'older, ignored' } } },
      ];
      const queries: [Filter, Sort | undefined][] = [
        [{ _org: 'acme' }, undefined],
        [{ _org: 'acme', kind: 'alpha' }, { createTime: -1, name: 1 }],
        [{ _org: 'acme', rank: { $gte: 3 } }, { rank: 1 }],
        [{ _org: 'acme', kind: { $in: ['late', 'reborn', 'log'] } }, { name: -1 }],
        [{ _org: 'acme', createTime: { $exists: false } }, undefined],
      ];
      const answers = async (collection: string): Promise<Doc[][]> =>
        Promise.all(queries.map(([filter, sort]) => store.collection(collection).find(filter, { sort })));

      async function load(reference: string, target: string, at: number): Promise<void> {
        for (const [i, [from, to]] of [
          [0, 40],
          [40, 90],
          [90, 120],
        ].entries()) {
          // The reference gets the same ops through plain commits; the target in bulk pages of two batches.
          await store.commit(batch(`${reference}-cp`, at + i, rebuildOps(reference, from, to)));
          const ops = rebuildOps(target, from, to);
          await store.commitMany([batch(`${target}-cp`, at + i, ops.slice(0, 20)), batch(`${target}-cp`, at + i, ops.slice(20))]);
        }
        await store.commit(batch(`${reference}-cp`, at + 9, laterOps(reference)));
        await store.commitMany([batch(`${target}-cp`, at + 9, laterOps(target))]);
      }

      it('loads a fresh collection to the same documents as plain commits, indexes declared before and after, then swaps it in', async () => {
        const logical = fresh('bulk');
        const target = `${logical}__r1`;
        const reference = fresh('bulk_ref');
        await store.ensureIndexes(reference, ['kind', 'rank', 'createTime', 'name']);
        await store.ensureIndexes(target, ['kind', 'rank']);
        await store.beginBulk(target);
        await store.beginBulk(target); // idempotent
        await load(reference, target, 1);
        await store.ensureIndexes(target, ['createTime', 'name']); // declared once the rows are in
        const expected = await store.collection(reference).find({});
        expect(expected.length).toBeGreaterThan(100);
        expect(await store.collection(target).find({})).toEqual(expected); // readable (if slower) during the load
        expect(await answers(target)).toEqual(await answers(reference));
        await store.endBulk(target);
        await store.endBulk(target); // no longer in a bulk load: nothing to do
        expect(await store.collection(target).find({})).toEqual(expected);
        expect(await answers(target)).toEqual(await answers(reference));
        await store.swapCollections({ [logical]: target }, { name: logical, position: pos(20) });
        expect(await answers(logical)).toEqual(await answers(reference));
        // Live writes after the swap still find the loaded documents.
        await store.commit(batch(logical, 21, [{ op: 'update', collection: logical, id: 'acme|items/0001', pos: 9000, update: { $set: { kind: 'live' } } }]));
        expect((await store.collection(logical).findOne({ _id: 'acme|items/0001' }))?.kind).toBe('live');
      });

      it('keeps updating the documents a collection held before its bulk load began', async () => {
        const reference = fresh('bulk_ref');
        const target = fresh('bulk_nonempty');
        await store.commit(batch('pre', 1, [...rebuildOps(reference, 0, 30), ...rebuildOps(target, 0, 30)]));
        await store.beginBulk(target);
        const later = (c: string): WriteOp[] => [...rebuildOps(c, 20, 60), ...laterOps(c)];
        await store.commit(batch('pre', 2, later(reference)));
        await store.commitMany([batch('pre-bulk', 2, later(target))]);
        await store.endBulk(target);
        expect(await store.collection(target).find({})).toEqual(await store.collection(reference).find({}));
      });

      it('leaves nothing of a failed bulk commit behind and carries on loading', async () => {
        if (!fixture.atomicBatches) return;
        const target = fresh('bulk_fail');
        await store.beginBulk(target);
        const bogus: WriteOp = { op: 'update', collection: target, id: 'acme|a', pos: 3, update: { $bogus: { v: 1 } } };
        await store.commitMany([batch('bf', 1, [{ op: 'insert', collection: target, doc: { _id: 'acme|kept', _org: 'acme', v: 1 } }])]);
        await expect(
          store.commitMany([
            batch('bf', 2, [
              { op: 'update', collection: target, id: 'acme|a', pos: 2, upsert: true, update: { $set: { _org: 'acme', v: 'rolled back' } } },
              { op: 'delete', collection: target, id: 'acme|kept' },
              bogus,
            ]),
          ]),
        ).rejects.toThrow();
        expect(await store.collection(target).find({})).toEqual([{ _id: 'acme|kept', _org: 'acme', v: 1 }]);
        await store.commitMany([
          batch('bf', 3, [
            { op: 'update', collection: target, id: 'acme|a', pos: 2, upsert: true, update: { $set: { _org: 'acme', v: 'again' } } },
            { op: 'update', collection: target, id: 'acme|kept', pos: 4, update: { $set: { v: 2 } } },
          ]),
        ]);
        await store.endBulk(target);
        expect(await store.collection(target).find({})).toEqual([
          { _id: 'acme|a', _org: 'acme', v: 'again', _pos: 2 },
          { _id: 'acme|kept', _org: 'acme', v: 2, _pos: 4 },
        ]);
      });

      it('ends a bulk load still open when the swap comes', async () => {
        const logical = fresh('bulk_open');
        const target = `${logical}__r1`;
        const reference = fresh('bulk_ref');
        await store.beginBulk(target);
        await store.ensureIndexes(target, ['kind', 'rank', 'createTime', 'name']);
        await store.ensureIndexes(reference, ['kind', 'rank', 'createTime', 'name']);
        await load(reference, target, 1);
        await store.swapCollections({ [logical]: target }, { name: logical, position: pos(5) });
        expect(await answers(logical)).toEqual(await answers(reference));
        await store.endBulk(target); // the swap ended it already
        expect(await answers(logical)).toEqual(await answers(reference));
      });

      it('refuses a collection that is served under an alias', async () => {
        const logical = fresh('bulk_live');
        const target = `${logical}__r1`;
        await store.commit(batch('bl', 1, [{ op: 'insert', collection: target, doc: { _id: 'acme|1', _org: 'acme' } }]));
        await store.swapCollections({ [logical]: target }, { name: logical, position: pos(1) });
        await expect(store.beginBulk(target)).rejects.toThrow(/alias/);
        await expect(store.beginBulk(logical)).rejects.toThrow(/alias/);
        expect(ids(await store.collection(logical).find({}))).toEqual(['acme|1']);
      });
    });

    describe('findByIds', () => {
      it('answers documents from several collections in the order asked, null where there is none', async () => {
        const keys = fresh('keys');
        const stamps = fresh('stamps');
        await store.commit(
          batch('ids', 1, [
            { op: 'insert', collection: keys, doc: { _id: 'key|a', _org: 'acme', secret: 'h' } },
            { op: 'insert', collection: stamps, doc: { _id: 'acme|~access', _org: 'acme' } },
          ]),
        );
        expect(
          await store.findByIds([
            { collection: stamps, id: 'acme|~access' },
            { collection: keys, id: 'key|missing' },
            { collection: fresh('never-written'), id: 'x' },
            { collection: keys, id: 'key|a' },
          ]),
        ).toEqual([expect.objectContaining({ _id: 'acme|~access' }), null, null, expect.objectContaining({ _id: 'key|a', secret: 'h' })]);
        expect(await store.findByIds([])).toEqual([]);
      });

      it('sees what another instance committed since, new collections and swaps included', async () => {
        const keys = fresh('keys');
        const other = await fixture.openAnother();
        try {
          await store.commit(batch('ids', 1, [{ op: 'insert', collection: keys, doc: { _id: 'key|a', _org: 'acme', v: 1 } }]));
          expect(await other.findByIds([{ collection: keys, id: 'key|a' }])).toEqual([expect.objectContaining({ v: 1 })]);
          await store.commit(batch('ids', 2, [{ op: 'update', collection: keys, id: 'key|a', pos: 2, update: { $set: { v: 2 } } }]));
          const late = fresh('late');
          await store.commit(batch('late', 1, [{ op: 'insert', collection: late, doc: { _id: 'acme|1', _org: 'acme' } }]));
          expect(await other.findByIds([{ collection: keys, id: 'key|a' }, { collection: late, id: 'acme|1' }])).toEqual([
            expect.objectContaining({ v: 2 }),
            expect.objectContaining({ _id: 'acme|1' }),
          ]);
          await store.commit(batch(`${keys}-rebuild`, 3, [{ op: 'insert', collection: `${keys}__v2`, doc: { _id: 'key|a', _org: 'acme', v: 3 } }]));
          await store.swapCollections({ [keys]: `${keys}__v2` }, { name: keys, position: pos(3) });
          await eventually(async () => (await other.findByIds([{ collection: keys, id: 'key|a' }]))[0]?.v, 3, 'the other instance to see the swap');
        } finally {
          await other.close();
        }
      });
    });

    describe('aliases and rebuilds', () => {
      it('swaps logical names to rebuilt collections for this and other instances, then drops the old ones', async () => {
        const logical = fresh('things');
        const v2 = `${logical}__v2`;
        const v3 = `${logical}__v3`;
        const other = await fixture.openAnother();
        try {
          await store.commit(batch('things', 1, [{ op: 'insert', collection: logical, doc: { _id: 'acme|old', _org: 'acme' } }]));
          await store.ensureIndexes(v2, ['name']);
          await store.commit(batch(`${logical}-rebuild`, 3, [{ op: 'insert', collection: v2, doc: { _id: 'acme|new', _org: 'acme', name: 'n' } }]));
          expect(ids(await other.collection(logical).find({}))).toEqual(['acme|old']);

          await store.swapCollections({ [logical]: v2 }, { name: logical, position: pos(7) });
          expect(ids(await store.collection(logical).find({}))).toEqual(['acme|new']);
          expect(await store.getCheckpoint(logical)).toEqual(pos(7));
          await eventually(async () => ids(await other.collection(logical).find({})), ['acme|new'], 'the other instance to see the swap');

          // Writes through the logical name now land in the new physical collection.
          await store.commit(batch(logical, 8, [{ op: 'insert', collection: logical, doc: { _id: 'acme|after', _org: 'acme' } }]));
          expect(ids(await store.collection(v2).find({}))).toEqual(['acme|after', 'acme|new']);
          expect(ids(await store.collection(logical).find({ name: 'n' }))).toEqual(['acme|new']);

          await store.swapCollections({ [logical]: v3 }, { name: logical, position: pos(9) });
          expect(await store.collection(logical).find({})).toEqual([]);
          await fixture.afterRetireGrace?.();
          expect(await store.collection(v2).find({})).toEqual([]); // dropped by the swap (MongoDB: once its grace has passed)
          await eventually(async () => ids(await other.collection(logical).find({})), [], 'the other instance to see the second swap');
        } finally {
          await other.close();
        }
      });

      it('another instance reading right after a swap sees the old or the new documents, never an emptied collection', async () => {
        const logical = fresh('retire');
        const other = await fixture.openAnother();
        try {
          await store.commit(batch('retire', 1, [{ op: 'insert', collection: logical, doc: { _id: 'acme|old', _org: 'acme' } }]));
          expect(ids(await other.collection(logical).find({}))).toEqual(['acme|old']); // the other instance knows the alias now
          for (const version of ['v2', 'v3']) {
            const target = `${logical}__${version}`;
            await store.commit(batch(`${logical}-rebuild`, 2, [{ op: 'insert', collection: target, doc: { _id: `acme|${version}`, _org: 'acme' } }]));
            await store.swapCollections({ [logical]: target }, { name: logical, position: pos(3) });
            const seen = ids(await other.collection(logical).find({}));
            expect(seen).toHaveLength(1);
            await eventually(async () => ids(await other.collection(logical).find({})), [`acme|${version}`], 'the other instance to see the swap');
          }
        } finally {
          await other.close();
        }
      });

      it('drops a collection', async () => {
        const c = fresh('drop');
        await store.commit(batch('drop', 1, [{ op: 'insert', collection: c, doc: { _id: 'acme|1', _org: 'acme' } }]));
        await store.dropCollection(c);
        expect(await store.collection(c).find({})).toEqual([]);
        await store.dropCollection(c); // idempotent
        await store.commit(batch('drop', 2, [{ op: 'insert', collection: c, doc: { _id: 'acme|2', _org: 'acme' } }]));
        expect(ids(await store.collection(c).find({}))).toEqual(['acme|2']);
      });
    });

    describe('parked events and meta', () => {
      it('parks events, re-parking the same event replaces its record', async () => {
        const proj = fresh('proj');
        const base = { eventType: 'ThingCreated', streamId: 'thing-acme:things/a', parkedAt: '2024-01-01T00:00:00.000Z' };
        await store.park({ ...base, projection: proj, eventId: 'e1', position: pos(5, 4), error: 'boom' });
        await store.park({ ...base, projection: `${proj}_other`, eventId: 'e2', position: pos(6), error: 'bang' });
        await store.park({ ...base, projection: proj, eventId: 'e1', position: pos(5, 4), error: 'boom again' });
        expect(await store.listParked(proj)).toEqual([{ ...base, projection: proj, eventId: 'e1', position: pos(5, 4), error: 'boom again' }]);
        const all = await store.listParked();
        expect(all.filter((p) => p.projection.startsWith(proj)).map((p) => p.eventId)).toEqual(['e1', 'e2']);
        // Unparking removes only that projection's record of the event.
        await store.unpark(proj, 'e1');
        await store.unpark(proj, 'never-parked');
        expect(await store.listParked(proj)).toEqual([]);
        expect((await store.listParked(`${proj}_other`)).map((p) => p.eventId)).toEqual(['e2']);
      });

      it('stores meta values', async () => {
        const key = fresh('meta');
        expect(await store.getMeta(key)).toBeNull();
        await store.putMeta(key, { at: '2024-01-01', pids: [1, 2], nested: { ok: true } });
        expect(await store.getMeta(key)).toEqual({ at: '2024-01-01', pids: [1, 2], nested: { ok: true } });
        await store.putMeta(key, 5);
        expect(await store.getMeta<number>(key)).toBe(5);
        const other = await fixture.openAnother();
        try {
          expect(await other.getMeta(key)).toBe(5);
        } finally {
          await other.close();
        }
      });
    });
  });
}
