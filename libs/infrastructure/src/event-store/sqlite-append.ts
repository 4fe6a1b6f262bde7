/**
 * The SQLite event store's write transaction for a group of appends (group commit, see
 * sqlite-event-store.ts): each append's checks and inserts, in call order, one transaction.
 */
import type Database from 'better-sqlite3';
import { type AppendResult, type ExpectedRevision, START, WrongExpectedRevisionError } from './event-store.port';
import { seqPosition } from './sqlite-event-rows';

interface EventRef {
  pos: bigint;
  stream_id: string;
  revision: bigint;
  event_id: string;
}

/** An event serialized when append() is called, so a caller mutating its objects afterwards changes nothing. */
export interface EncodedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

/** An append waiting in the queue for the next group commit. */
export interface PendingAppend {
  streamId: string;
  events: EncodedEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

export type AppendOutcome = { ok: true; result: AppendResult; wrote: boolean } | { ok: false; error: unknown };

export class AppendTransactions {
  private readonly stmt: {
    streamRevision: Database.Statement<[string], bigint | null>;
    insertEvent: Database.Statement<[string, bigint, string, string, string, string, string]>;
    findEvent: Database.Statement<[string], EventRef>;
    streamRefsFrom: Database.Statement<[string, bigint, number], EventRef>;
    eventAt: Database.Statement<[string, bigint], EventRef>;
  };
  /** A group of one: the transaction is the append, no savepoint needed. */
  private readonly singleTx: Database.Transaction<(p: PendingAppend, created: string) => AppendOutcome>;
  /** A group of several: one transaction, one savepoint per append of several events. */
  private readonly groupTx: Database.Transaction<(group: PendingAppend[], created: string) => AppendOutcome[]>;
  /** Called inside groupTx, so better-sqlite3 runs it as a SAVEPOINT and rolls back only this append on error. */
  private readonly savepointAppend: Database.Transaction<(p: PendingAppend, created: string) => AppendOutcome>;

