/**
 * MongoDB read store over the official driver: a thin mapping of the port onto collections.
 * Logical names resolve to physical collections through `_aliases` (cached for 500 ms, so a swap
 * made by another process is seen within a second). Internal collections: `_checkpoints`,
 * `_parked`, `_meta`, `_aliases`, `_retired` (swapped-out collections waiting to be dropped).
 */
import { transactionParts } from './mongo-transaction-parts';
import {
  type AnyBulkWriteOperation,
  MongoBulkWriteError,
  type MongoClient,
  MongoServerError,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type Filter as MongoFilter,
  type Sort as MongoSort,
  type UpdateFilter,
} from 'mongodb';
import { positionFromString, positionToString, type Position } from '../event-store/event-store.port';
import { leaseMongoClient } from '../stores/mongo-client';
import type {
  CheckpointRecord,
  Doc,
  DocKey,
  FindOptions,
  ListIndexes,
  ParkedEvent,
  ProjectionBatch,
  ReadCollection,
  ReadStore,
  Sort,
  Update,
  WriteOp,
} from './read-store.port';

/** Every collection holds string `_id`s (the driver's default schema would say ObjectId). */
type StoredDoc = Doc & { _id: string };

interface AliasDoc {
  _id: string;
  physical: string;
}
interface CheckpointDoc {
  _id: string;
  position: string;
  updatedAt: string;
}
interface ParkedDoc {
  _id: string;
  projection: string;
  eventId: string;
  eventType: string;
  streamId: string;
  position: string;
  error: string;
  parkedAt: string;
}
interface RetiredDoc {
  _id: string;
  retiredAt: Date;
}
interface MetaDoc {
  _id: string;
  value: unknown;
}

const ALIAS_TTL_MS = 500;
/**
 * A swapped-out collection is dropped this long after the swap: far past every process's alias cache
 * (ALIAS_TTL_MS) and any query that resolved the old alias just before the swap.
 */
export const RETIRE_AFTER_MS = 60_000;
/**
 * Most operations per transaction. MongoDB's production notes advise modifying no more than 1,000
 * documents in one transaction (and a transaction must finish within transactionLifetimeLimitSeconds,
 * 60 s by default); a larger page is committed as several transactions.
 */
export const MAX_TRANSACTION_OPS = 1000;
const DUPLICATE_KEY = 11000;
/** "Transaction numbers are only allowed on a replica set member or mongos". */
const ILLEGAL_OPERATION = 20;
const NAMESPACE_NOT_FOUND = 26;

export interface MongoReadStoreOptions {
  url: string;
  /** Defaults to the database named in the URL (or the driver's default). */
  dbName?: string;
}

export class MongoReadStore implements ReadStore {
  private aliases = new Map<string, string>();
  private aliasesLoadedAt = 0;
  private aliasLoad: Promise<void> | null = null;
  /** Collections in a bulk load (beginBulk .. endBulk) -> paths (and list order) declared meanwhile, indexed at the end. */
  private readonly bulk = new Map<string, { paths: Set<string>; list?: ListIndexes; crossOrg: Set<string> }>();
  private retireTimer: NodeJS.Timeout | null = null;

  /** `create` connects; tests hand in a session source and a Db that behave as the driver's. */
  constructor(
    private readonly lease: { client: Pick<MongoClient, 'startSession'>; release(): Promise<void> },
    private readonly db: Db,
    /** Replica set or mongos: commits run in a transaction. A standalone server uses position guards. */
    private transactions: boolean,
  ) {}

  /** Whether commits run in a MongoDB transaction (replica set or mongos) rather than as guarded writes. */
  get transactional(): boolean {
    return this.transactions;
  }

  static async create(options: MongoReadStoreOptions): Promise<MongoReadStore> {
    const lease = await leaseMongoClient(options.url);
    try {
      const db = lease.client.db(options.dbName);
      const hello = await db.admin().command({ hello: 1 });
      const transactions = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
      const store = new MongoReadStore(lease, db, transactions);
      // Retirements a stopped process left due (its timer went with it).
      await store.dropRetired();
      return store;
    } catch (err) {
      await lease.release();
      throw err;
    }
  }

  // ---------------------------------------------------------------- reads

