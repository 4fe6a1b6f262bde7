/**
 * Fault injection for tests and benchmarks: EventStore and ReadStore ports that delegate to real
 * adapters and fail on demand, the way a store under trouble does (a timeout, a lost primary, a
 * dropped connection). Nothing in production constructs these.
 */
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
  StoredSnapshot,
} from '../event-store/event-store.port';
import type {
  CheckpointRecord,
  Doc,
  DocKey,
  ListIndexes,
  ParkedEvent,
  ProjectionBatch,
  ReadCollection,
  ReadStore,
} from '../read-store/read-store.port';

/**
 * Where a fault strikes. `-after` faults report a failure for an operation that took effect (the
 * answer was lost); `subscription` fails a live subscription, `subscription-end` ends it quietly,
 * `subscription-hang` makes it deliver nothing more (without failing) until it is unsubscribed.
 */
export type FaultPoint =
  | 'append'
  | 'append-after'
  | 'read-stream'
  | 'read-all'
  | 'read-snapshot'
  | 'write-snapshot'
  | 'subscribe'
  | 'subscription'
  | 'subscription-end'
  | 'subscription-hang'
  | 'commit'
  | 'commit-after'
  | 'read-checkpoint'
  | 'park'
  | 'query';

/** The error a store under trouble throws; it carries no hint a caller could use to tell it apart. */
export class InjectedFault extends Error {
  constructor(readonly point: FaultPoint) {
    super(`connection lost (${point})`);
    this.name = 'InjectedFault';
  }
}

/** A deterministic pseudo-random source (mulberry32), so a failing run can be replayed from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The fault plan shared by a pair of faulty stores: bursts of N failures in a row, or a failure rate. */
export class Faults {
  private readonly queued = new Map<FaultPoint, number>();
  private readonly rates = new Map<FaultPoint, number>();
  private readonly bursts = new Map<FaultPoint, number>();
  /** Faults injected so far, per point. */
  readonly injected: Partial<Record<FaultPoint, number>> = {};

  constructor(private readonly random: () => number = Math.random) {}

  /** The next `count` operations at `point` fail, one after the other. */
  failNext(point: FaultPoint, count = 1): this {
    this.queued.set(point, (this.queued.get(point) ?? 0) + count);
    return this;
  }

  /** Each operation at `point` fails with probability `rate`; a failure starts a burst of 1 to `burst` in a row. */
  failRandomly(point: FaultPoint, rate: number, burst = 1): this {
    this.rates.set(point, rate);
    this.bursts.set(point, burst);
    return this;
  }

  /** No more faults (queued or random): the stores behave like the real ones. */
  heal(): void {
    this.queued.clear();
    this.rates.clear();
  }

  /** Throws when a fault is due at `point`. */
  check(point: FaultPoint): void {
    if (this.due(point)) throw this.record(point);
  }

  /** Whether a fault is due at `point`; the caller records it (record) when it acts on it. */
  due(point: FaultPoint): boolean {
    const queued = this.queued.get(point) ?? 0;
    if (queued > 0) {
      this.queued.set(point, queued - 1);
      return true;
    }
    const rate = this.rates.get(point) ?? 0;
    if (rate === 0 || this.random() >= rate) return false;
    const burst = this.bursts.get(point) ?? 1;
    this.queued.set(point, Math.floor(this.random() * burst)); // the rest of the burst
    return true;
  }

  record(point: FaultPoint): InjectedFault {
    this.injected[point] = (this.injected[point] ?? 0) + 1;
    return new InjectedFault(point);
  }
}

