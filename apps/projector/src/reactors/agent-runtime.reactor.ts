/**
 * The agent runtime as a reactor: subscribes to the log from its own checkpoint (stored like a
 * projection's, committed on its own, never in the projections' batch, so a slow model delays no
 * read model), and runs a turn for every SessionTurnRequested. Turns of different sessions run
 * concurrently (up to `concurrency`), a session's turns one after another. A failing turn (store
 * down, model rate-limited) is retried with backoff forever; only a turn the domain refuses for good
 * is parked. The checkpoint never passes a turn still running: after a crash the turn is delivered
 * again, and the turn runner's idempotency (the turn id) finds any result already committed.
 */
import { SESSION_EVENTS } from '@svc/contracts/sessions/session.events';
import { DomainError } from '@svc/domain/shared/domain-error';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionToString,
  type RecordedEvent,
  START,
  type Subscription,
} from '@svc/infrastructure/event-store/event-store.port';
import { RuntimeFault } from '@svc/infrastructure/integrations/agent-runtime';
import type { TurnRef, TurnRunner } from '@svc/infrastructure/integrations/agent-runtime/turn-runner';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF, describeError, SupervisedLoop } from '@svc/infrastructure/projection/supervisor';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

export const AGENT_RUNTIME_CHECKPOINT = 'reactor:agent-runtime';
/** Meta record with the reactor's progress (turns running, retries, last error). */
export const AGENT_RUNTIME_STATUS_KEY = 'reactor:agent-runtime:status';
/** Turns seen but not yet passed by the checkpoint; reading the log pauses past this many. */
const MAX_MARKS = 10_000;
const COMMIT_EVERY_MS = 500;
/** Domain answers that may change on their own: retried like a store fault. */
const TRANSIENT_CODES = new Set(['ABORTED', 'UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED']);

export interface AgentRuntimeReactorOptions {
  concurrency: number;
  backoff?: BackoffOptions;
  log: (line: string) => void;
}

interface Running {
  session: string;
  turnId: string;
  since: string;
  attempt: number;
  lastError?: string;
  retryAt?: string;
}

export interface AgentRuntimeStatus {
  at: string;
  checkpoint: string;
  running: Running[];
  completedTurns: number;
  lastError: string | null;
}

