/**
 * Folded stream state, so no command reads or folds a whole stream (ARCHITECTURE.md, "Write side"):
 * each process keeps the fold of the streams it handled lately (a bounded LRU), and a stream's fold
 * is snapshotted every SNAPSHOT_EVERY events beside the stream, so a cold process reads the snapshot
 * and the events after it. A fold also remembers its stream's last request_ids (AIP-155), so a
 * retried request is recognised without reading the history that holds it.
 */
import type { DomainEvent, SnapshotSpec } from '@svc/domain/shared/decider';
import type { Position, RecordedEvent, StoredSnapshot } from '../event-store/event-store.port';

/** A snapshot is written once this many events have been folded since the last one. */
export const SNAPSHOT_EVERY = 200;
/** The request_ids a fold remembers: a retry within the stream's last this-many requests is recognised. */
export const REQUEST_WINDOW = 128;
/** Streams whose fold a process keeps (SVC_FOLD_CACHE_STREAMS). */
export const DEFAULT_CACHED_STREAMS = 10_000;

/** Where one request's events are in its stream. */
export interface RequestMark {
  requestId: string;
  first: bigint;
  last: bigint;
  position: Position;
}

/** A stream folded up to `revision` (-1: nothing folded, the stream may not exist). */
export interface Fold<S> {
  state: S;
  revision: bigint;
  /** Position of the event at `revision`. */
  position: Position | null;
  /** Oldest first, at most REQUEST_WINDOW. */
  requests: RequestMark[];
  /** Revision of the last snapshot written or read. */
  snapshotRevision: bigint;
}


export function emptyFold<S>(initial: S): Fold<S> {
  return { state: initial, revision: -1n, position: null, requests: [], snapshotRevision: -1n };
}

/**
 * Folds recorded events (upcast by `eventOf`) onto `fold`, in place: the fold belongs to its caller.
 * Events at or below the fold's revision are skipped, so a tail read twice is folded once.
 */
export function foldRecords<S, E extends DomainEvent>(
  fold: Fold<S>,
  evolve: (state: S, event: E) => S,
  records: readonly RecordedEvent[],
  eventOf: (record: RecordedEvent) => DomainEvent,
): void {
  for (const record of records) {
    if (record.revision <= fold.revision) continue;
    fold.state = evolve(fold.state, eventOf(record) as E);
    fold.revision = record.revision;
    fold.position = record.position;
    const requestId = record.metadata.requestId;
    if (requestId) markRequest(fold, requestId, record.revision, record.position);
  }
}

function markRequest<S>(fold: Fold<S>, requestId: string, revision: bigint, position: Position): void {
  const last = fold.requests[fold.requests.length - 1];
  if (last && last.requestId === requestId && last.last === revision - 1n) {
    last.last = revision;
    last.position = position;
    return;
  }
  fold.requests.push({ requestId, first: revision, last: revision, position });
  if (fold.requests.length > REQUEST_WINDOW) fold.requests.shift();
}

export function findRequest<S>(fold: Fold<S>, requestId: string): RequestMark | undefined {
  for (let i = fold.requests.length - 1; i >= 0; i--) if (fold.requests[i].requestId === requestId) return fold.requests[i];
  return undefined;
}

interface SnapshotBody {
  state: unknown;
  position: { commit: string; prepare: string } | null;
  requests: Array<{ requestId: string; first: string; last: string; commit: string; prepare: string }>;
}

export function toSnapshot<S>(fold: Fold<S>, spec: SnapshotSpec<S>): StoredSnapshot {
  const body: SnapshotBody = {
    state: spec.encode ? spec.encode(fold.state) : fold.state,
    position: fold.position && { commit: String(fold.position.commit), prepare: String(fold.position.prepare) },
    requests: fold.requests.map((r) => ({ requestId: r.requestId, first: String(r.first), last: String(r.last), commit: String(r.position.commit), prepare: String(r.position.prepare) })),
  };
  return { revision: fold.revision, fold: spec.fold, state: JSON.stringify(body) };
}

/** The fold a snapshot holds, or null when another fold made it (or it does not parse). */
export function fromSnapshot<S>(snapshot: StoredSnapshot, spec: SnapshotSpec<S>): Fold<S> | null {
  if (snapshot.fold !== spec.fold) return null;
  let body: SnapshotBody;
  try {
    body = JSON.parse(snapshot.state) as SnapshotBody;
  } catch {
    return null;
  }
  const state = spec.decode ? spec.decode(body.state) : (body.state as S);
  return {
    state,
    revision: snapshot.revision,
    position: body.position && { commit: BigInt(body.position.commit), prepare: BigInt(body.position.prepare) },
    requests: (body.requests ?? []).map((r) => ({ requestId: r.requestId, first: BigInt(r.first), last: BigInt(r.last), position: { commit: BigInt(r.commit), prepare: BigInt(r.prepare) } })),
    snapshotRevision: snapshot.revision,
  };
}

/**
 * The folds of one process, least recently used first out. Keyed by stream and decider: two
 * deciders folding one stream (a reader's narrower fold, say) keep separate folds.
 */
export class FoldCache {
  private readonly folds = new Map<string, { decider: object; fold: Fold<unknown> }>();

  constructor(private readonly capacity = DEFAULT_CACHED_STREAMS) {}

  get size(): number {
    return this.folds.size;
  }

  get<S>(streamId: string, decider: object): Fold<S> | undefined {
    const entry = this.folds.get(streamId);
    if (!entry || entry.decider !== decider) return undefined;
    // Refresh its place: Map iterates in insertion order, so the first key is the least recently used.
    this.folds.delete(streamId);
    this.folds.set(streamId, entry);
    return entry.fold as Fold<S>;
  }

  set<S>(streamId: string, decider: object, fold: Fold<S>): void {
    this.folds.delete(streamId);
    this.folds.set(streamId, { decider, fold: fold as Fold<unknown> });
    if (this.folds.size > this.capacity) this.folds.delete(this.folds.keys().next().value as string);
  }

  delete(streamId: string): void {
    this.folds.delete(streamId);
  }
}