export class FaultyEventStore implements EventStore {
  constructor(
    readonly inner: EventStore,
    readonly faults: Faults,
  ) {}

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.faults.check('append');
    const result = await this.inner.append(streamId, events, expected);
    this.faults.check('append-after');
    return result;
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.faults.check('read-stream');
    return this.inner.readStream(streamId, options);
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    this.faults.check('read-all');
    return this.inner.readAll(options);
  }

  async readSnapshot(streamId: string): Promise<StoredSnapshot | null> {
    this.faults.check('read-snapshot');
    return this.inner.readSnapshot(streamId);
  }

  async writeSnapshot(streamId: string, snapshot: StoredSnapshot): Promise<void> {
    this.faults.check('write-snapshot');
    return this.inner.writeSnapshot(streamId, snapshot);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    this.faults.check('subscribe');
    const inner = this.inner.subscribeToAll(options);
    const faults = this.faults;
    let release: () => void = () => undefined;
    const unsubscribed = new Promise<void>((resolve) => (release = resolve));
    async function* run(): AsyncGenerator<RecordedEvent> {
      for await (const event of inner) {
        if (faults.due('subscription-end')) {
          faults.record('subscription-end');
          return;
        }
        if (faults.due('subscription-hang')) {
          faults.record('subscription-hang');
          await unsubscribed;
          return;
        }
        faults.check('subscription');
        yield event;
      }
    }
    return {
      [Symbol.asyncIterator]: () => run(),
      unsubscribe: async () => {
        release();
        await inner.unsubscribe();
      },
    };
  }

  headPosition(): Promise<Position> {
    return this.inner.headPosition();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export class FaultyReadStore implements ReadStore {
  constructor(
    readonly inner: ReadStore,
    readonly faults: Faults,
  ) {}

  collection(name: string): ReadCollection {
    const coll = this.inner.collection(name);
    return {
      find: async (filter, options) => {
        this.faults.check('query');
        return coll.find(filter, options);
      },
      findOne: async (filter, options) => {
        this.faults.check('query');
        return coll.findOne(filter, options);
      },
      countDocuments: async (filter) => {
        this.faults.check('query');
        return coll.countDocuments(filter);
      },
    };
  }

  async findByIds(keys: readonly DocKey[]): Promise<Array<Doc | null>> {
    this.faults.check('query');
    return this.inner.findByIds(keys);
  }

  ensureIndexes(collection: string, paths: string[], list?: ListIndexes, crossOrg?: readonly string[]): Promise<void> {
    return this.inner.ensureIndexes(collection, paths, list, crossOrg);
  }

  async commit(batch: ProjectionBatch): Promise<void> {
    await this.commitMany([batch]);
  }

  async commitMany(batches: ProjectionBatch[]): Promise<void> {
    this.faults.check('commit');
    await this.inner.commitMany(batches);
    this.faults.check('commit-after');
  }

  async getCheckpoint(name: string): Promise<Position | null> {
    this.faults.check('read-checkpoint');
    return this.inner.getCheckpoint(name);
  }

  listCheckpoints(): Promise<CheckpointRecord[]> {
    return this.inner.listCheckpoints();
  }

  deleteCheckpoint(name: string): Promise<void> {
    return this.inner.deleteCheckpoint(name);
  }

  async park(event: ParkedEvent): Promise<void> {
    this.faults.check('park');
    await this.inner.park(event);
  }

  unpark(projection: string, eventId: string): Promise<void> {
    return this.inner.unpark(projection, eventId);
  }

  listParked(projection?: string): Promise<ParkedEvent[]> {
    return this.inner.listParked(projection);
  }

  swapCollections(aliases: Record<string, string>, checkpoint: { name: string; position: Position }): Promise<void> {
    return this.inner.swapCollections(aliases, checkpoint);
  }

  dropCollection(physical: string): Promise<void> {
    return this.inner.dropCollection(physical);
  }

  beginBulk(physical: string): Promise<void> {
    return this.inner.beginBulk(physical);
  }

  endBulk(physical: string): Promise<void> {
    return this.inner.endBulk(physical);
  }

  putMeta(key: string, value: unknown): Promise<void> {
    return this.inner.putMeta(key, value);
  }

  getMeta<T = unknown>(key: string): Promise<T | null> {
    return this.inner.getMeta<T>(key);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
