import type { RecordedEvent, Subscription } from './event-store.port';

/** Events after a position, in order. */
export interface Page {
  events: RecordedEvent[];
  /** The page holds every event committed after the position when it was read (not only what a cache held). */
  complete: boolean;
}

/** What a subscription needs of the SQLite event store: pages of the log and a wake-up on appends. */
export interface SubscriptionSource {
  pageAfter(pos: bigint): Page;
  waitForAppend(pollMs: number, anyCommit: boolean, register: (cancel: () => void) => void): Promise<void>;
  /** Commit signals heard so far: this process's appends, and other processes' commits while they are heard. */
  signalCount(): number;
  /** Whether every commit of another process is signalled right now (the commit marker is watched). */
  hearsCommits(): boolean;
}

/**
 * Catch-up then live: reads pages after the last delivered position until a page comes back empty,
 * then waits for an in-process append or its poll interval and reads again. Because it always resumes
 * from the last delivered `pos` (gap-safe, see sqlite-event-store.ts), it never skips, repeats or reorders.
 */
export class SqliteSubscription implements Subscription {
  private closed = false;
  private started = false;
  private cancelWait: (() => void) | undefined;

  constructor(
    private readonly store: SubscriptionSource,
    private last: bigint,
    /** How long an idle wait lasts before the next look for other processes' appends. */
    private readonly pollMs: number,
    /** Woken by other processes' commits too, not only by this process's appends. */
    private readonly live: boolean,
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
        const signals = this.store.signalCount();
        const page = this.store.pageAfter(this.last);
        if (page.events.length > 0) {
          for (const event of page.events) {
            if (this.closed) return;
            this.last = event.position.commit;
            yield event;
          }
          // A complete page held all there was when it was read. Unless a commit was signalled
          // since, reading again would find nothing (on the projector, before each commit of its
          // own): wait for the signal instead, which every commit sends once it is visible.
          const settled = this.live && page.complete && this.store.hearsCommits() && this.store.signalCount() === signals;
          if (!settled || this.closed) continue;
        }
        await this.store.waitForAppend(this.pollMs, this.live, (cancel) => (this.cancelWait = cancel));
        this.cancelWait = undefined;
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
