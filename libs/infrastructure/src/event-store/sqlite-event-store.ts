import { EventEmitter } from 'node:events';
import { resolve as resolvePath } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from '../sqlite/driver';
import { enableWal } from '../sqlite/wal';
import { checkAppendSize } from './append-limit';
import { RecentEvents } from './recent-events';
import { type Page, SqliteSubscription } from './sqlite-subscription';
import { WalCheckpointer } from '../sqlite/wal-checkpointer';
import { type CommitWatch, CommitMarker, watchCommits } from '../sqlite/commit-watch';
import { AppendTransactions, type AppendOutcome, type EncodedEvent, type PendingAppend } from './sqlite-append';
import { decodeRows, type EventTuple, SCHEMA, seqPosition } from './sqlite-event-rows';
import {
  type StoredSnapshot,
  AppendResult,
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
} from './event-store.port';

export interface SqliteEventStoreOptions {
  /** Path of the database file; several processes may open the same file. */
  file: string;
  /** How often an idle subscription looks for events appended by other processes. Default 1 ms. */
  pollIntervalMs?: number;
  /**
   * The same while other processes' commits are heard (commit-watch.ts): the poll is then only the
   * safety net for a writer that does not signal. Default 50 ms.
   */
  watchedPollIntervalMs?: number;
  /** The same for `latency: 'relaxed'` subscriptions (reactors). Default 25 ms. */
  relaxedPollIntervalMs?: number;
  /** How long a write waits for another process's write lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * Run WAL checkpoints on a worker thread (see WalCheckpointer) instead of inside the commit that
   * fills the WAL. Default true; false restores SQLite's automatic checkpoints.
   */
  backgroundCheckpoints?: boolean;
}


const DEFAULT_READ_ALL_MAX = 4096;
const SUBSCRIPTION_PAGE = 512;
/** SQLite's LIMIT -1 means "no limit". */
const NO_LIMIT = -1;
const MAX_INT64 = 9223372036854775807n;
/**
 * Most appends committed in one transaction. Bounds how long one commit holds the write lock that
 * other processes (projector, CLI, other api instances) wait on: 256 x ~35 µs is about 9 ms.
 */
const MAX_GROUP = 256;

/**
 * Wakes subscriptions when an append commits in this process, keyed by the resolved file path so that
 * two store instances on one file (api and in-process projector) also wake each other without polling.
 */
