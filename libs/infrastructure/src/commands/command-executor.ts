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

export interface Execution<S> {
  state: S;
  /** Commit position of the command's last event, or null when the command changed nothing. */
  position: Position | null;
  events: DomainEvent[];
  /** True when request_id matched an earlier request and nothing was appended. */
  replayed: boolean;
}

export interface ExecuteOptions<S, C, E extends DomainEvent> {
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
   * value, say). Called on every attempt, so a retry after a conflict decides on fresh facts.
   */
  complete?: (command: C, state: S) => Promise<C>;
}

/**
 * The generic command handler of every aggregate: load, fold, decide, append with the expected
 * revision; on a concurrency conflict reload and decide again, a few times, then ABORTED.
 */
export class CommandExecutor {
  constructor(private readonly store: EventStore) {}

  async execute<S, C, E extends DomainEvent>(options: ExecuteOptions<S, C, E>): Promise<Execution<S>> {
    const { decider, streamId, command, context } = options;
    // With a request_id the stream is read first: it may already hold this very request.
    let optimisticCreate = options.create === true && !context.requestId && !options.dryRun;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
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
        optimisticCreate = false;
      }
    }
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
    const correlationId = context.correlationId ?? context.requestId ?? randomUUID();
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
): Execution<S> | null {
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