export class AgentRuntimeReactor {
  private readonly loop: SupervisedLoop;
  private readonly abort = new AbortController();
  private subscription: Subscription | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sessionTails = new Map<string, Promise<void>>();
  private readonly running = new Map<string, Running>();
  private marks = new Marks(START);
  private committed: Position = START;
  private completedTurns = 0;
  private lastError: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly runner: TurnRunner,
    private readonly options: AgentRuntimeReactorOptions,
  ) {
    this.loop = new SupervisedLoop({
      body: () => this.follow(),
      interrupt: async () => void (await this.subscription?.unsubscribe()),
      onRetry: ({ attempt, delayMs, error }) => {
        this.lastError = describeError(error);
        this.options.log(`agent runtime: subscription failed (attempt ${attempt}), again in ${delayMs} ms: ${this.lastError}`);
      },
      backoff: options.backoff,
    });
  }

  start(): void {
    this.loop.start();
    this.timer = setInterval(() => void this.flush(), COMMIT_EVERY_MS);
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error('the projector is stopping'));
    if (this.timer) clearInterval(this.timer);
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
    await this.flush();
  }

  status(): AgentRuntimeStatus {
    return {
      at: new Date().toISOString(),
      checkpoint: positionToString(this.committed),
      running: [...this.running.values()],
      completedTurns: this.completedTurns,
      lastError: this.lastError,
    };
  }

  /** One subscription from the committed checkpoint; returns (or throws) when it ends. */
  private async follow(): Promise<void> {
    // Turns of an earlier subscription finish first: the marks start over from the checkpoint.
    await Promise.allSettled([...this.inFlight]);
    await this.flush();
    const after = (await this.reads.getCheckpoint(AGENT_RUNTIME_CHECKPOINT)) ?? START;
    this.committed = after;
    this.marks = new Marks(after);
    const marks = this.marks;
    this.subscription = this.events.subscribeToAll({ after });
    try {
      for await (const record of this.subscription) {
        const ref = turnRequested(record);
        if (!ref) {
          marks.pass(record.position);
          continue;
        }
        while (this.inFlight.size > 0 && (this.inFlight.size >= this.options.concurrency || marks.unsettled() >= MAX_MARKS)) {
          await Promise.race(this.inFlight);
        }
        const mark = marks.begin(record.position);
        const job = this.inSession(ref, () => this.runTurn(ref, record)).finally(() => {
          mark.done = true;
          this.inFlight.delete(job);
        });
        this.inFlight.add(job);
      }
    } finally {
      await this.subscription.unsubscribe();
      this.subscription = null;
    }
  }

  /** A session's turns run one after another, in log order; the map holds only busy sessions. */
  private inSession(ref: TurnRef, task: () => Promise<void>): Promise<void> {
    const key = `${ref.org}|${ref.sessionName}`;
    const tail = (this.sessionTails.get(key) ?? Promise.resolve()).then(task);
    this.sessionTails.set(key, tail);
    return tail.finally(() => {
      if (this.sessionTails.get(key) === tail) this.sessionTails.delete(key);
    });
  }

  /** Runs one turn until it is done, retrying with backoff; never throws. */
  private async runTurn(ref: TurnRef, record: RecordedEvent): Promise<void> {
    const key = `${ref.sessionName} ${ref.turnId}`;
    const state: Running = { session: `${ref.org}:${ref.sessionName}`, turnId: ref.turnId, since: new Date().toISOString(), attempt: 0 };
    this.running.set(key, state);
    try {
      while (!this.abort.signal.aborted) {
        state.attempt++;
        try {
          const outcome = await this.runner.run(ref, this.abort.signal);
          if (outcome !== 'already-completed') this.completedTurns++;
          this.options.log(`agent runtime: ${key}: ${outcome}${state.attempt > 1 ? ` after ${state.attempt} attempts` : ''}`);
          return;
        } catch (error) {
          if (this.abort.signal.aborted) return;
          const described = describeError(error);
          state.lastError = this.lastError = described;
          if (error instanceof DomainError && !TRANSIENT_CODES.has(error.code)) {
            // Deterministic: the same turn would be refused again. Park it (visible in `parked`) and go on.
            await this.park(record, described);
            return;
          }
          const delayMs = error instanceof RuntimeFault && error.retryAfterMs ? error.retryAfterMs : backoffDelay(state.attempt, this.options.backoff ?? DEFAULT_BACKOFF);
          state.retryAt = new Date(Date.now() + delayMs).toISOString();
          this.options.log(`agent runtime: ${key}: attempt ${state.attempt} failed, again in ${delayMs} ms: ${described}`);
          await sleep(delayMs, this.abort.signal);
        }
      }
    } finally {
      this.running.delete(key);
    }
  }

  private async park(record: RecordedEvent, error: string): Promise<void> {
    this.options.log(`agent runtime: parking ${record.type} ${record.id} of ${record.streamId}: ${error}`);
    for (let attempt = 1; !this.abort.signal.aborted; attempt++) {
      try {
        await this.reads.park({
          projection: AGENT_RUNTIME_CHECKPOINT,
          eventId: record.id,
          eventType: record.type,
          streamId: record.streamId,
          position: record.position,
          error,
          parkedAt: new Date().toISOString(),
        });
        return;
      } catch {
        await sleep(backoffDelay(attempt, this.options.backoff ?? DEFAULT_BACKOFF), this.abort.signal);
      }
    }
  }

  /** Commits the checkpoint up to the oldest unfinished turn, and the status; one flush at a time. */
  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const safe = this.marks.settle();
      try {
        if (comparePositions(safe, this.committed) > 0) {
          await this.reads.commit({ checkpoint: AGENT_RUNTIME_CHECKPOINT, position: safe, ops: [] });
          this.committed = safe;
        }
        await this.reads.putMeta(AGENT_RUNTIME_STATUS_KEY, this.status());
      } catch (error) {
        // The next flush tries again; a checkpoint left behind only means a turn found done twice.
        this.lastError = describeError(error);
      }
    });
    return this.flushing;
  }
}

/** The turn a SessionTurnRequested asks for, or null for any other event. */
function turnRequested(record: RecordedEvent): TurnRef | null {
  if (record.type !== SESSION_EVENTS.turnRequested || !record.streamId.startsWith('session-')) return null;
  const colon = record.streamId.indexOf(':');
  const turnId = record.data.turnId;
  if (colon < 0 || typeof turnId !== 'string') return null;
  return { org: record.metadata.org, sessionName: record.streamId.slice(colon + 1), turnId };
}

/**
 * The low-water mark of the checkpoint: turns begun in log order, each with the latest position
 * passed after it. The checkpoint may advance over a turn once it, and every turn before it, is done.
 * Holds one entry per unfinished turn (and finished ones behind it), never one per event.
 */
class Marks {
  private readonly queue: Array<{ position: Position; passed: Position | null; done: boolean }> = [];

  constructor(private safe: Position) {}

  /** Turns not yet passed (after passing the finished ones at the head). */
  unsettled(): number {
    this.settle();
    return this.queue.length;
  }

  pass(position: Position): void {
    if (this.queue.length === 0) this.safe = position;
    else this.queue[this.queue.length - 1].passed = position;
  }

  begin(position: Position): { done: boolean } {
    const mark = { position, passed: null, done: false };
    this.queue.push(mark);
    return mark;
  }

  settle(): Position {
    while (this.queue.length > 0 && this.queue[0].done) {
      const mark = this.queue.shift()!;
      this.safe = mark.passed ?? mark.position;
    }
    return this.safe;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