  collection(name: string): ReadCollection {
    return {
      find: async (filter, options) => {
        const coll = await this.physicalCollection(name);
        return coll.find(filter as MongoFilter<StoredDoc>, findOptions(options ?? {})).toArray();
      },
      findOne: async (filter, options) => {
        const coll = await this.physicalCollection(name);
        return coll.findOne(filter as MongoFilter<StoredDoc>, findOptions(options ?? {}));
      },
      countDocuments: async (filter) => {
        const coll = await this.physicalCollection(name);
        return coll.countDocuments(filter as MongoFilter<StoredDoc>);
      },
    };
  }

  /** One `$in` query per collection, concurrently, instead of one round trip per key. */
  async findByIds(keys: readonly DocKey[]): Promise<Array<Doc | null>> {
    const byCollection = new Map<string, Set<string>>();
    for (const key of keys) {
      let ids = byCollection.get(key.collection);
      if (!ids) byCollection.set(key.collection, (ids = new Set()));
      ids.add(key.id);
    }
    const found = new Map<string, Map<string, Doc>>();
    await Promise.all(
      [...byCollection].map(async ([name, ids]) => {
        const coll = await this.physicalCollection(name);
        const docs = await coll.find({ _id: { $in: [...ids] } }).toArray();
        found.set(name, new Map(docs.map((doc) => [doc._id, doc])));
      }),
    );
    return keys.map((key) => found.get(key.collection)?.get(key.id) ?? null);
  }

  async ensureIndexes(collection: string, paths: string[], list?: ListIndexes, crossOrg: readonly string[] = []): Promise<void> {
    const deferred = this.bulk.get(collection);
    if (deferred) {
      // Built once the documents are in (endBulk), instead of maintained document by document.
      for (const path of paths) deferred.paths.add(path);
      for (const path of crossOrg) deferred.crossOrg.add(path);
      if (list) deferred.list = list;
      return;
    }
    const coll = await this.physicalCollection(collection);
    const across = new Set(crossOrg);
    // A List's equality paths continue with its order (see the port); an index declared earlier
    // without it stays until the collection is rebuilt, and MongoDB picks the better one.
    for (const path of new Set([...paths, ...(list?.paths ?? []), ...across])) {
      if (path === '_org') continue;
      const rest = list?.paths.includes(path) ? list.order.filter((k) => k.path !== path).map((k) => [k.path, k.direction]) : [];
      const lead = across.has(path) ? { [path]: 1, _org: 1 } : { _org: 1, [path]: 1 };
      await coll.createIndex({ ...lead, ...Object.fromEntries(rest) });
    }
    // The unfiltered List: one organization in its default order, read one page at a time instead
    // of sorting the whole organization for every page.
    if (list && list.order.length > 0) await coll.createIndex({ _org: 1, ...Object.fromEntries(list.order.map((k) => [k.path, k.direction])) });
    await coll.createIndex({ _org: 1, _id: 1 });
  }

  // ---------------------------------------------------------------- writes

  async commit(batch: ProjectionBatch): Promise<void> {
    await this.commitMany([batch]);
  }

