import { randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { Actor, Decider, DomainEvent } from '@svc/domain/shared/decider';
import { type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type Position, WrongExpectedRevisionError } from '../event-store/event-store.port';
import { appendConflicts, commandRetries, commandsAborted } from '../observability/metrics';
import { emptyFold, type Fold, FoldCache, findRequest, foldRecords, fromSnapshot, REQUEST_WINDOW, SNAPSHOT_EVERY, toSnapshot } from './folds';
import { upcast } from './upcasters';
import { timeOrderedId } from './event-id';

/** Namespace for event IDs derived from request_id (AIP-155), so a retried append is a duplicate. */
const REQUEST_NAMESPACE = '6f1c2d3e-8a4b-4c5d-9e6f-7a8b9c0d1e2f';
const MAX_ATTEMPTS = 5;

export interface CommandContext {
  actor: Actor;
  /** AIP-155 request_id: a retry with the same value answers like the first and appends nothing. */
  requestId?: string;
  correlationId?: string;
  causationId?: string;
}

export interface Handled<S> {
  state: S;
  /** Commit position of the command's last event, or null when the command changed nothing. */
  position: Position | null;
  events: DomainEvent[];
  /** True when request_id matched an earlier request and nothing was appended. */
  replayed: boolean;
}

/** A command addressed to one stream, with the decider that judges it. */
export interface StreamCommand<S, C, E extends DomainEvent> {
  decider: Decider<S, C, E>;
  streamId: string;
  command: C;
  context: CommandContext;
  /**
   * Creates skip the read: they append with expected revision "no stream", and only on a conflict
   * read the stream, where the decider answers ALREADY_EXISTS or request_id finds the earlier request.
   */
  create?: boolean;
  /**
   * Decide on the current stream and append nothing: the answer carries the events the command
   * would append (or the replay of an earlier request_id). For a check that must pass before
   * another step, such as a unique claim, precedes the append.
   */
  dryRun?: boolean;
  /**
   * Completes the command with facts that depend on the loaded state (the current holder of a unique
   * value, say). Called on every attempt, so a retry after a conflict decides on fresh facts. It may
   * read (stateOf) but must not execute a command on the same stream: that one would queue behind
   * this one forever.
   */
  complete?: (command: C, state: S) => Promise<C>;
}

/**
 * The command service of every aggregate (Eventuous's CommandService, Emmett's `handle`): load the
 * stream, fold it, decide, append the decision with the expected revision; on a concurrency
 * conflict reload and decide again, a few times, then ABORTED.
 *
 * Commands of this service (one per process) on one stream run one after another, so they never
 * conflict with each other: on a hot resource they would otherwise all read the same revision and
 * all but one retry, over and over. Different streams run concurrently; the expected revision still
 * guards against other processes (docs/decisions.md, "Write side").
 */
export class CommandService {
  private readonly queue = new StreamQueue();
  private readonly folds: FoldCache;
  private readonly log: (line: string) => void;

  constructor(
    private readonly store: EventStore,
    options: { cachedStreams?: number; log?: (line: string) => void } = {},
  ) {
    this.folds = new FoldCache(options.cachedStreams);
    this.log = options.log ?? (() => undefined);
  }

  /** Streams with a command running or queued in this service (tests: the queue holds nothing idle). */
  get busyStreams(): number {
    return this.queue.size;
  }

  /** Loads, decides and appends one command on its stream (queued behind the stream's earlier ones). */
  handle<S, C, E extends DomainEvent>(options: StreamCommand<S, C, E>): Promise<Handled<S>> {
    // A dry run appends nothing, so it cannot conflict: it need not wait its turn.
    if (options.dryRun) return this.attempt(options);
    return this.queue.run(options.streamId, () => this.attempt(options));
  }

  private async attempt<S, C, E extends DomainEvent>(options: StreamCommand<S, C, E>): Promise<Handled<S>> {
    const { decider, streamId, command, context } = options;
    // With a request_id the stream is read first: it may already hold this very request.
    let optimisticCreate = options.create === true && !context.requestId && !options.dryRun;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) commandRetries.inc();
      const fold = optimisticCreate ? emptyFold(decider.initialState()) : await this.load(decider, streamId);
      if (context.requestId) {
        const replay = await this.replayOf(decider, streamId, fold, context.requestId);
        if (replay) return replay;
      }
      const before = fold.revision;
      const decided = decider.decide(options.complete ? await options.complete(command, fold.state) : command, fold.state);
      if (decided.length === 0 || options.dryRun) return { state: fold.state, position: null, events: decided, replayed: false };
      const expected: ExpectedRevision = before < 0n ? 'no_stream' : before;
      let result: AppendResult;
      try {
        result = await this.store.append(streamId, this.toNewEvents(streamId, decided, context), expected);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        appendConflicts.inc();
        optimisticCreate = false;
        continue;
      }
      return { state: this.afterAppend(decider, streamId, fold, before, decided, result, context.requestId), position: result.position, events: decided, replayed: false };
    }
    commandsAborted.inc();
    throw new DomainError('ABORTED', `too many concurrent changes to ${streamId}; try again`);
  }

  /**
   * Folds the command's own events into the stream's fold (no read), keeps it, and snapshots it when
   * due. Another reader of this process may have folded them already (it read the stream after the
   * commit): then there is nothing to fold.
   */
  private afterAppend<S, C, E extends DomainEvent>(
    decider: Decider<S, C, E>,
    streamId: string,
    fold: Fold<S>,
    before: bigint,
    decided: E[],
    result: AppendResult,
    requestId: string | undefined,
  ): S {
    if (fold.revision === before) {
      for (const event of decided) fold.state = decider.evolve(fold.state, event);
      fold.revision = result.nextRevision;
      fold.position = result.position;
      if (requestId) {
        fold.requests.push({ requestId, first: before + 1n, last: result.nextRevision, position: result.position });
        if (fold.requests.length > REQUEST_WINDOW) fold.requests.shift();
      }
    }
    this.folds.set(streamId, decider, fold);
    const spec = decider.snapshot;
    if (spec && fold.revision - fold.snapshotRevision >= BigInt(SNAPSHOT_EVERY)) {
      const snapshot = toSnapshot(fold, spec);
      fold.snapshotRevision = fold.revision;
      // Only an optimization: a failed write costs the next cold reader a longer read, nothing else.
      this.store.writeSnapshot(streamId, snapshot).catch((error: unknown) => this.log(`snapshot of ${streamId} at ${fold.revision} not written: ${error instanceof Error ? error.message : String(error)}`));
    }
    return fold.state;
  }

  /** The current state of a stream (the initial state when it does not exist), appending nothing. */
  async stateOf<S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, streamId: string): Promise<S> {
    return (await this.load(decider, streamId)).state;
  }

  /**
   * The stream's fold brought up to its head: the cached fold, or the snapshot, or nothing, then
   * only the events after it. Everything after the read folds synchronously, so two loads of one
   * stream in this process never fold an event twice (foldRecords skips what the fold has).
   */
  private async load<S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve' | 'snapshot'>, streamId: string): Promise<Fold<S>> {
    let fold = this.folds.get<S>(streamId, decider);
    if (!fold) {
      const spec = decider.snapshot;
      const stored = spec ? await this.store.readSnapshot(streamId) : null;
      fold = (stored && spec && fromSnapshot(stored, spec)) || emptyFold(decider.initialState());
    }
    const tail = await this.store.readStream(streamId, { fromRevision: fold.revision + 1n });
    foldRecords(fold, decider.evolve, tail, upcast);
    this.folds.set(streamId, decider, fold);
    return fold;
  }

  /**
   * The answer to a request already in the stream (AIP-155), or null. Its events are read by their
   * revisions; the state right after it is the fold's when it is the stream's last request, else
   * folded afresh up to it (rare: a retry after later changes).
   */
  private async replayOf<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, streamId: string, fold: Fold<S>, requestId: string): Promise<Handled<S> | null> {
    const mark = findRequest(fold, requestId);
    if (!mark) return null;
    const records = await this.store.readStream(streamId, { fromRevision: mark.first, maxCount: Number(mark.last - mark.first) + 1 });
    const events = records.filter((r) => r.metadata.requestId === requestId).map(upcast);
    let state = fold.state;
    if (mark.last !== fold.revision) {
      const upTo = emptyFold(decider.initialState());
      foldRecords(upTo, decider.evolve, await this.store.readStream(streamId, { maxCount: Number(mark.last) + 1 }), upcast);
      state = upTo.state;
    }
    return { state, position: mark.position, events, replayed: true };
  }

  private toNewEvents(streamId: string, events: DomainEvent[], context: CommandContext): NewEvent[] {
    // The HTTP request's id (X-Request-Id) correlates every event the request appends, whichever
    // command appends it: an access log line leads to the audit trail (docs/decisions.md, "Request ids").
    const correlationId = context.actor.correlationId ?? context.correlationId ?? context.requestId ?? randomUUID();
    return events.map((event, index) => ({
      // Time-ordered when not derived: the stores index event ids, and ids that grow keep that
      // index's inserts on its last page instead of a random page per event (fewer pages per commit).
      id: context.requestId ? uuidv5(`${streamId}|${context.requestId}|${index}`, REQUEST_NAMESPACE) : timeOrderedId(),
      type: event.type,
      data: event.data as Record<string, unknown>,
      metadata: {
        org: context.actor.org,
        actor: context.actor.actor,
        subject: context.actor.subject,
        ...(context.requestId ? { requestId: context.requestId } : {}),
        correlationId,
        causationId: context.causationId ?? correlationId,
        occurredAt: context.actor.now,
        schemaVersion: 1,
      },
    }));
  }
}

/**
 * Runs tasks one after another per key, and tasks of different keys independently. A key's entry
 * lives only while it has a task running or waiting, so memory follows the load, not the key space.
 */
class StreamQueue {
  private readonly tails = new Map<string, Promise<void>>();

  get size(): number {
    return this.tails.size;
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let done!: () => void;
    const tail = new Promise<void>((resolve) => (done = resolve));
    this.tails.set(key, tail);
    try {
      // The previous task's own promise never rejects (see finally): a failure does not block the queue.
      if (previous) await previous;
      return await task();
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
      done();
    }
  }
}
