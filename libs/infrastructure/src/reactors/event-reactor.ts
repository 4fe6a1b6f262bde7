/**
 * The runner every log-driven reactor shares (the agent runtime, post-deploy, row triggers): it
 * subscribes to the log from its own checkpoint (a read-store checkpoint committed on its own, never
 * in the projections' batch, so a slow reactor delays no read model) and runs a job for each event
 * the reactor selects. Jobs of different keys run concurrently (up to `concurrency`), a key's jobs
 * one after another in log order. A failing job (store down, model rate-limited) is retried with
 * backoff forever; only a job the domain refuses for good is parked. The checkpoint never passes a
 * job still running: after a crash the job is delivered again, and the job's own idempotency (an
 * id derived from its occasion) finds any result already committed.
 */
import { Marks } from './checkpoint-marks';
import { reactorCheckpoint, reactorStatusKey } from './reactor-names';
import { DomainError } from '@svc/domain/shared/domain-error';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionToString,
  type RecordedEvent,
  START,
  type Subscription,
} from '../event-store/event-store.port';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF, describeError, SupervisedLoop } from '../projection/supervisor';
import type { ReadStore } from '../read-store/read-store.port';

/** Jobs seen but not yet passed by the checkpoint; reading the log pauses past this many. */
const MAX_MARKS = 10_000;
const COMMIT_EVERY_MS = 500;
/** Domain answers that may change on their own: retried like a store fault. */
const TRANSIENT_CODES = new Set(['ABORTED', 'UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED']);

/** Whether a job's failure is the domain refusing it for good (the same job would be refused again). */
export function refusedForGood(error: unknown): error is DomainError {
  return error instanceof DomainError && !TRANSIENT_CODES.has(error.code);
}

export interface ReactorJob {
  /** Jobs with one key run one after another, in log order. */
  key: string;
  /** How the job is named in logs and the status. */
  label: string;
}

export interface ReactorDefinition<J extends ReactorJob> {
  /** `reactor:<name>` is the checkpoint (and parked events' projection); `reactor:<name>:status` the progress record. */
  name: string;
  /** The job an event asks for, or null to pass it by. Pure and cheap: it runs for every event. */
  select(record: RecordedEvent): J | null;
  /** Does the job; resolves with a word for the log. Throws to be retried (or parked, see above). */
  run(job: J, signal: AbortSignal): Promise<string>;
  /** A delay the failure itself asks for (a Retry-After), instead of the backoff's. */
  retryAfterMs?(error: unknown): number | undefined;
}

export interface EventReactorOptions {
  concurrency: number;
  backoff?: BackoffOptions;
  log: (line: string) => void;
}

interface Running {
  key: string;
  job: string;
  since: string;
  attempt: number;
  lastError?: string;
  retryAt?: string;
}

export interface ReactorStatus {
  at: string;
  checkpoint: string;
  running: Running[];
  completed: number;
  lastError: string | null;
}

