import { Logger } from '@nestjs/common';
import { MongoServerError, ObjectId, type Collection, type FindCursor, type WithId } from 'mongodb';
import { leaseMongoClient } from '../stores/mongo-client';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF, describeError } from '../projection/supervisor';
import { Listeners, type Listener } from './listeners';
import {
  encodeNotification,
  type BusSubscribeOptions,
  type BusSubscription,
  type NotificationBody,
  type NotificationBus,
} from './notification-bus.port';

export interface MongoNotificationBusOptions {
  url: string;
  dbName?: string;
  /** Capped collection name. Default `_notifications`. */
  collection?: string;
  /** Capped size in bytes (default 64 MiB) and documents (default 10,000): what falls out first is the oldest. */
  sizeBytes?: number;
  maxDocuments?: number;
  /** How long one getMore of the tailable cursor waits for data on the server. Default 1000 ms. */
  maxAwaitTimeMS?: number;
}

export interface MongoNotificationBusTuning {
  maxAwaitTimeMS: number;
  /** Pauses between attempts while the server cannot be reached. Default DEFAULT_BACKOFF. */
  backoff?: BackoffOptions;
  /** Told of each fault the tail recovers from (a log line); defaults to a warning in the log. */
  onFault?: (reason: string, attempt: number, delayMs: number) => void;
}

interface StoredNotification {
  _id: ObjectId;
  org: string;
  topic: string;
  /** JSON text: the wire shape survives unchanged (keys such as `@type` are not valid in every driver path). */
  body: string;
}

/** Ids the tail has passed, remembered so a new subscriber knows whether its start marker is behind. */
const RECENT_IDS = 4096;

/**
 * The MongoDB bus: a capped collection (insertion order, oldest dropped first) tailed by one
 * tailable awaitData cursor per process, fanned out to its subscribers. A capped collection has no
 * order key across publishers, so where a subscriber starts is a marker: the newest document when it
 * subscribed; the tail delivers to it only after passing that document (docs/decisions.md).
 */
export class MongoNotificationBus implements NotificationBus {
  private readonly listeners = new Listeners<string | null>();
  /** Listeners whose start marker the tail has not reached yet, by marker. */
  private readonly waiting = new Map<string, Set<Listener<string | null>>>();
  private readonly recent = new Set<string>();
  /** sync() calls waiting for the tail to pass a document, by its id. */
  private readonly syncs = new Map<string, Array<() => void>>();
  private lastSeen: string | undefined;
  private cursor: FindCursor<WithId<StoredNotification>> | undefined;
  private tailing: Promise<void> | undefined;
  /** Ends the tail's pause between attempts early (close). */
  private wake: (() => void) | undefined;
  private closed = false;
  private readonly maxAwaitTimeMS: number;
  private readonly onFault: (reason: string, attempt: number, delayMs: number) => void;

  /** `create` connects; tests hand in a collection that behaves as the driver's does. */
  constructor(
    /** Gives back the process's shared client (stores/mongo-client.ts). */
    private readonly release: () => Promise<void>,
    private readonly collection: Collection<StoredNotification>,
    private readonly tuning: MongoNotificationBusTuning,
  ) {
    this.maxAwaitTimeMS = tuning.maxAwaitTimeMS;
    const logger = new Logger('notifications');
    this.onFault = tuning.onFault ?? ((reason, attempt, delayMs) => logger.warn(`notification bus: ${reason}; tailing again in ${delayMs} ms (attempt ${attempt})`));
  }

