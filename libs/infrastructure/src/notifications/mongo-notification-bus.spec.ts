import { type Collection, MongoNetworkError, MongoServerSelectionError, ObjectId, type TopologyDescription } from 'mongodb';
import { MongoNotificationBus } from './mongo-notification-bus';
import type { BusNotification } from './notification-bus.port';

interface Stored {
  _id: ObjectId;
  org: string;
  topic: string;
  body: string;
}

/** What the driver throws when no server answers within serverSelectionTimeoutMS (30 s by default). */
const selectionTimeout = (): MongoServerSelectionError =>
  new MongoServerSelectionError('Server selection timed out after 30000 ms', {} as TopologyDescription);

/**
 * A capped collection as the bus uses it: `find` with `tailable` answers a cursor that yields every
 * document in insertion order and then waits for more (awaitData), until it is closed or fails;
 * other finds answer the newest document. Faults are queued per call, as the driver would throw them.
 */
class FakeCappedCollection {
  readonly docs: Stored[] = [{ _id: new ObjectId(), org: '', topic: '', body: '{}' }];
  readonly findOneFaults: Error[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly cursors = new Set<{ fail(error: Error): void }>();
  tailsOpened = 0;

  insertOne(doc: Stored): Promise<void> {
    this.docs.push(doc);
    for (const wake of [...this.waiters]) wake();
    return Promise.resolve();
  }

  findOne(filter: { _id: ObjectId }): Promise<Stored | null> {
    const fault = this.findOneFaults.shift();
    if (fault) return Promise.reject(fault);
    return Promise.resolve(this.docs.find((d) => d._id.equals(filter._id)) ?? null);
  }

  /** Fails every open tailable cursor (a dropped connection). */
  dropConnections(): void {
    for (const cursor of [...this.cursors]) cursor.fail(new MongoNetworkError('connection 3 to 10.0.0.5:27017 closed'));
  }

  find(_filter: object, options: { tailable?: boolean }) {
    if (!options.tailable) return { next: () => Promise.resolve(this.docs[this.docs.length - 1] ?? null) };
    this.tailsOpened++;
    let closed = false;
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    const cursor = {
      fail: (error: Error) => {
        failure = error;
        wake?.();
      },
    };
    this.cursors.add(cursor);
    const waiters = this.waiters;
    const docs = this.docs;
    const cursors = this.cursors;
    return {
      close: () => {
        closed = true;
        cursors.delete(cursor);
        wake?.();
        return Promise.resolve();
      },
      async *[Symbol.asyncIterator]() {
        let at = 0;
        while (!closed) {
          if (failure) throw failure;
          if (at < docs.length) {
            yield docs[at++];
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = () => {
              waiters.delete(resolve);
              resolve();
            };
            waiters.add(wake);
          });
        }
      },
    };
  }
}

const until = async (condition: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(condition()).toBe(true);
};

describe('MongoNotificationBus tail (a fake of the driver)', () => {
  it('survives server-selection timeouts while reopening its cursor: retries with backoff, reports each fault, delivers on', async () => {
    const collection = new FakeCappedCollection();
    const faults: Array<{ reason: string; attempt: number }> = [];
    const bus = new MongoNotificationBus(() => Promise.resolve(), collection as unknown as Collection<Stored>, {
      maxAwaitTimeMS: 50,
      backoff: { initialMs: 1, maxMs: 4 },
      onFault: (reason, attempt) => faults.push({ reason, attempt }),
    });
    const received: BusNotification[] = [];
    await bus.subscribe('acme', { onNotification: (n) => received.push(n) });
    await bus.publish('acme', '', { n: 1 });
    await until(() => received.length === 1);

    // The connection drops, then the lookup of the last delivered document times out twice.
    collection.findOneFaults.push(selectionTimeout(), selectionTimeout());
    collection.dropConnections();
    await until(() => collection.tailsOpened === 2);
    await bus.publish('acme', '', { n: 2 });
    await until(() => received.length === 2);

    expect(received.map((n) => n.notification)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(faults.map((f) => f.attempt)).toEqual([1, 2, 3]);
    expect(faults[0].reason).toMatch(/^MongoNetworkError: /);
    expect(faults[1].reason).toMatch(/^MongoServerSelectionError: Server selection timed out/);
    expect(bus.isTailing).toBe(true);
    await bus.close();
  });

  it('close() ends a pause between attempts at once', async () => {
    const collection = new FakeCappedCollection();
    const bus = new MongoNotificationBus(() => Promise.resolve(), collection as unknown as Collection<Stored>, {
      maxAwaitTimeMS: 50,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      onFault: () => undefined,
    });
    await bus.subscribe('acme', { onNotification: () => undefined });
    await until(() => collection.tailsOpened === 1);
    collection.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    await bus.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
