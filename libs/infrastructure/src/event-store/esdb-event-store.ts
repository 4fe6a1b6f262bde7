import {
  ANY,
  AllStreamResolvedEvent,
  AppendExpectedRevision,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  ReadPosition,
  START as ESDB_START,
  STREAM_EXISTS,
  StreamNotFoundError,
  type StreamingRead,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
} from '@eventstore/db-client';
import { appendTooLarge, checkAppendSize } from './append-limit';
import {
  type StoredSnapshot,
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  START,
  SubscribeOptions,
  Subscription,
  WrongExpectedRevisionError,
  comparePositions,
} from './event-store.port';

const DEFAULT_READ_ALL_MAX = 4096;
/**
 * Page bounds when scanning $all: system events are filtered client-side, so a page may hold few user
 * events (an idle server writes only $stats); pages grow so a long run of them costs few round trips.
 */
const MIN_READ_ALL_PAGE = 64;
const MAX_READ_ALL_PAGE = 4096;

/** The recorded-event shape the client yields (JSON or binary), with a position when read from $all. */
type EsdbRecorded = NonNullable<AllStreamResolvedEvent['event']>;
type EsdbStreamRecorded = Omit<EsdbRecorded, 'position'> & { position?: Position };

/**
 * The production event store: a thin mapping of the port onto @eventstore/db-client (v6).
 * Requires EventStoreDB >= 22.6 (events read from a stream carry their $all position).
 *
 * Idempotency is the server's: re-appending the same event ids with the same expected revision is a
 * no-op that answers success. Unlike the SQLite adapter, ESDB does not index event ids globally, so the
 * ids are only recognised relative to the expected revision given.
 */
export class EsdbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;

  constructor(options: { url: string } | { client: EventStoreDBClient }) {
    this.client = 'client' in options ? options.client : EventStoreDBClient.connectionString(options.url);
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    // Checked here too, with the server's measure, so the answer does not depend on a round trip.
    checkAppendSize(events.map((e) => ({ type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) })));
    let result;
    try {
      const batch = events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: e.metadata }));
      // Safe to repeat: a follower refuses without writing, and the same ids at the same revision are the same append.
      result = await this.onLeader(() => this.client.appendToStream(streamId, batch, { expectedRevision: toEsdbExpected(expected) }));
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = err.actualVersion;
        // Some server versions report a missing stream as revision -1 rather than omitting it.
        throw new WrongExpectedRevisionError(streamId, expected, typeof actual === 'bigint' && actual < 0n ? 'no_stream' : actual);
      }
      // A server configured with a smaller MaxAppendSize than the default.
      if (err instanceof MaxAppendSizeExceededError) throw appendTooLarge(null, err.maxAppendSize);
      throw err;
    }
    const nextRevision = result.nextExpectedRevision;
    // The server may omit the position (notably for an idempotent re-append); read it from the event.
    const position = result.position ?? (await this.positionOf(streamId, nextRevision));
    return { nextRevision, position };
  }

  private async positionOf(streamId: string, revision: bigint): Promise<Position> {
    if (revision < 0n) return START;
    const [event] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    if (!event) throw new Error(`stream ${streamId}: no event at revision ${revision} to take the position from`);
    return event.position;
  }

  /**
   * Snapshots follow the usual EventStoreDB pattern: a stream per aggregate, `snapshot-<stream>`,
   * read backwards for its last event. The stream keeps its last few events (`$maxCount`, set with
   * its first one), and its events are never delivered as the log's (isUserEvent).
   */
  async readSnapshot(streamId: string): Promise<StoredSnapshot | null> {
    const [last] = await this.readRaw(snapshotStreamOf(streamId), { direction: 'backwards', maxCount: 1 });
    if (!last) return null;
    const data = last.data as { revision?: unknown; fold?: unknown; state?: unknown };
    if (typeof data.revision !== 'string' || typeof data.fold !== 'string' || typeof data.state !== 'string') return null;
    return { revision: BigInt(data.revision), fold: data.fold, state: data.state };
  }

  async writeSnapshot(streamId: string, snapshot: StoredSnapshot): Promise<void> {
    const kept = await this.readSnapshot(streamId);
    if (kept && kept.fold === snapshot.fold && kept.revision >= snapshot.revision) return;
    const stream = snapshotStreamOf(streamId);
    const data = { revision: String(snapshot.revision), fold: snapshot.fold, state: snapshot.state };
    const event = jsonEvent({ type: SNAPSHOT_EVENT, data });
    const result = await this.onLeader(() => this.client.appendToStream(stream, event, { expectedRevision: ANY }));
    if (result.nextExpectedRevision === 0n) await this.client.setStreamMetadata(stream, { maxCount: SNAPSHOTS_KEPT });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return (await this.readRaw(streamId, options)).map(toRecorded);
  }

  private readRaw(streamId: string, options: ReadStreamOptions): Promise<EsdbStreamRecorded[]> {
    return this.onLeader(() => this.readRawOnce(streamId, options));
  }

  private async readRawOnce(streamId: string, options: ReadStreamOptions): Promise<EsdbStreamRecorded[]> {
    const backwards = options.direction === 'backwards';
    const out: EsdbStreamRecorded[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision ?? (backwards ? END : ESDB_START),
        ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      });
      await consume(read, (resolved) => {
        if (resolved.event) out.push(resolved.event);
        return true;
      });
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  /**
   * $all through the port's lens: system events and non-JSON events are skipped, and `after` is
   * exclusive (the server's fromPosition is inclusive). Because skipped events still count against the
   * server's maxCount, this pages until it has `maxCount` events or reaches the end of the log.
   */
  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.onLeader(() => this.readAllOnce(options));
  }

  private async readAllOnce(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const want = options.maxCount ?? DEFAULT_READ_ALL_MAX;
    const out: RecordedEvent[] = [];
    let bound = options.after;
    if (want <= 0 || (backwards && bound && isStart(bound))) return out;

    let minPage = MIN_READ_ALL_PAGE;
    while (out.length < want) {
      const fromPosition: ReadPosition = bound && !isStart(bound) ? bound : backwards ? END : ESDB_START;
      // +1: the event at an inclusive fromPosition comes back again and is skipped below.
      const pageSize = Math.min(Math.max(want - out.length, minPage), MAX_READ_ALL_PAGE) + 1;
      minPage = Math.min(minPage * 2, MAX_READ_ALL_PAGE);
      let received = 0;
      let lastSeen: Position | undefined;
      const read = this.client.readAll({ direction: backwards ? BACKWARDS : FORWARDS, fromPosition, maxCount: pageSize });
      await consume(read, (resolved) => {
        received += 1;
        const event = resolved.event;
        if (!event) return true;
        lastSeen = event.position;
        if (bound && !isStart(bound)) {
          const cmp = comparePositions(event.position, bound);
          if (backwards ? cmp >= 0 : cmp <= 0) return true;
        }
        if (!isUserEvent(event)) return true;
        out.push(toRecorded(event));
        return out.length < want;
      });
      if (out.length >= want || received < pageSize || !lastSeen) break;
      bound = lastSeen;
    }
    return out;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const after = options.after;
    const sub = this.client.subscribeToAll({
      fromPosition: isStart(after) ? ESDB_START : after,
      filter: excludeSystemEvents(),
    });
    let closed = false;
    const closing = new AbortController();

    async function* run(): AsyncGenerator<RecordedEvent> {
      const it = sub[Symbol.asyncIterator]();
      try {
        while (!closed) {
          // Unsubscribe ends the wait: a cancelled gRPC call does not reliably end the client's stream.
          const next = await nextOrClosed(it, closing.signal);
          if (next.done || closed) return;
          const event = (next.value as AllStreamResolvedEvent).event;
          if (!event || !isUserEvent(event)) continue;
          // Defensive: never deliver the checkpoint event itself, whatever the server's inclusivity.
          if (!isStart(after) && comparePositions(event.position, after) <= 0) continue;
          yield toRecorded(event);
        }
      } catch (err) {
        if (!closed) throw err;
      } finally {
        if (!closed) {
          closed = true;
          await sub.unsubscribe();
        }
      }
    }

    let started = false;
    return {
      [Symbol.asyncIterator]() {
        if (started) throw new Error('a subscription can be iterated only once');
        started = true;
        return run();
      },
      async unsubscribe() {
        if (closed) return;
        closed = true;
        closing.abort();
        await sub.unsubscribe();
      },
    };
  }

  async headPosition(): Promise<Position> {
    const [newest] = await this.readAll({ direction: 'backwards', maxCount: 1 });
    return newest?.position ?? START;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  /**
   * The call, and once more if the node answered NotLeader (a leader change, or a connection to a
   * follower): the client has by then dropped its channel and connects to the leader the follower
   * named on the next call. A second refusal goes to the caller (UNAVAILABLE, store-unavailable.ts).
   */
  private async onLeader<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof NotLeaderError)) throw err;
      // The client resets its channel in a promise of its own (Client.handleError): let it run first.
      await new Promise((resolve) => setImmediate(resolve));
      return call();
    }
  }
}

