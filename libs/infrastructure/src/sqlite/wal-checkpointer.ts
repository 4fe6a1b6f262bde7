import { Worker } from 'node:worker_threads';
import { sqliteDriverPath } from './driver';

/**
 * Default writes between two background checkpoints, counted as the owner counts them: the event
 * store counts events, and an appended event dirties about three pages (its row, the event-id index,
 * the stream's index entry and row), so this is close to SQLite's own automatic checkpoint at 1000
 * WAL pages.
 */
const CHECKPOINT_EVERY_WRITES = 300;
/** A WAL this long (about 16 MB) has not restarted lately (see WalCheckpointer, "restart"). */
const WAL_RESTART_FRAMES = 4000;
/** A background checkpoint that took at most this long leaves a tail short enough to copy while writes wait. */
const QUICK_CHECKPOINT_MS = 3;
/** Background checkpoints tried in a row, each leaving a shorter tail, before writes wait anyway. */
const MAX_CHASE = 3;
/** Writes never wait longer than this for a checkpoint, whatever the worker does. */
const MAX_HOLD_MS = 200;

export interface CheckpointerHooks {
  /** Stop starting write transactions on the owner's connection until `resumeWrites`. */
  holdWrites(): void;
  resumeWrites(): void;
  /** The worker failed: the owner must checkpoint by itself again (SQLite's automatic checkpoint). */
  fallBack(error: unknown): void;
}

interface Outcome {
  /** Request number, to tell a checkpoint that began after writes were held from an earlier one. */
  seq: number;
  /** Frames in the WAL when the checkpoint ran: its length since it last restarted. */
  log: number;
  ms: number;
}

/**
 * Runs the WAL checkpoints of one SQLite file on a worker thread, on its own connection.
 *
 * Why: with SQLite's automatic checkpoint, the commit that takes the WAL past 1000 pages copies the
 * WAL back into the database before it returns: 10-20 ms on the event loop every few hundred appends,
 * about half of the main thread's time in appends under group commit, and a stall for every append of
 * the group and every other request being served. A PASSIVE checkpoint on another connection runs
 * alongside readers and writers (it takes neither the write lock nor blocks readers), so on a thread
 * it costs the event loop nothing. What is stored, when a commit becomes visible and durability are
 * unchanged: as before, WAL frames reach the disk at a checkpoint (synchronous=NORMAL).
 *
 * Restart: a PASSIVE checkpoint copies the frames that exist when it starts, and SQLite rewinds the
 * WAL to its beginning only when a write transaction begins with every frame copied back. Under
 * sustained writes a checkpoint on another thread never finishes ahead of the next write, and the WAL
 * grew past a gigabyte in a 10 s load test. So once the WAL is long, the checkpointer asks the owner
 * to hold its writes (appends queue up, the event loop keeps running) while one more checkpoint copies
 * the tail; the next commit then restarts the WAL (unless a reader is still on it; a later round
 * retries). Slow checkpoints are first chased by quicker ones so that the hold is short, and a hold
 * never lasts beyond MAX_HOLD_MS.
 *
 * The worker starts on the first checkpoint, so a process that writes little never starts one.
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private busy = false;
  private again = false;
  private failed = false;
  private closed = false;
  private exited: Promise<void> | undefined;
  private sinceLast = 0;
  private seq = 0;
  private chase = 0;
  /** While writes are held: the first request number whose outcome releases them. */
  private holdUntilSeq: number | undefined;
  private holdTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly busyTimeoutMs: number,
    private readonly hooks: CheckpointerHooks,
    /** Writes (as `written` counts them) between two checkpoints. */
    private readonly writesPerCheckpoint = CHECKPOINT_EVERY_WRITES,
  ) {}

  /** After a commit of `writes` writes (the event store: events; the read store: transactions). */
  written(writes: number): void {
    this.sinceLast += writes;
    if (this.sinceLast < this.writesPerCheckpoint) return;
    this.sinceLast = 0;
    this.request();
  }

  /** Waits for a running checkpoint, then closes the worker's connection. Writes are released. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.release();
    if (!this.worker) return;
    // Referenced again so that awaiting close() keeps the process alive until the worker is gone.
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }

  /** Requests made while a checkpoint runs fold into one more run after it. */
  private request(): void {
    if (this.failed || this.closed) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      this.start().postMessage(++this.seq);
    } catch (error) {
      // Called right after a commit: a thread that cannot start must not fail the caller's append.
      this.fail(error);
    }
  }

  private checkpointed(outcome: Outcome): void {
    if (this.holdUntilSeq !== undefined) {
      if (outcome.seq >= this.holdUntilSeq) this.release();
      return;
    }
    if (outcome.log < WAL_RESTART_FRAMES) {
      this.chase = 0;
      return;
    }
    // The tail left by a checkpoint is what was written while it ran: a quicker one leaves less.
    // (One posted by this same message, when busy, is that next checkpoint already.)
    if (outcome.ms > QUICK_CHECKPOINT_MS && this.chase < MAX_CHASE) {
      this.chase++;
      if (!this.busy) this.request();
      return;
    }
    this.chase = 0;
    this.hooks.holdWrites();
    // A checkpoint already running was posted by this same message, after the last write: like one
    // posted now, it reaches the end of the WAL, and its outcome releases the writes.
    if (!this.busy) this.request();
    this.holdUntilSeq = this.seq;
    this.holdTimer = setTimeout(() => this.release(), MAX_HOLD_MS);
  }

  private release(): void {
    if (this.holdUntilSeq === undefined) return;
    this.holdUntilSeq = undefined;
    clearTimeout(this.holdTimer);
    this.hooks.resumeWrites();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // Source as a string: the same code then runs from dist, under Jest and under the SWC register
    // hook, which would not agree on how to load a TypeScript worker file.
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: sqliteDriverPath(), file: this.file, busyTimeoutMs: this.busyTimeoutMs },
    });
    worker.on('message', (m: { outcome?: Outcome; error?: string }) => {
      if (!m.outcome) return this.fail(new Error(`WAL checkpoint failed: ${m.error ?? 'no outcome'}`));
      this.busy = false;
      if (this.closed) return;
      if (this.again) {
        this.again = false;
        this.request();
      }
      this.checkpointed(m.outcome);
    });
    worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        // An exit that close() did not ask for would leave the WAL without checkpoints.
        this.fail(new Error('the WAL checkpoint worker exited'));
        resolve();
      }),
    );
    // Never keeps the process alive: a checkpoint left undone is done by the next one, or by SQLite
    // when the last connection closes. After the listeners: adding a 'message' listener refs it again.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private fail(error: unknown): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    void this.worker?.terminate();
    this.release();
    this.hooks.fallBack(error);
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    // PASSIVE: copies what it can without waiting on readers or writers; a later run does the rest.
    const started = performance.now();
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ outcome: { seq: m, log: Number(row.log), ms: performance.now() - started } });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;