  /** `db` reads integers as bigint (defaultSafeIntegers) and has the events schema. */
  constructor(db: Database.Database) {
    this.stmt = {
      // The stream's revision is its last event's, one seek in the (stream_id, revision) index: no
      // table of streams to update, which was one more random page written per append.
      streamRevision: db.prepare<[string], bigint | null>('SELECT max(revision) FROM events WHERE stream_id = ?').pluck(),
      insertEvent: db.prepare<[string, bigint, string, string, string, string, string]>(
        'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      findEvent: db.prepare<[string], EventRef>('SELECT pos, stream_id, revision, event_id FROM events WHERE event_id = ?'),
      streamRefsFrom: db.prepare<[string, bigint, number], EventRef>(
        'SELECT pos, stream_id, revision, event_id FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?',
      ),
      eventAt: db.prepare<[string, bigint], EventRef>('SELECT pos, stream_id, revision, event_id FROM events WHERE stream_id = ? AND revision = ?'),
    };
    // A single append may fail half-way (a later event of its batch collides): throwing rolls the whole
    // transaction back, which is only this append.
    this.singleTx = db.transaction((p: PendingAppend, created: string): AppendOutcome => ({ ok: true, ...this.appendInTx(p, created) }));
    this.savepointAppend = db.transaction((p: PendingAppend, created: string): AppendOutcome => ({ ok: true, ...this.appendInTx(p, created) }));
    this.groupTx = db.transaction((group: PendingAppend[], created: string): AppendOutcome[] => {
      const outcomes: AppendOutcome[] = [];
      for (const p of group) {
        try {
          // A savepoint only for an append of several events: one that fails after its first insert
          // must take that insert back. An append of one event writes one statement, which SQLite
          // undoes by itself when it fails (the transaction stays open), so it needs none: two
          // statements fewer per append (SAVEPOINT, RELEASE).
          outcomes.push(p.events.length > 1 ? this.savepointAppend(p, created) : { ok: true, ...this.appendInTx(p, created) });
        } catch (error) {
          // Some errors (I/O, disk full) make SQLite roll back the whole transaction; the appends before
          // this one are then gone too, so the group fails as a whole instead of committing the rest
          // outside any transaction.
          if (!db.inTransaction) throw error;
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    });
  }

  /**
   * Commits the group in one IMMEDIATE transaction (the write lock up front, so the revision checks
   * and the inserts see the same state even when another process appends to the same stream), one
   * outcome per append. Throws, with nothing stored, when the transaction itself fails.
   */
  commit(group: PendingAppend[], created: string): AppendOutcome[] {
    return group.length === 1 ? [this.singleTx.immediate(group[0], created)] : this.groupTx.immediate(group, created);
  }

  /**
   * The checks cost no look-up in the usual append. A new stream (`no_stream`) needs no read of its
   * revision: its first event's insert at revision 0 is refused by the unique (stream, revision)
   * index when the stream exists. The idempotency check (a look-up of the first event's id) runs only
   * when it can change the outcome: when the expected revision does not hold (a retry answers its
   * first result, not a conflict) or when the first insert collides on its id; otherwise the unique
   * index on event ids refuses a reused one. A refused first insert wrote nothing (SQLite undoes a
   * failed statement), so the append then takes the full path.
   */
  private appendInTx(p: PendingAppend, created: string): { result: AppendResult; wrote: boolean } {
    const { streamId, events, expected } = p;
    if (expected === 'no_stream' && events.length > 0) {
      const result = this.insertEvents(streamId, -1n, events, created);
      if (result) return { result, wrote: true };
    }
    const current = this.stmt.streamRevision.get(streamId) ?? undefined;
    if (!expectationHolds(expected, current)) {
      const duplicate = events.length > 0 ? this.checkIdempotent(streamId, events) : undefined;
      if (duplicate) return { result: duplicate, wrote: false };
      throw new WrongExpectedRevisionError(streamId, expected, current ?? 'no_stream');
    }

    if (events.length === 0) {
      const last = current === undefined ? undefined : this.stmt.eventAt.get(streamId, current);
      return { result: { nextRevision: current ?? -1n, position: last ? seqPosition(last.pos) : START }, wrote: false };
    }
    const result = this.insertEvents(streamId, current ?? -1n, events, created);
    if (result) return { result, wrote: true };
    // The revision is free (read under the write lock), so the first id collided: a retry, or a reused id.
    const duplicate = this.checkIdempotent(streamId, events);
    if (duplicate) return { result: duplicate, wrote: false };
    throw new Error(`stream ${streamId}: event id ${events[0].id} already exists in the store`);
  }

  /**
   * Inserts the events after `revision`. Null when the first insert is refused by a unique index
   * (nothing written); a later event's id collision throws (the caller's savepoint takes the first back).
   */
  private insertEvents(streamId: string, revision: bigint, events: EncodedEvent[], created: string): AppendResult | null {
    let pos = -1n;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      revision += 1n;
      try {
        const info = this.stmt.insertEvent.run(streamId, revision, e.id, e.type, e.data, e.metadata, created);
        pos = BigInt(info.lastInsertRowid);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (i === 0) return null;
        throw new Error(`stream ${streamId}: event id ${e.id} already exists in the store`);
      }
    }
    return { nextRevision: revision, position: seqPosition(pos) };
  }

  /**
   * Idempotent append, as EventStoreDB does it: a batch whose ids are already stored, in order, in this
   * stream was written before (a retried request with derived event ids); answer the original result
   * and write nothing. Any other reuse of an id is a bug upstream, so it fails loudly.
   */
  private checkIdempotent(streamId: string, events: EncodedEvent[]): AppendResult | undefined {
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
}

function expectationHolds(expected: ExpectedRevision, current: bigint | undefined): boolean {
  return (
    expected === 'any' ||
    (expected === 'no_stream' && current === undefined) ||
    (expected === 'stream_exists' && current !== undefined) ||
    (typeof expected === 'bigint' && current === expected)
  );
}

function isUniqueViolation(err: unknown): boolean {
  // Duck-typed: the SqliteError class may come from another module instance (test runners, bundles).
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}
