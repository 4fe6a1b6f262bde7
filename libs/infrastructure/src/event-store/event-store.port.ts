/**
 * The event store port: the subset of EventStoreDB's model the product relies on.
 * Adapters: SQLite (embedded default) and EventStoreDB. Both pass test/contracts/event-store.contract.ts.
 */

/** Global position in the log. SQLite uses one sequence for both parts; EventStoreDB has commit/prepare. */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = { commit: -1n, prepare: -1n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function positionToString(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function positionFromString(s: string): Position {
  const [c, p] = s.split('/');
  return { commit: BigInt(c), prepare: BigInt(p ?? c) };
}

/** Expected state of the stream for an optimistic append. A bigint is the exact revision of the last event. */
export type ExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | bigint;

export interface EventMetadata {
  org: string;
  actor: string;
  subject: string;
  requestId?: string;
  correlationId: string;
  causationId: string;
  occurredAt: string;
  schemaVersion: number;
}

export interface NewEvent {
  /** UUID. Derived from request_id when the command carries one, so a retried append is a duplicate. */
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface RecordedEvent {
  id: string;
  streamId: string;
  /** 0-based revision of the event inside its stream. */
  revision: bigint;
  position: Position;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  /** ISO time the store recorded the event. */
  created: string;
}

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: bigint;
  /** Position of the last appended event (the command's commit position). */
  position: Position;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive start revision; defaults to the start (forwards) or the end (backwards). */
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  direction?: 'forwards' | 'backwards';
  /** Exclusive: events strictly after this position (forwards) or strictly before (backwards). */
  after?: Position;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Exclusive checkpoint: delivery starts with the first event after it; START delivers everything. */
  after: Position;
  /**
   * How soon after an append the subscriber needs the event. `live` (the default) is for read
   * models, which commands wait for; `relaxed` for reactors, which start work that takes far longer
   * than a few milliseconds: a store that polls (SQLite, for appends of other processes) looks less
   * often for them, and reads bigger pages. A push store (EventStoreDB) delivers both at once.
   */
  latency?: 'live' | 'relaxed';
}

/** A catch-up then live subscription to all (non-system) events, in position order. */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  unsubscribe(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * A stream's folded state as of one revision, kept beside the stream so a cold process reads it and
 * the events after it instead of the whole stream. Never an event: no subscription, readAll or
 * readStream sees it. Only an optimization: losing one costs a longer read, never a fact.
 */
export interface StoredSnapshot {
  /** Revision of the last event folded into `state`. */
  revision: bigint;
  /** Names the fold that made it (decider and version): a reader whose fold differs ignores it. */
  fold: string;
  /** The folded state, serialized (JSON). */
  state: string;
}

export interface EventStore {
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** The newest snapshot of a stream, or null. */
  readSnapshot(streamId: string): Promise<StoredSnapshot | null>;
  /** Keeps a snapshot of a stream; one of a lower revision than the kept one (of the same fold) is ignored. */
  writeSnapshot(streamId: string, snapshot: StoredSnapshot): Promise<void>;
  /** Events of one stream; an unknown stream reads as empty. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options: SubscribeOptions): Subscription;
  /** Position of the newest event in the log, or START when empty. */
  headPosition(): Promise<Position>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');
