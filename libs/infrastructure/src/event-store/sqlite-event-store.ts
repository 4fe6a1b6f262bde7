import { EventEmitter } from 'node:events';
import { resolve as resolvePath } from 'node:path';
import Database from 'better-sqlite3';
import {
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
} from './event-store.port';

export interface SqliteEventStoreOptions {
  /** Path of the database file; several processes may open the same file. */
  file: string;
  /** How often an idle subscription looks for events appended by other processes. Default 2 ms. */
  pollIntervalMs?: number;
  /** How long a write waits for another process's write lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
}

interface EventRow {
  pos: bigint;
  stream_id: string;
  revision: bigint;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  created: string;
}

interface EventRef {
  pos: bigint;
  stream_id: string;
  revision: bigint;
  event_id: string;
}

const DEFAULT_READ_ALL_MAX = 4096;
const SUBSCRIPTION_PAGE = 512;
/** SQLite's LIMIT -1 means "no limit". */
const NO_LIMIT = -1;
const MAX_INT64 = 9223372036854775807n;

/**
 * Wakes subscriptions when an append commits in this process, keyed by the resolved file path so that
 * two store instances on one file (api and in-process projector) also wake each other without polling.
 */
const appended = new EventEmitter();
appended.setMaxListeners(0);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  pos       INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT    NOT NULL,
  revision  INTEGER NOT NULL,
  event_id  TEXT    NOT NULL UNIQUE,
  type      TEXT    NOT NULL,
  data      TEXT    NOT NULL,
  metadata  TEXT    NOT NULL,
  created   TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_id, revision);