export class EventReactor<J extends ReactorJob> {
  private readonly loop: SupervisedLoop;
  private readonly abort = new AbortController();
  private readonly checkpoint: string;
  private subscription: Subscription | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly keyTails = new Map<string, Promise<void>>();
  private readonly running = new Map<string, Running>();
  private marks = new Marks(START);
  private committed: Position = START;
  private completed = 0;
  private lastError: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private nextJob = 0;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly definition: ReactorDefinition<J>,
    private readonly options: EventReactorOptions,
  ) {
    this.checkpoint = reactorCheckpoint(definition.name);
    this.loop = new SupervisedLoop({
      body: () => this.follow(),
      interrupt: async () => void (await this.subscription?.unsubscribe()),
      onRetry: ({ attempt, delayMs, error }) => {
        this.lastError = describeError(error);
        this.options.log(`${definition.name}: subscription failed (attempt ${attempt}), again in ${delayMs} ms: ${this.lastError}`);
      },
      backoff: options.backoff,
    });
  }

  /** Aborted when the reactor stops: jobs that wait (a timer) end early and are delivered again next time. */
  get signal(): AbortSignal {
    return this.abort.signal;
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

  status(): ReactorStatus {
    return {
      at: new Date().toISOString(),
      checkpoint: positionToString(this.committed),
      running: [...this.running.values()],
      completed: this.completed,
      lastError: this.lastError,
    };
  }

  /** One subscription from the committed checkpoint; returns (or throws) when it ends. */
  private async follow(): Promise<void> {
    // Jobs of an earlier subscription finish first: the marks start over from the checkpoint.
    await Promise.allSettled([...this.inFlight]);
    await this.flush();
    const after = (await this.reads.getCheckpoint(this.checkpoint)) ?? START;
    this.committed = after;
    this.marks = new Marks(after);
    const marks = this.marks;
    this.subscription = this.events.subscribeToAll({ after, latency: 'relaxed' });
    try {
      for await (const record of this.subscription) {
        const job = this.definition.select(record);
        if (!job) {
          marks.pass(record.position);
          continue;
        }
        while (this.inFlight.size > 0 && (this.inFlight.size >= this.options.concurrency || marks.unsettled() >= MAX_MARKS)) {
          await Promise.race(this.inFlight);
        }
        const mark = marks.begin(record.position);
        // A job cut short by stop() stays unsettled: the checkpoint stops before it, so it runs again.
        const task = this.inKey(job.key, () => this.runJob(job, record))
          .then((finished) => void (mark.done = finished))
          .finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
      }
    } finally {
      await this.subscription.unsubscribe();
      this.subscription = null;
    }
  }

  /** A key's jobs run one after another, in log order; the map holds only busy keys. */
  private inKey<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.keyTails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(() => undefined);
    this.keyTails.set(key, tail);
    return result.finally(() => {
      if (this.keyTails.get(key) === tail) this.keyTails.delete(key);
    });
  }

  /** Runs one job until it is done (true), retrying with backoff, or until stopped (false); never throws. */
  private async runJob(job: J, record: RecordedEvent): Promise<boolean> {
    const id = `${this.nextJob++}`;
    const state: Running = { key: job.key, job: job.label, since: new Date().toISOString(), attempt: 0 };
    this.running.set(id, state);
    const name = this.definition.name;
    try {
      while (!this.abort.signal.aborted) {
        state.attempt++;
        try {
          const outcome = await this.definition.run(job, this.abort.signal);
          if (this.abort.signal.aborted) return false; // stopped mid-job (a timer cut short): delivered again next time
          this.completed++;
          this.options.log(`${name}: ${job.label}: ${outcome}${state.attempt > 1 ? ` after ${state.attempt} attempts` : ''}`);
          return true;
        } catch (error) {
          if (this.abort.signal.aborted) return false;
          const described = describeError(error);
          state.lastError = this.lastError = described;
          if (refusedForGood(error)) {
            // Deterministic: the same job would be refused again. Park it (visible in `parked`) and go on.
            await this.park(record, described);
            return true;
          }
          const delayMs = this.definition.retryAfterMs?.(error) ?? backoffDelay(state.attempt, this.options.backoff ?? DEFAULT_BACKOFF);
          state.retryAt = new Date(Date.now() + delayMs).toISOString();
          this.options.log(`${name}: ${job.label}: attempt ${state.attempt} failed, again in ${delayMs} ms: ${described}`);
          await sleep(delayMs, this.abort.signal);
        }
      }
      return false;
    } finally {
      this.running.delete(id);
    }
  }

  private async park(record: RecordedEvent, error: string): Promise<void> {
    this.options.log(`${this.definition.name}: parking ${record.type} ${record.id} of ${record.streamId}: ${error}`);
    for (let attempt = 1; !this.abort.signal.aborted; attempt++) {
      try {
        await this.reads.park({
          projection: this.checkpoint,
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

  /** Commits the checkpoint up to the oldest unfinished job, and the status; one flush at a time. */
  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const safe = this.marks.settle();
      try {
        if (comparePositions(safe, this.committed) > 0) {
          await this.reads.commit({ checkpoint: this.checkpoint, position: safe, ops: [] });
          this.committed = safe;
        }
        await this.reads.putMeta(reactorStatusKey(this.definition.name), this.status());
      } catch (error) {
        // The next flush tries again; a checkpoint left behind only means a job found done twice.
        this.lastError = describeError(error);
      }
    });
    return this.flushing;
  }
}

/** Resolves after `ms`, or at once when the signal aborts (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
