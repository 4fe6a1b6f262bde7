/**
 * The read store port: a small subset of MongoDB's collection API.
 * Adapters: SQLite (documents as JSON; filters, sorts and updates evaluated with mingo, with
 * SQL pushdown for indexed fields) and the official mongodb driver. Both pass
 * test/contracts/read-store.contract.ts.
 *
 * Documents are stored in the API response shape (lowerCamelCase) plus internal fields whose
 * names start with `_`: `_id` (unique key, `<org>|<resource name>` by convention), `_org`, and `_pos`
 * (commit position of the last event applied to the document).
 */
import type { Position } from '../event-store/event-store.port';

export type Doc = Record<string, unknown>;
/** A MongoDB query document ($and, $or, $nor, $not, $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $regex, $options, $elemMatch; dotted paths). */
export type Filter = Record<string, unknown>;
/** A MongoDB sort document; keys are dotted paths, values 1 or -1. Key order is significant. */
export type Sort = Record<string, 1 | -1>;
/** A MongoDB update document ($set, $unset, $setOnInsert, $push, $pull, $addToSet, $inc). */
export type Update = Record<string, Record<string, unknown>>;

export interface FindOptions {
  sort?: Sort;
  limit?: number;
  /** Inclusion projection (field: 1) or exclusion (field: 0). */
  projection?: Record<string, 0 | 1>;
}

export interface ReadCollection {
  find(filter: Filter, options?: FindOptions): Promise<Doc[]>;
  findOne(filter: Filter, options?: Omit<FindOptions, 'limit'>): Promise<Doc | null>;
  countDocuments(filter: Filter): Promise<number>;
}

/**
 * One projected change. `pos` guards idempotency: the adapter applies an `update` only when the
 * stored document's `_pos` is absent or lower than `pos`, and then sets `_pos = pos`; an `upsert`
 * creates the document when it does not exist. `insert` writes a document only when no document
 * with its `_id` exists (append-only changelogs). `delete` removes the document (hard delete;
 * soft delete is an update).
 */
export type WriteOp =
  | { op: 'update'; collection: string; id: string; pos: number; update: Update; upsert?: boolean }
  | { op: 'insert'; collection: string; doc: Doc & { _id: string } }
  | { op: 'delete'; collection: string; id: string };

export interface ProjectionBatch {
  /** Name of the subscriber whose checkpoint advances with this batch. */
  checkpoint: string;
  /** Full position of the last event the batch covers (including events that produced no op). */
  position: Position;
  ops: WriteOp[];
}

export interface CheckpointRecord {
  name: string;
  position: Position;
  updatedAt: string;
}

export interface ParkedEvent {
  projection: string;
  eventId: string;
  eventType: string;
  streamId: string;
  position: Position;
  error: string;
  parkedAt: string;
}

/** A key of an index: a document path (or `_id`) and its direction. */
export interface IndexKey {
  path: string;
  direction: 1 | -1;
}

/**
 * How a collection's Lists read: the index of each of `paths` (the fields they filter on by
 * equality) continues with `order` (the order they read in by default, then what they always
 * filter on, `deleteTime`), so a List filtering on one of them reads one index range in order and
 * fetches only its page. Other paths keep an index of their own: widening every index would cost
 * every write for queries that gain nothing (a range on a time, the order's own fields).
 */
export interface ListIndexes {
  order: readonly IndexKey[];
  paths: readonly string[];
}

/** A document named by its collection (logical name) and `_id`. */
export interface DocKey {
  collection: string;
  id: string;
}

export interface ReadStore {
  /** Resolves a logical collection name to its current physical collection (see swapCollections). */
  collection(name: string): ReadCollection;
  /**
   * Documents by `_id`, from any collections, in the order asked (null where there is none): the
   * check a request makes on every call (its credential and its access stamp) as one read. SQLite:
   * one statement, one snapshot; MongoDB: one `$in` query per collection, concurrently.
   */
  findByIds(keys: readonly DocKey[]): Promise<Array<Doc | null>>;
  /**
   * Declares paths that queries filter and sort on, so the adapter can index or push them down.
   * `list` shapes the indexes for the collection's Lists (ListIndexes); left out, the one declared
   * before stays. Every index leads with `_org` (every request reads one organization), except
   * those of `crossOrg`: paths looked up across organizations (a webhook naming a chat workspace,
   * not an organization), whose index leads with the path itself (then `_org`). Idempotent; a path
   * once declared cross-organization stays so.
   */
  ensureIndexes(collection: string, paths: string[], list?: ListIndexes, crossOrg?: readonly string[]): Promise<void>;
  /**
   * Applies the ops in order and advances the checkpoint, atomically where the backend can
   * (SQLite: one transaction; MongoDB: a transaction, or position-guarded ops then the checkpoint last).
   * Re-applying a committed batch changes nothing.
   */
  commit(batch: ProjectionBatch): Promise<void>;
  /**
   * Several batches (typically one page of events for every projection) at once: each batch's ops
   * are applied in order, batch after batch, and each checkpoint advances to its batch's position
   * (the last one wins when two batches name the same checkpoint). SQLite: one transaction for all
   * of it. MongoDB: one transaction when available, else batch by batch exactly as `commit` does.
   * Re-applying committed batches changes nothing; an empty list does nothing.
   */
  commitMany(batches: ProjectionBatch[]): Promise<void>;
  getCheckpoint(name: string): Promise<Position | null>;
  listCheckpoints(): Promise<CheckpointRecord[]>;
  /** Removes a checkpoint (used when a projection is rebuilt from the start). */
  deleteCheckpoint(name: string): Promise<void>;
  park(event: ParkedEvent): Promise<void>;
  listParked(projection?: string): Promise<ParkedEvent[]>;
  /** Removes a parked event (replayed once its cause was fixed); nothing when it is not parked. */
  unpark(projection: string, eventId: string): Promise<void>;
  /**
   * Rebuild support: `physical` names a fresh collection written by a rebuild; the swap points the
   * logical names at their new physical collections and sets the checkpoint in one step, then retires
   * the previous physical collections: SQLite drops them at once (its readers never cache an alias);
   * MongoDB drops them after a grace period, since other processes' alias caches may still name them
   * for a moment. Readers in every process see the swap within a second.
   */
  swapCollections(aliases: Record<string, string>, checkpoint: { name: string; position: Position }): Promise<void>;
  dropCollection(physical: string): Promise<void>;
  /**
   * Rebuild support: `physical` is a fresh physical collection (never served under an alias, so no
   * reader sees it before swapCollections) that this instance alone is about to fill. Until endBulk
   * the adapter may defer work that only serves readers: secondary indexes and planner statistics,
   * and it may rely on knowing every document the load wrote. Everything stays correct meanwhile
   * (commits, reads, ensureIndexes before or after the rows are in), just not optimized for reads.
   * Idempotent; rejects a collection that an alias currently serves.
   */
  beginBulk(physical: string): Promise<void>;
  /**
   * Ends a bulk load: builds the deferred indexes (for every path declared so far) and statistics.
   * Call it before swapCollections; a swap that finds the load still open ends it itself. A no-op
   * for a collection not in a bulk load.
   */
  endBulk(physical: string): Promise<void>;
  /** Small key/value records for process coordination (heartbeats, rebuild requests). */
  putMeta(key: string, value: unknown): Promise<void>;
  getMeta<T = unknown>(key: string): Promise<T | null>;
  close(): Promise<void>;
}

export const READ_STORE = Symbol('READ_STORE');
