import { comparePositions, type Position } from '../event-store/event-store.port';
import type { ReadStore } from '../read-store/read-store.port';
import { readWaitDuration } from '../observability/metrics';
import type { CommitWatch } from '../sqlite/commit-watch';
import { projectionProgress } from './apply-page';

/** Where the waiter reads how far each projection has got (the read store, across processes). */
export type CheckpointSource = Pick<ReadStore, 'getCheckpoint'>;

/**
 * Calls its listener when the read store may have committed (another process's projector):
 * answers the watch, or null when it cannot tell (commit-watch.ts).
 */
export type CommitSignal = (listener: () => void) => CommitWatch | null;

interface Waiter {
  position: Position;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/** Between two reads of the checkpoints while someone waits: bounds what the wait adds to a command's latency. */
const POLL_MS = 1;
/**
 * The same while commits are signalled (CommitWatch.alive): each commit of the projector wakes the
 * poll, so the timer is only the safety net for a writer that does not signal (an older version).
 * At 1 ms it was a read of the checkpoints and a timer per millisecond on a loaded api for nothing.
 */
const WATCHED_POLL_MS = 50;
const ERROR_PAUSE_MS = 100;

/**
 * Read your writes: a command answers once the projection serving its resource has passed the
 * command's commit position, or after its timeout (the write stands either way).
 *
 * One shared poll serves every waiting command: each round reads the checkpoint of each projection
 * someone waits for, once, and resolves every waiter it has passed. The poll runs only while at least
 * one command waits, so an idle api reads nothing. An in-process projector also signals its progress
 * directly, which resolves waiters without waiting for the next round; a projector in another
 * process wakes the poll through the read store's commit signal, when there is one.
 */
export class ProjectionWaiter {
  /** Waiting commands by projection. Emptied sets are removed, so the map only holds what is awaited. */
  private readonly waiting = new Map<string, Set<Waiter>>();
  /** The furthest checkpoint seen per projection: a command behind it answers at once. */
  private readonly reached = new Map<string, Position>();
  private polling: Promise<void> | null = null;
  /** While the api drains for a stop, no wait may outlast this instant (see hurry). */
  private deadline: number | null = null;
  private readonly onProgress = (name: string, position: Position) => this.advance(name, position);
  /** Ends the poll's current pause early (a commit was signalled). */
  private wakeUp: (() => void) | null = null;
  /** A signal heard while the poll was not pausing (reading, say): the next pause is skipped. */
  private signalled = false;
  private readonly watch: CommitWatch | null;

  constructor(
    private readonly checkpoints: CheckpointSource,
    private readonly pollMs = POLL_MS,
    commits?: CommitSignal,
    private readonly watchedPollMs = WATCHED_POLL_MS,
  ) {
    projectionProgress.on('progress', this.onProgress);
    this.watch = commits?.(() => this.signal()) ?? null;
  }

  /** Resolves true once `projection` has passed `position`, or false after `timeoutMs`. */
  waitFor(projection: string, position: Position, timeoutMs: number): Promise<boolean> {
    const known = this.reached.get(projection);
    if (known && comparePositions(known, position) >= 0) return Promise.resolve(true);
    const bound = this.deadline === null ? timeoutMs : Math.min(timeoutMs, Math.max(0, this.deadline - Date.now()));
    const stop = readWaitDuration.startTimer();
    return new Promise<boolean>((settled) => {
      const resolve = (reached: boolean) => {
        stop({ outcome: reached ? 'reached' : 'timeout' });
        settled(reached);
      };
      let waiters = this.waiting.get(projection);
      if (!waiters) {
        this.waiting.set(projection, (waiters = new Set()));
        // The poll running now has not read this projection's checkpoint: read it at once rather
        // than at the next commit or the end of a long pause.
        this.signal();
      }
      const waiter: Waiter = { position, resolve, timer: setTimeout(() => this.settle(projection, waiter, false), bound) };
      waiters.add(waiter);
      this.polling ??= this.poll();
    });
  }

  /**
   * For a stop: every wait, current and future, ends within `ms` (as false when its projection has not
   * got there), so a drain does not sit out full read waits for a projector that is stopping too.
   */
  hurry(ms: number): void {
    this.deadline = Date.now() + ms;
    for (const [projection, waiters] of this.waiting) {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.timer = setTimeout(() => this.settle(projection, waiter, false), ms);
      }
    }
  }

  /** How many commands wait right now (for tests and diagnostics). */
  get pending(): number {
    let count = 0;
    for (const waiters of this.waiting.values()) count += waiters.size;
    return count;
  }

  close(): void {
    projectionProgress.off('progress', this.onProgress);
    this.watch?.stop();
    for (const [projection, waiters] of this.waiting) for (const waiter of waiters) this.settle(projection, waiter, false);
  }

  private advance(projection: string, position: Position): void {
    const known = this.reached.get(projection);
    if (!known || comparePositions(position, known) > 0) this.reached.set(projection, position);
    const waiters = this.waiting.get(projection);
    if (!waiters) return;
    for (const waiter of waiters) {
      if (comparePositions(position, waiter.position) >= 0) this.settle(projection, waiter, true);
    }
  }

  private settle(projection: string, waiter: Waiter, reached: boolean): void {
    const waiters = this.waiting.get(projection);
    if (!waiters?.delete(waiter)) return;
    clearTimeout(waiter.timer);
    if (waiters.size === 0) this.waiting.delete(projection);
    waiter.resolve(reached);
  }

  private signal(): void {
    if (this.wakeUp) this.wakeUp();
    else this.signalled = true;
  }

  private async poll(): Promise<void> {
    while (this.waiting.size > 0) {
      let pause = this.watch?.alive ? this.watchedPollMs : this.pollMs;
      let failed = false;
      this.signalled = false;
      try {
        for (const projection of [...this.waiting.keys()]) {
          const position = await this.checkpoints.getCheckpoint(projection);
          if (position) this.advance(projection, position);
        }
      } catch {
        // The store is failing: retry less eagerly; each waiter's timeout still answers it.
        pause = Math.max(pause, ERROR_PAUSE_MS);
        failed = true;
      }
      if (this.waiting.size > 0 && (failed || !this.signalled)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pause);
          function done(): void {
            clearTimeout(timer);
            resolve();
          }
          this.wakeUp = done;
        });
        this.wakeUp = null;
      }
    }
    this.polling = null;
  }
}