CREATE TABLE IF NOT EXISTS streams (
  stream_id TEXT PRIMARY KEY,
  revision  INTEGER NOT NULL
) WITHOUT ROWID;
`;

/**
 * The embedded event store: one SQLite file shared by every process (api instances, projector, CLI).
 *
 * Durability: WAL with synchronous=NORMAL. A committed append survives a process crash or kill -9
 * (the WAL is written before commit returns); a power loss or OS crash may lose the last few commits
 * but never corrupts the file. That is the trade-off for an embedded default; production uses EventStoreDB.
 *
 * Global order: `pos` is an AUTOINCREMENT rowid, assigned at insert inside the write transaction and
 * visible only on commit. SQLite allows a single writer at a time (appends use BEGIN IMMEDIATE), so
 * transactions commit in the order they assigned ids: a reader that has seen `pos = n` can never later
 * see a newly committed row with `pos < n`. Reading `WHERE pos > ?` is therefore gap-safe, which is what
 * readAll and subscriptions rely on. AUTOINCREMENT (not plain rowid) also guarantees ids are never reused.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly wakeKey: string;
  private readonly pollIntervalMs: number;
  private readonly subscriptions = new Set<SqliteSubscription>();
  private closed = false;

  private readonly stmt: {
    streamRevision: Database.Statement<[string], bigint>;
    upsertStream: Database.Statement<[string, bigint]>;
    insertEvent: Database.Statement<[string, bigint, string, string, string, string, string]>;
    findEvent: Database.Statement<[string], EventRef>;
    streamRefsFrom: Database.Statement<[string, bigint, number], EventRef>;
    eventAt: Database.Statement<[string, bigint], EventRef>;
    streamForwards: Database.Statement<[string, bigint, number], EventRow>;
    streamBackwards: Database.Statement<[string, bigint, number], EventRow>;
    allForwards: Database.Statement<[bigint, number], EventRow>;
    allBackwards: Database.Statement<[bigint, number], EventRow>;
    head: Database.Statement<[], bigint | null>;
  };

  private readonly appendTx: Database.Transaction<
    (streamId: string, events: NewEvent[], expected: ExpectedRevision) => { result: AppendResult; wrote: boolean }
  >;

  constructor(options: SqliteEventStoreOptions) {
    this.wakeKey = resolvePath(options.file);
    this.pollIntervalMs = options.pollIntervalMs ?? 2;
    // `timeout` is SQLite's busy_timeout: a writer waits for another process's lock instead of failing.
    this.db = new Database(options.file, { timeout: options.busyTimeoutMs ?? 5000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Positions and revisions are 64-bit; reading them as bigint avoids silent precision loss.
    this.db.defaultSafeIntegers(true);
    this.db.exec(SCHEMA);

    const cols = 'pos, stream_id, revision, event_id, type, data, metadata, created';
    const db = this.db;
    this.stmt = {
      streamRevision: db.prepare<[string], bigint>('SELECT revision FROM streams WHERE stream_id = ?').pluck(),
      upsertStream: db.prepare<[string, bigint]>(
        'INSERT INTO streams (stream_id, revision) VALUES (?, ?) ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision',
      ),
      insertEvent: db.prepare<[string, bigint, string, string, string, string, string]>(
        'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      findEvent: db.prepare<[string], EventRef>('SELECT pos, stream_id, revision, event_id FROM events WHERE event_id = ?'),
      streamRefsFrom: db.prepare<[string, bigint, number], EventRef>(
        'SELECT pos, stream_id, revision, event_id FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?',
      ),
      eventAt: db.prepare<[string, bigint], EventRef>('SELECT pos, stream_id, revision, event_id FROM events WHERE stream_id = ? AND revision = ?'),
      streamForwards: db.prepare<[string, bigint, number], EventRow>(
        `SELECT ${cols} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`,
      ),
      streamBackwards: db.prepare<[string, bigint, number], EventRow>(
        `SELECT ${cols} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
      ),
      allForwards: db.prepare<[bigint, number], EventRow>(`SELECT ${cols} FROM events WHERE pos > ? ORDER BY pos LIMIT ?`),
      allBackwards: db.prepare<[bigint, number], EventRow>(`SELECT ${cols} FROM events WHERE pos < ? ORDER BY pos DESC LIMIT ?`),
      head: db.prepare<[], bigint | null>('SELECT max(pos) FROM events').pluck(),
    };
    this.appendTx = db.transaction((streamId: string, events: NewEvent[], expected: ExpectedRevision) =>
      this.appendInTx(streamId, events, expected),
    );
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    // IMMEDIATE takes the write lock up front, so the revision check and the insert see the same state
    // even when another process appends to the same stream at the same time.
    const { result, wrote } = this.appendTx.immediate(streamId, events, expected);
    if (wrote) appended.emit(this.wakeKey);
    return result;
  }

  private appendInTx(
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
  ): { result: AppendResult; wrote: boolean } {
    if (events.length > 0) {
      const duplicate = this.checkIdempotent(streamId, events);
      if (duplicate) return { result: duplicate, wrote: false };
    }

    const current = this.stmt.streamRevision.get(streamId);
    checkExpected(streamId, expected, current);

    if (events.length === 0) {
      const last = current === undefined ? undefined : this.stmt.eventAt.get(streamId, current);
      return { result: { nextRevision: current ?? -1n, position: last ? seqPosition(last.pos) : START }, wrote: false };
    }

    const created = new Date().toISOString();
    let revision = current ?? -1n;
    let pos = -1n;
    for (const e of events) {
      revision += 1n;
      try {
        const info = this.stmt.insertEvent.run(
          streamId,
          revision,
          e.id,
          e.type,
          JSON.stringify(e.data),
          JSON.stringify(e.metadata),
          created,
        );
        pos = BigInt(info.lastInsertRowid);
      } catch (err) {
        // Only a later event of the batch can collide here (the first was checked above).
        if (isUniqueViolation(err)) {
          throw new Error(`stream ${streamId}: event id ${e.id} already exists in the store`);
        }
        throw err;
      }
    }
    this.stmt.upsertStream.run(streamId, revision);
    return { result: { nextRevision: revision, position: seqPosition(pos) }, wrote: true };
  }

  /**
   * Idempotent append, as EventStoreDB does it: a batch whose ids are already stored, in order, in this
   * stream was written before (a retried request with derived event ids); answer the original result
   * and write nothing. Any other reuse of an id is a bug upstream, so it fails loudly.
   */
  private checkIdempotent(streamId: string, events: NewEvent[]): AppendResult | undefined {
    const first = this.stmt.findEvent.get(events[0].id);
    if (!first) return undefined;
    if (first.stream_id !== streamId) {
      throw new Error(`stream ${streamId}: event id ${first.event_id} already exists in stream ${first.stream_id}`);
    }
    const stored = this.stmt.streamRefsFrom.all(streamId, first.revision, events.length);
    const matches = stored.length === events.length && stored.every((row, i) => row.event_id === events[i].id);
    if (!matches) {
      throw new Error(
        `stream ${streamId}: event id ${first.event_id} was already appended with a different batch (partial idempotent append)`,
      );
    }
    const last = stored[stored.length - 1];
    return { nextRevision: last.revision, position: seqPosition(last.pos) };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? NO_LIMIT;
    const rows =
      options.direction === 'backwards'
        ? this.stmt.streamBackwards.all(streamId, options.fromRevision ?? MAX_INT64, limit)
        : this.stmt.streamForwards.all(streamId, options.fromRevision ?? 0n, limit);
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? DEFAULT_READ_ALL_MAX;
    const rows =
      options.direction === 'backwards'
        ? this.stmt.allBackwards.all(options.after ? options.after.commit : MAX_INT64, limit)
        : this.stmt.allForwards.all((options.after ?? START).commit, limit);
    return rows.map(toRecorded);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const sub = new SqliteSubscription(this, options.after.commit, () => this.subscriptions.delete(sub));
    this.subscriptions.add(sub);
    return sub;
  }

  async headPosition(): Promise<Position> {
    this.assertOpen();
    const head = this.stmt.head.get();
    return head === null || head === undefined ? START : seqPosition(head);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.unsubscribe()));
    this.db.close();
  }

  /** @internal One page of events after `pos`, for subscriptions. */
  pageAfter(pos: bigint): RecordedEvent[] {
    return this.stmt.allForwards.all(pos, SUBSCRIPTION_PAGE).map(toRecorded);
  }

  /** @internal Resolves on the next in-process append, after the poll interval, or when `cancel` is called. */
  waitForAppend(register: (cancel: () => void) => void): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        appended.off(this.wakeKey, done);
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      appended.on(this.wakeKey, done);
      register(done);
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('SqliteEventStore is closed');
  }
}