  static async create(options: MongoNotificationBusOptions): Promise<MongoNotificationBus> {
    const lease = await leaseMongoClient(options.url);
    try {
      const db = lease.client.db(options.dbName);
      const name = options.collection ?? '_notifications';
      try {
        await db.createCollection(name, { capped: true, size: options.sizeBytes ?? 64 * 1024 * 1024, max: options.maxDocuments ?? 10_000 });
      } catch (error) {
        // 48 NamespaceExists: another process created it first.
        if (!(error instanceof MongoServerError && error.code === 48)) throw error;
      }
      const collection = db.collection<StoredNotification>(name);
      // A tailable cursor on an empty capped collection dies at once: keep one document in it.
      if ((await collection.estimatedDocumentCount()) === 0) await collection.insertOne({ _id: new ObjectId(), org: '', topic: '', body: '{}' });
      return new MongoNotificationBus(lease.release, collection, { maxAwaitTimeMS: options.maxAwaitTimeMS ?? 1000 });
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  async publish(org: string, topic: string, notification: NotificationBody): Promise<void> {
    if (this.closed) throw new Error('MongoNotificationBus is closed');
    const body = encodeNotification(notification);
    await this.collection.insertOne({ _id: new ObjectId(), org, topic, body });
  }

  async subscribe(org: string, options: BusSubscribeOptions): Promise<BusSubscription> {
    if (this.closed) throw new Error('MongoNotificationBus is closed');
    const newest = await this.collection.find({}, { sort: { $natural: -1 }, limit: 1, projection: { _id: 1 } }).next();
    const marker = newest?._id.toHexString();
    // The tail may already be past the marker: then delivery starts with its next document.
    const from = marker !== undefined && !this.recent.has(marker) ? marker : null;
    const listener: Listener<string | null> = { ...options, org, from };
    this.listeners.add(listener);
    if (from !== null) {
      let set = this.waiting.get(from);
      if (!set) this.waiting.set(from, (set = new Set()));
      set.add(listener);
    }
    this.tailing ??= this.tail().finally(() => (this.tailing = undefined));
    return {
      close: () => {
        if (listener.from !== null) this.waiting.get(listener.from)?.delete(listener);
        if (this.listeners.delete(listener) && this.listeners.size === 0) {
          this.wake?.();
          void this.cursor?.close().catch(() => undefined);
        }
      },
    };
  }

  /**
   * Waits for the tail to pass the newest document at the time of the call. Bounded: a document
   * trimmed before the tail reached it is never seen, so after a few cursor waits sync gives up.
   */
  async sync(): Promise<void> {
    if (this.closed || this.tailing === undefined) return;
    const newest = await this.collection.find({}, { sort: { $natural: -1 }, limit: 1, projection: { _id: 1 } }).next();
    const id = newest?._id.toHexString();
    if (id === undefined || this.recent.has(id)) return;
    await new Promise<void>((resolve) => {
      const waiting = this.syncs.get(id) ?? [];
      this.syncs.set(id, waiting);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(done), 1);
        if (waiting.length === 0 && this.syncs.get(id) === waiting) this.syncs.delete(id);
        done();
      }, this.maxAwaitTimeMS * 3);
      waiting.push(done);
    });
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  get isTailing(): boolean {
    return this.tailing !== undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.listeners.all()) this.listeners.delete(listener);
    this.waiting.clear();
    for (const waiting of [...this.syncs.values()]) for (const done of waiting) done();
    this.syncs.clear();
    this.wake?.();
    await this.cursor?.close().catch(() => undefined);
    await this.tailing;
    await this.release();
  }

  /**
   * One tailable cursor in natural (insertion) order from the oldest retained document. When the
   * server ends it (a trimmed position, a failover), it is reopened and skips to the last document
   * already delivered; if that one was trimmed meanwhile, delivery resumes with what is left. A
   * fault anywhere here (a server-selection timeout, a dropped connection) is reported and retried
   * with backoff for as long as someone listens: this promise never rejects, since nothing awaits
   * it (a rejection would be unhandled and end the process).
   */
  private async tail(): Promise<void> {
    let first = true;
    let failures = 0;
    while (!this.closed && this.listeners.size > 0) {
      let cursor: FindCursor<WithId<StoredNotification>> | undefined;
      try {
        let skipUntil = first ? undefined : this.lastSeen;
        if (skipUntil && !(await this.collection.findOne({ _id: ObjectId.createFromHexString(skipUntil) }, { projection: { _id: 1 } }))) skipUntil = undefined;
        first = false;
        cursor = this.collection.find({}, { tailable: true, awaitData: true, maxAwaitTimeMS: this.maxAwaitTimeMS, sort: { $natural: 1 } });
        this.cursor = cursor;
        for await (const doc of cursor) {
          failures = 0;
          if (this.closed || this.listeners.size === 0) break;
          const id = doc._id.toHexString();
          if (skipUntil !== undefined) {
            if (id === skipUntil) skipUntil = undefined;
            continue;
          }
          this.see(id, doc);
        }
      } catch (error) {
        // A cursor closed by close() or the last subscriber ends the loop; anything else is a fault.
        if (this.closed || this.listeners.size === 0) break;
        failures++;
        const delayMs = backoffDelay(failures, this.tuning.backoff ?? DEFAULT_BACKOFF);
        this.onFault(describeError(error), failures, delayMs);
        await this.pause(delayMs);
      } finally {
        this.cursor = undefined;
        await cursor?.close().catch(() => undefined);
      }
    }
  }

  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  private see(id: string, doc: WithId<StoredNotification>): void {
    this.lastSeen = id;
    this.recent.add(id);
    if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value as string);
    const released = this.waiting.get(id);
    if (released) {
      this.waiting.delete(id);
      for (const listener of released) listener.from = null;
    }
    // The keeper document (no org) is delivered to no one.
    if (doc.org) this.listeners.deliver({ org: doc.org, topic: doc.topic, notification: JSON.parse(doc.body) as NotificationBody }, (l) => l.from === null);
    const syncs = this.syncs.get(id);
    if (syncs) {
      this.syncs.delete(id);
      for (const done of syncs) done();
    }
  }
}