const appended = new EventEmitter();
appended.setMaxListeners(0);


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
 *
 * Group commit: a write transaction's fixed cost (BEGIN IMMEDIATE, WAL commit) is most of an append's
 * cost, so appends are queued and every append that arrives in the same event-loop turn (the api's
 * concurrent commands) is committed in one transaction, drained on setImmediate. Each append still
 * runs on its own: its idempotency and expected-revision checks see the state left by the appends
 * before it in the group, and a failing append (conflict, id collision) rolls back alone while the
 * others commit (a SAVEPOINT for an append of several events; one statement undoes itself). Callers are settled only after the COMMIT, so nobody sees
 * success for an append that could still roll back; if the transaction itself fails (SQLITE_BUSY past
 * busy_timeout, I/O error) every caller of the group gets that error and nothing of it is stored.
 * Appends are committed in call order, so positions follow call order within a process.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly wakeKey: string;
  private readonly pollIntervalMs: number;
  private readonly watchedPollIntervalMs: number;
  private readonly relaxedPollIntervalMs: number;
  private readonly subscriptions = new Set<SqliteSubscription>();
  /** What the subscriptions read last, decoded once for all of them. */
  private readonly recent = new RecentEvents();
  /** Touched after each commit that wrote events: other processes' live subscriptions wake on it. */
  private readonly marker: CommitMarker;
  /** While a live subscription is open: other processes' commits wake it (commit-watch.ts). */
  private watch: CommitWatch | null = null;
  private liveSubscriptions = 0;
  /** The `appended` event a commit of any process emits (this.wakeKey: appends of this process). */
  private readonly commitKey: string;
  private closed = false;
  /** Commit signals heard (SubscriptionSource.signalCount): every wake-up a subscription could get. */
  private signals = 0;
  private readonly countSignal = (): void => {
    this.signals++;
  };
  private queue: PendingAppend[] = [];
  private drainScheduled = false;
  private readonly checkpointer: WalCheckpointer | undefined;
  /** Set while the checkpointer finishes a checkpoint so that the WAL can restart (see WalCheckpointer). */
  private writesHeld = false;

  private readonly stmt: {
    streamForwards: Database.Statement<[string, bigint, number], EventTuple>;
    streamTail: Database.Statement<[string, bigint], EventTuple>;
    streamBackwards: Database.Statement<[string, bigint, number], EventTuple>;
    allForwards: Database.Statement<[bigint, number], EventTuple>;
    subscriptionPage: Database.Statement<[bigint], EventTuple>;
    allBackwards: Database.Statement<[bigint, number], EventTuple>;
    head: Database.Statement<[], bigint | null>;
    readSnapshot: Database.Statement<[string], [bigint, string, string]>;
    writeSnapshot: Database.Statement<[string, bigint, string, string]>;
  };

  /** The write transaction of a group of appends (sqlite-append.ts). */
  private readonly appends: AppendTransactions;

  constructor(options: SqliteEventStoreOptions) {
    this.wakeKey = resolvePath(options.file);
    this.commitKey = `${this.wakeKey}\u0000commit`;
    this.marker = new CommitMarker(options.file);
    this.pollIntervalMs = options.pollIntervalMs ?? 1;
    this.watchedPollIntervalMs = options.watchedPollIntervalMs ?? 50;
    this.relaxedPollIntervalMs = options.relaxedPollIntervalMs ?? 25;
    // `timeout` is SQLite's busy_timeout: a writer waits for another process's lock instead of failing.
    this.db = openSqlite(options.file, { timeout: options.busyTimeoutMs ?? 5000 });
    enableWal(this.db, options.busyTimeoutMs ?? 5000);
    this.db.pragma('synchronous = NORMAL');
    if (options.backgroundCheckpoints ?? true) {
      this.checkpointer = new WalCheckpointer(this.wakeKey, options.busyTimeoutMs ?? 5000, {
        holdWrites: () => {
          this.writesHeld = true;
        },
        resumeWrites: () => {
          this.writesHeld = false;
          this.scheduleDrain();
        },
        fallBack: () => {
          // Without its checkpointer the WAL would grow without bound: back to checkpoints in the commit.
          if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
        },
      });
      this.db.pragma('wal_autocheckpoint = 0');
    }
    // Positions and revisions are 64-bit; reading them as bigint avoids silent precision loss.
    this.db.defaultSafeIntegers(true);
    this.db.exec(SCHEMA);

    // Column order is EventTuple's.
    const cols = 'pos, stream_id, revision, event_id, type, data, metadata, created';
    const db = this.db;
    this.stmt = {
      streamForwards: db
        .prepare<[string, bigint, number], EventTuple>(`SELECT ${cols} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`)
        .raw(),
      // The hot reads (a command's tail after its cached fold, a subscription's next page) take no
      // bound LIMIT: SQLite re-prepares a statement whose LIMIT parameter changed binding, which
      // cost about 10 µs a read (docs/decisions.md, "Faster writes, third pass").
      streamTail: db.prepare<[string, bigint], EventTuple>(`SELECT ${cols} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision`).raw(),
      subscriptionPage: db.prepare<[bigint], EventTuple>(`SELECT ${cols} FROM events WHERE pos > ? ORDER BY pos LIMIT ${SUBSCRIPTION_PAGE}`).raw(),
      streamBackwards: db
        .prepare<[string, bigint, number], EventTuple>(`SELECT ${cols} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`)
        .raw(),
      allForwards: db.prepare<[bigint, number], EventTuple>(`SELECT ${cols} FROM events WHERE pos > ? ORDER BY pos LIMIT ?`).raw(),
      allBackwards: db.prepare<[bigint, number], EventTuple>(`SELECT ${cols} FROM events WHERE pos < ? ORDER BY pos DESC LIMIT ?`).raw(),
      head: db.prepare<[], bigint | null>('SELECT max(pos) FROM events').pluck(),
      readSnapshot: db.prepare<[string], [bigint, string, string]>('SELECT revision, fold, state FROM snapshots WHERE stream_id = ?').raw(),
      // A newer revision replaces the kept one; so does another fold (a changed fold's first snapshot).
      writeSnapshot: db.prepare<[string, bigint, string, string]>(
        'INSERT INTO snapshots (stream_id, revision, fold, state) VALUES (?, ?, ?, ?) ON CONFLICT (stream_id) DO UPDATE SET ' +
          'revision = excluded.revision, fold = excluded.fold, state = excluded.state WHERE excluded.revision > snapshots.revision OR excluded.fold <> snapshots.fold',
      ),
    };
    this.appends = new AppendTransactions(db);
    appended.on(this.wakeKey, this.countSignal);
    appended.on(this.commitKey, this.countSignal);
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      this.assertOpen();
      // Serialized now (a throw here rejects this append alone): the caller may reuse or mutate its
      // objects once append() returns, and less work is then done while holding the write lock.
      const encoded = events.map(
        (e): EncodedEvent => ({ id: e.id, type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) }),
      );
      checkAppendSize(encoded); // EventStoreDB's limit, so both stores refuse the same appends
      this.queue.push({ streamId, events: encoded, expected, resolve, reject });
      this.scheduleDrain();
    });
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.writesHeld || this.queue.length === 0) return;
    this.drainScheduled = true;
    // setImmediate runs after the poll phase has handled every request that was ready, so all the
    // commands of one turn land in the group (a microtask would commit after the first request).
    setImmediate(this.drain);
  }

  /** Commits everything queued, MAX_GROUP appends per transaction, in call order. */
  private readonly drain = (): void => {
    this.drainScheduled = false;
    while (this.queue.length > 0 && !this.writesHeld) {
      const group = this.queue.length <= MAX_GROUP ? this.queue : this.queue.slice(0, MAX_GROUP);
      this.queue = this.queue.length <= MAX_GROUP ? [] : this.queue.slice(MAX_GROUP);
      this.commitGroup(group);
    }
  };

  private commitGroup(group: PendingAppend[]): void {
    // One timestamp per transaction: the events of a group are recorded together.
    const created = new Date().toISOString();
    let outcomes: AppendOutcome[];
    try {
      outcomes = this.appends.commit(group, created);
    } catch (error) {
      // Nothing of the group was stored (the transaction rolled back, or never began).
      for (const p of group) p.reject(error);
      return;
    }
    let written = 0;
    for (let i = 0; i < group.length; i++) {
      const outcome = outcomes[i];
      if (outcome.ok) {
        if (outcome.wrote) written += group[i].events.length;
        group[i].resolve(outcome.result);
      } else {
        group[i].reject(outcome.error);
      }
    }
    if (written === 0) return;
    // Once per group: subscribers read the whole group in one page anyway.
    this.marker.signal();
    appended.emit(this.wakeKey);
    this.checkpointer?.written(written);
  }

  async readSnapshot(streamId: string): Promise<StoredSnapshot | null> {
    this.assertOpen();
    const row = this.stmt.readSnapshot.get(streamId);
    return row ? { revision: row[0], fold: row[1], state: row[2] } : null;
  }

  /**
   * Its own small write, outside the append groups: a snapshot never delays or fails an append. While
   * the checkpointer holds writes (the WAL is restarting) it is skipped: the next one will do.
   */
  async writeSnapshot(streamId: string, snapshot: StoredSnapshot): Promise<void> {
    this.assertOpen();
    if (this.writesHeld) return;
    this.stmt.writeSnapshot.run(streamId, snapshot.revision, snapshot.fold, snapshot.state);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const rows =
      options.direction === 'backwards'
        ? this.stmt.streamBackwards.all(streamId, options.fromRevision ?? MAX_INT64, options.maxCount ?? NO_LIMIT)
        : options.maxCount === undefined
          ? this.stmt.streamTail.all(streamId, options.fromRevision ?? 0n)
          : this.stmt.streamForwards.all(streamId, options.fromRevision ?? 0n, options.maxCount);
    return decodeRows(rows);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? DEFAULT_READ_ALL_MAX;
    const rows =
      options.direction === 'backwards'
        ? this.stmt.allBackwards.all(options.after ? options.after.commit : MAX_INT64, limit)
        : this.stmt.allForwards.all((options.after ?? START).commit, limit);
    return decodeRows(rows);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const live = options.latency !== 'relaxed';
    const sub = new SqliteSubscription(this, options.after.commit, live ? this.pollIntervalMs : this.relaxedPollIntervalMs, live, () => {
      if (!this.subscriptions.delete(sub) || !live) return;
      if (--this.liveSubscriptions === 0) this.stopWatching();
    });
    this.subscriptions.add(sub);
    // Other processes' commits wake the live subscriptions as this process's appends do (relaxed ones
    // keep their poll); the poll stays as the safety net: a writer may not touch the marker, or the
    // watch be unavailable (commit-watch.ts).
    if (live && this.liveSubscriptions++ === 0) this.watch = watchCommits(this.wakeKey, () => appended.emit(this.commitKey));
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
    // Appends accepted before close() are committed, not dropped (even while writes are held for a
    // checkpoint); the scheduled drain then finds nothing.
    await this.checkpointer?.close();
    this.writesHeld = false;
    this.drain();
    await Promise.all([...this.subscriptions].map((s) => s.unsubscribe()));
    this.stopWatching();
    appended.off(this.wakeKey, this.countSignal);
    appended.off(this.commitKey, this.countSignal);
    this.marker.close();
    this.db.close();
  }

  signalCount(): number {
    return this.signals;
  }

  hearsCommits(): boolean {
    return this.watch?.alive === true;
  }

  /** One page of events after `pos`, for subscriptions (SubscriptionSource). */
  pageAfter(pos: bigint): Page {
    // The shared window ends where the last read ended, not necessarily at the head.
    const recent = this.recent.after(pos, SUBSCRIPTION_PAGE);
    if (recent) return { events: recent, complete: false };
    const events = decodeRows(this.stmt.subscriptionPage.all(pos));
    this.recent.remember(pos, events);
    return { events, complete: events.length < SUBSCRIPTION_PAGE };
  }

  /**
   * Resolves on the next in-process append (`anyCommit`: or another process's commit), after
   * `pollMs`, or when `cancel` is called.
   */
  waitForAppend(pollMs: number, anyCommit: boolean, register: (cancel: () => void) => void): Promise<void> {
    // A live subscription that hears every commit polls only as a safety net.
    if (anyCommit && this.watch?.alive) pollMs = Math.max(pollMs, this.watchedPollIntervalMs);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        appended.off(this.wakeKey, done);
        if (anyCommit) appended.off(this.commitKey, done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      appended.on(this.wakeKey, done);
      if (anyCommit) appended.on(this.commitKey, done);
      register(done);
    });
  }

  private stopWatching(): void {
    this.watch?.stop();
    this.watch = null;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('SqliteEventStore is closed');
  }
}