/**
 * Feeds a client read to `visit` until it returns false or the read ends. A read left early (or
 * failed) is cancelled: the client's stream does not cancel its gRPC call by itself when the
 * consumer stops, and the server would go on sending into a buffer nobody reads.
 */
async function consume<E>(read: StreamingRead<E>, visit: (item: E) => boolean): Promise<void> {
  try {
    for await (const item of read as AsyncIterable<E>) {
      if (!visit(item)) break;
    }
  } finally {
    if (!read.readableEnded) await read.cancel().catch(() => undefined);
  }
}

function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

/**
 * The iterator's next result, or done once `signal` aborts. The abort listener is removed as soon as
 * the result arrives: racing every `next()` against one long-lived promise instead left a reaction
 * on that promise per event, each holding its event, so a subscription kept every event it had
 * delivered (issue 18: 125 MiB for 200,000 events).
 */
export function nextOrClosed<T>(it: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T, undefined>> {
  if (signal.aborted) return Promise.resolve({ done: true, value: undefined });
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve({ done: true, value: undefined });
    signal.addEventListener('abort', onAbort, { once: true });
    it.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result as IteratorResult<T, undefined>);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

function isStart(p: Position): boolean {
  return p.commit < 0n;
}

const SNAPSHOT_PREFIX = 'snapshot-';
const SNAPSHOT_EVENT = 'Snapshot';
/** Snapshot events kept per stream: the last one is read; a few more cover a writer that raced. */
const SNAPSHOTS_KEPT = 3;

const snapshotStreamOf = (streamId: string): string => `${SNAPSHOT_PREFIX}${streamId}`;

function isUserEvent(event: EsdbRecorded): boolean {
  return event.isJson && !event.type.startsWith('$') && !event.streamId.startsWith(SNAPSHOT_PREFIX);
}

function toRecorded(event: EsdbRecorded | EsdbStreamRecorded): RecordedEvent {
  if (!event.position) {
    throw new Error(`event ${event.id} has no position: EventStoreDB >= 22.6 is required`);
  }
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: event.position,
    type: event.type,
    // Only JSON events are written by this adapter; the client parses JSON data and metadata.
    data: event.data as Record<string, unknown>,
    metadata: event.metadata as unknown as EventMetadata,
    created: event.created.toISOString(),
  };
}