  async commitMany(batches: ProjectionBatch[]): Promise<void> {
    if (batches.length === 0) return;
    if (this.transactions) {
      try {
        // Several transactions for a large page: a checkpoint commits with the last operations of its
        // batch, so one that committed covers all of its batch; earlier parts are position-guarded and
        // a redelivery after a failure between them re-applies nothing.
        for (const part of transactionParts(batches, MAX_TRANSACTION_OPS)) {
          await this.inTransaction(async (session) => {
            for (const [name, ops] of byCollection(part.ops)) await this.applyInTransaction(name, ops, session);
            for (const [name, position] of part.checkpoints) await this.setCheckpoint(name, position, session);
          });
        }
        return;
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === ILLEGAL_OPERATION)) throw err;
        this.transactions = false; // the topology said otherwise; fall through to guarded writes
      }
    }
    for (const batch of batches) {
      for (const [name, ops] of byCollection(batch.ops)) await this.applyGuarded(name, ops);
      await this.setCheckpoint(batch.checkpoint, batch.position); // last: a crash before it means redelivery, which the guards absorb
    }
  }

  /** MongoDB needs no bulk mode for writing; the indexes declared during the load are built at its end. */
  async beginBulk(physical: string): Promise<void> {
    await this.loadAliases(true);
    if (this.aliases.has(physical) || [...this.aliases.values()].includes(physical)) {
      throw new Error(`collection '${physical}' is served under an alias; a bulk load needs a fresh physical collection`);
    }
    if (!this.bulk.has(physical)) this.bulk.set(physical, { paths: new Set(), crossOrg: new Set() });
  }

  async endBulk(physical: string): Promise<void> {
    const deferred = this.bulk.get(physical);
    if (!deferred) return;
    this.bulk.delete(physical);
    await this.ensureIndexes(physical, [...deferred.paths], deferred.list, [...deferred.crossOrg]);
  }

  /**
   * One collection's operations of a transaction, in order: one read of the positions the updates
   * are guarded by (inside a transaction a failed upsert would abort everything, so the guard is
   * evaluated here, not in the filter), then one ordered bulkWrite.
   */
  private async applyInTransaction(name: string, ops: readonly WriteOp[], session: ClientSession): Promise<void> {
    const coll = await this.physicalCollection(name);
    const updated = [...new Set(ops.flatMap((op) => (op.op === 'update' ? [op.id] : [])))];
    /** Documents that exist, by id, with their `_pos` (null when they have none); as the operations before leave them. */
    const positions = new Map<string, number | null>();
    if (updated.length > 0) {
      for (const doc of await coll.find({ _id: { $in: updated } }, { session, projection: { _pos: 1 } }).toArray()) {
        positions.set(doc._id, typeof doc._pos === 'number' ? doc._pos : null);
      }
    }
    const models: AnyBulkWriteOperation<StoredDoc>[] = [];
    for (const op of ops) {
      if (op.op === 'delete') {
        models.push({ deleteOne: { filter: { _id: op.id } } });
        positions.delete(op.id);
      } else if (op.op === 'insert') {
        models.push(insertIfAbsent(op.doc));
        if (!positions.has(op.doc._id)) positions.set(op.doc._id, null);
      } else {
        const current = positions.get(op.id);
        if (current !== undefined && current !== null && current >= op.pos) continue;
        if (current === undefined && !op.upsert) continue;
        models.push({ updateOne: { filter: { _id: op.id }, update: withPos(op.update, op.pos), upsert: op.upsert ?? false } });
        positions.set(op.id, op.pos);
      }
    }
    if (models.length > 0) await coll.bulkWrite(models, { session, ordered: true });
  }

  /**
   * One collection's operations without a transaction: one ordered bulkWrite whose updates carry
   * their guard in the filter. A guard that filtered out a newer document makes its upsert insert
   * the `_id` again (duplicate key): that operation is done (skipped), and the rest goes on.
   */
  private async applyGuarded(name: string, ops: readonly WriteOp[]): Promise<void> {
    const coll = await this.physicalCollection(name);
    const models = ops.map((op): AnyBulkWriteOperation<StoredDoc> => {
      if (op.op === 'delete') return { deleteOne: { filter: { _id: op.id } } };
      if (op.op === 'insert') return insertIfAbsent(op.doc);
      const guard: MongoFilter<StoredDoc> = { _id: op.id, $or: [{ _pos: { $exists: false } }, { _pos: { $lt: op.pos } }] };
      return { updateOne: { filter: guard, update: withPos(op.update, op.pos), upsert: op.upsert ?? false } };
    });
    let from = 0;
    while (from < models.length) {
      try {
        await coll.bulkWrite(models.slice(from), { ordered: true });
        return;
      } catch (err) {
        const failed = err instanceof MongoBulkWriteError ? [err.writeErrors].flat() : [];
        if (failed.length !== 1 || failed[0].code !== DUPLICATE_KEY) throw err;
        from += failed[0].index + 1;
      }
    }
  }

  private async setCheckpoint(name: string, position: Position, session?: ClientSession): Promise<void> {
    await this.db
      .collection<CheckpointDoc>('_checkpoints')
      .updateOne(
        { _id: name },
        { $set: { position: positionToString(position), updatedAt: new Date().toISOString() } },
        { upsert: true, session },
      );
  }

  async getCheckpoint(name: string): Promise<Position | null> {
    const doc = await this.db.collection<CheckpointDoc>('_checkpoints').findOne({ _id: name });
    return doc ? positionFromString(doc.position) : null;
  }

  async listCheckpoints(): Promise<CheckpointRecord[]> {
    const docs = await this.db.collection<CheckpointDoc>('_checkpoints').find({}).sort({ _id: 1 }).toArray();
    return docs.map((d) => ({ name: d._id, position: positionFromString(d.position), updatedAt: d.updatedAt }));
  }

  async deleteCheckpoint(name: string): Promise<void> {
    await this.db.collection<CheckpointDoc>('_checkpoints').deleteOne({ _id: name });
  }

  async park(event: ParkedEvent): Promise<void> {
    const doc: ParkedDoc = { _id: `${event.projection}|${event.eventId}`, ...event, position: positionToString(event.position) };
    await this.db.collection<ParkedDoc>('_parked').replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async unpark(projection: string, eventId: string): Promise<void> {
    await this.db.collection<ParkedDoc>('_parked').deleteOne({ _id: `${projection}|${eventId}` });
  }

  async listParked(projection?: string): Promise<ParkedEvent[]> {
    const docs = await this.db
      .collection<ParkedDoc>('_parked')
      .find(projection === undefined ? {} : { projection })
      .sort({ parkedAt: 1, projection: 1, eventId: 1 })
      .toArray();
    return docs.map(({ _id, ...d }) => ({ ...d, position: positionFromString(d.position) }));
  }

  async swapCollections(aliases: Record<string, string>, checkpoint: { name: string; position: Position }): Promise<void> {
    for (const physical of Object.values(aliases)) await this.endBulk(physical); // a load still open goes live with its indexes
    await this.loadAliases(true);
    const previous = new Map(Object.keys(aliases).map((logical) => [logical, this.aliases.get(logical) ?? logical]));
    // A rebuild that forgot ensureIndexes still serves queries with the old collection's indexes;
    // one that declared its own keeps just those (the old set may hold indexes no longer wanted).
    for (const [logical, physical] of Object.entries(aliases)) await this.copyIndexes(previous.get(logical) ?? logical, physical);
    const write = async (session?: ClientSession): Promise<void> => {
      const coll = this.db.collection<AliasDoc>('_aliases');
      for (const [logical, physical] of Object.entries(aliases)) {
        if (physical === logical) await coll.deleteOne({ _id: logical }, { session });
        else await coll.updateOne({ _id: logical }, { $set: { physical } }, { upsert: true, session });
      }
      await this.setCheckpoint(checkpoint.name, checkpoint.position, session);
    };
    if (this.transactions) await this.inTransaction(write);
    else await write();
    await this.loadAliases(true);
    const live = new Set(this.aliases.values());
    const retired = this.db.collection<RetiredDoc>('_retired');
    // A collection swapped back in is no longer retired.
    await retired.deleteMany({ _id: { $in: Object.values(aliases) } });
    // Other processes read the old collection until their alias cache expires: drop it later, not now.
    for (const [logical, old] of previous) {
      if (old !== aliases[logical] && !live.has(old)) {
        await retired.updateOne({ _id: old }, { $set: { retiredAt: new Date() } }, { upsert: true });
      }
    }
    this.scheduleDropRetired();
  }

  /**
   * Drops the swapped-out collections retired at least RETIRE_AFTER_MS before `now`, unless an alias
   * serves them again. Runs at start, after each swap's grace period, and may be called any time.
   */
  async dropRetired(now: number = Date.now()): Promise<void> {
    const retired = this.db.collection<RetiredDoc>('_retired');
    const due = await retired.find({ retiredAt: { $lte: new Date(now - RETIRE_AFTER_MS) } }).toArray();
    if (due.length === 0) return;
    await this.loadAliases(true);
    const live = new Set(this.aliases.values());
    for (const { _id } of due) {
      if (!live.has(_id)) await this.dropCollection(_id);
      await retired.deleteOne({ _id });
    }
  }

  private scheduleDropRetired(): void {
    if (this.retireTimer) return;
    this.retireTimer = setTimeout(() => {
      this.retireTimer = null;
      // A failure here leaves the record in place for the next start or swap.
      void this.dropRetired().catch(() => undefined);
    }, RETIRE_AFTER_MS + 1000);
    this.retireTimer.unref();
  }

  async dropCollection(physical: string): Promise<void> {
    this.bulk.delete(physical);
    // Driver 7: a collection that does not exist answers false instead of throwing NamespaceNotFound.
    await this.db.dropCollection(physical);
  }

  async putMeta(key: string, value: unknown): Promise<void> {
    await this.db.collection<MetaDoc>('_meta').updateOne({ _id: key }, { $set: { value: value ?? null } }, { upsert: true });
  }

  async getMeta<T = unknown>(key: string): Promise<T | null> {
    const doc = await this.db.collection<MetaDoc>('_meta').findOne({ _id: key });
    return doc ? ((doc.value ?? null) as T | null) : null;
  }

  async close(): Promise<void> {
    if (this.retireTimer) clearTimeout(this.retireTimer);
    this.retireTimer = null;
    await this.lease.release();
  }

  // ---------------------------------------------------------------- helpers

  private async inTransaction(fn: (session: ClientSession) => Promise<void>): Promise<void> {
    const session = this.lease.client.startSession();
    try {
      await session.withTransaction(() => fn(session));
    } finally {
      await session.endSession();
    }
  }

  private async physicalCollection(name: string): Promise<Collection<StoredDoc>> {
    await this.loadAliases(false);
    return this.db.collection<StoredDoc>(this.aliases.get(name) ?? name);
  }

  private async loadAliases(force: boolean): Promise<void> {
    if (!force && Date.now() - this.aliasesLoadedAt < ALIAS_TTL_MS) return;
    if (!force && this.aliasLoad) return this.aliasLoad; // share one reload between concurrent queries
    const load = (async () => {
      const docs = await this.db.collection<AliasDoc>('_aliases').find({}).toArray();
      this.aliases = new Map(docs.map((d) => [d._id, d.physical]));
      this.aliasesLoadedAt = Date.now();
    })();
    this.aliasLoad = load;
    try {
      await load;
    } finally {
      if (this.aliasLoad === load) this.aliasLoad = null;
    }
  }

  private async copyIndexes(from: string, to: string): Promise<void> {
    if (from === to) return;
    if ((await this.secondaryIndexes(to)).length > 0) return;
    for (const index of await this.secondaryIndexes(from)) await this.db.collection(to).createIndex(index.key as Record<string, 1 | -1>);
  }

  /** A collection's indexes but `_id_` (none for a collection that does not exist). */
  private async secondaryIndexes(name: string): Promise<Document[]> {
    try {
      return (await this.db.collection(name).indexes()).filter((index) => index.name !== '_id_');
    } catch (err) {
      if (err instanceof MongoServerError && err.code === NAMESPACE_NOT_FOUND) return [];
      throw err;
    }
  }
}

