import { randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { Actor, Decider, DomainEvent } from '@svc/domain/shared/decider';
import {
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../event-store/event-store.port';
import { appendConflicts, commandRetries, commandsAborted } from '../observability/metrics';
import { upcast } from './upcasters';

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

  constructor(private readonly store: EventStore) {}

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
      const history = optimisticCreate ? [] : await this.load(streamId);
      if (context.requestId) {
        const replay = replayOf(decider, history, context.requestId);
        if (replay) return replay;
      }
      const state = history.reduce((s, e) => decider.evolve(s, e.event as E), decider.initialState());
      const decided = decider.decide(options.complete ? await options.complete(command, state) : command, state);
      if (decided.length === 0 || options.dryRun) return { state, position: null, events: decided, replayed: false };
      const expected: ExpectedRevision = history.length === 0 ? 'no_stream' : history[history.length - 1].revision;
      try {
        const result = await this.store.append(streamId, this.toNewEvents(streamId, decided, context), expected);
        return { state: decided.reduce(decider.evolve, state), position: result.position, events: decided, replayed: false };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        appendConflicts.inc();
        optimisticCreate = false;
      }
    }
    commandsAborted.inc();
    throw new DomainError('ABORTED', `too many concurrent changes to ${streamId}; try again`);
  }

  /** The current state of a stream (the initial state when it does not exist), appending nothing. */
  async stateOf<S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, streamId: string): Promise<S> {
    const history = await this.load(streamId);
    return history.reduce((s, e) => decider.evolve(s, e.event as E), decider.initialState());
  }

  private async load(streamId: string): Promise<Loaded[]> {
    const recorded = await this.store.readStream(streamId);
    return recorded.map((r) => ({ event: upcast(r), revision: r.revision, record: r }));
  }

  private toNewEvents(streamId: string, events: DomainEvent[], context: CommandContext): NewEvent[] {
    // The HTTP request's id (X-Request-Id) correlates every event the request appends, whichever
    // command appends it: an access log line leads to the audit trail (docs/decisions.md, "Request ids").
    const correlationId = context.actor.correlationId ?? context.correlationId ?? context.requestId ?? randomUUID();
    return events.map((event, index) => ({
      id: context.requestId ? uuidv5(`${streamId}|${context.requestId}|${index}`, REQUEST_NAMESPACE) : randomUUID(),
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

interface Loaded {
  event: DomainEvent;
  revision: bigint;
  record: RecordedEvent;
}

/** The state right after the earlier request with this request_id, answered again without appending. */
function replayOf<S, C, E extends DomainEvent>(
  decider: Decider<S, C, E>,
  history: Loaded[],
  requestId: string,
): Handled<S> | null {
  let last = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].record.metadata.requestId === requestId) {
      last = i;
      break;
    }
  }
  if (last < 0) return null;
  const upTo = history.slice(0, last + 1);
  const events = history.filter((h) => h.record.metadata.requestId === requestId).map((h) => h.event);
  return {
    state: upTo.reduce((s, e) => decider.evolve(s, e.event as E), decider.initialState()),
    position: history[last].record.position,
    events,
    replayed: true,
  };
}