/**
 * Catch-up then live: reads pages after the last delivered position until a page comes back empty,
 * then waits for an in-process append or the poll interval and reads again. Because it always resumes
 * from the last delivered `pos` (gap-safe, see SqliteEventStore), it never skips, repeats or reorders.
 */
class SqliteSubscription implements Subscription {
  private closed = false;
  private started = false;
  private cancelWait: (() => void) | undefined;

  constructor(
    private readonly store: SqliteEventStore,
    private last: bigint,
    private readonly onClose: () => void,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    // Single consumer: a second iterator would share `last` and split the events between them.
    if (this.started) throw new Error('a subscription can be iterated only once');
    this.started = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<RecordedEvent> {
    try {
      while (!this.closed) {
        const page = this.store.pageAfter(this.last);
        if (page.length === 0) {
          await this.store.waitForAppend((cancel) => (this.cancelWait = cancel));
          this.cancelWait = undefined;
          continue;
        }
        for (const event of page) {
          if (this.closed) return;
          this.last = event.position.commit;
          yield event;
        }
      }
    } finally {
      // Also reached when the consumer breaks out of its loop.
      this.closed = true;
      this.onClose();
    }
  }

  async unsubscribe(): Promise<void> {
    this.closed = true;
    this.cancelWait?.();
    this.onClose();
  }
}

function checkExpected(streamId: string, expected: ExpectedRevision, current: bigint | undefined): void {
  const actual = current ?? 'no_stream';
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === undefined) ||
    (expected === 'stream_exists' && current !== undefined) ||
    (typeof expected === 'bigint' && current === expected);
  if (!ok) throw new WrongExpectedRevisionError(streamId, expected, actual);
}

function seqPosition(seq: bigint): Position {
  return { commit: seq, prepare: seq };
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: row.revision,
    position: seqPosition(row.pos),
    type: row.type,
    data: JSON.parse(row.data) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    created: row.created,
  };
}

function isUniqueViolation(err: unknown): boolean {
  // Duck-typed: the SqliteError class may come from another module instance (test runners, bundles).
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}