/**
 * Same order as the SQLite adapter: `_id` breaks ties (and orders unsorted queries), so pages and
 * tests are deterministic on both backends.
 */
function findOptions(options: FindOptions): { sort: MongoSort; limit?: number; projection?: Document } {
  const sort: Sort = { ...(options.sort ?? {}) };
  if (!('_id' in sort)) sort._id = 1;
  return { sort, limit: options.limit, projection: options.projection };
}

function withPos(update: Update, pos: number): UpdateFilter<StoredDoc> {
  return { ...update, $set: { ...(update.$set ?? {}), _pos: pos } } as UpdateFilter<StoredDoc>;
}

/** `$setOnInsert` with upsert never fails on an existing `_id`, in or out of a transaction. */
function insertIfAbsent(doc: Doc & { _id: string }): AnyBulkWriteOperation<StoredDoc> {
  const { _id, ...rest } = doc;
  return { updateOne: { filter: { _id }, update: { $setOnInsert: rest as Partial<StoredDoc> }, upsert: true } };
}

/** A part's operations by collection, each in its order (only one document's operations need ordering among themselves). */
function byCollection(ops: readonly WriteOp[]): Map<string, WriteOp[]> {
  const grouped = new Map<string, WriteOp[]>();
  for (const op of ops) {
    let list = grouped.get(op.collection);
    if (!list) grouped.set(op.collection, (list = []));
    list.push(op);
  }
  return grouped;
}
