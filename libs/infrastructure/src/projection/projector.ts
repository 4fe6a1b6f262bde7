import { Logger } from '@nestjs/common';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionToString,
  type RecordedEvent,
  START,
  type Subscription,
} from '../event-store/event-store.port';
import type { ReadStore } from '../read-store/read-store.port';
import { applyPage } from './apply-page';
import { batched } from './batched';
import type { ProjectorState, ProjectorStatus } from './heartbeat';
import type { Projection } from './projection';
import { rebuildProjection, type RebuildProgress } from './rebuild';
import { type BackoffOptions, describeError, type RetryNotice, SupervisedLoop } from './supervisor';

const PAGE_SIZE = 1000;
const DEFAULT_STALL_MS = 30_000;

export interface ProjectorOptions {
  /** Delays between resubscriptions after a failure (default: 200 ms doubling to 30 s, jittered). */
  backoff?: BackoffOptions;
  /** Behind the head with no commit for this long, the subscription is deemed stuck and replaced. */
  stallMs?: number;
  /** Where retry lines go (default: Nest's logger, context `projector`). */
  log?: (line: string) => void;
}

/**
 * Runs a group of projections off ONE subscription: each page of events is read and decoded once,
 * fanned out to every projection past whose checkpoint it lies, and committed as one read-store
 * transaction carrying every projection's operations and checkpoint. Each projection still has its
 * own checkpoint (a rebuilt or new projection catches up from its own) and advances even when a page
 * holds nothing for it.
 *
 * Supervised: a subscription that fails or ends, and any read, write or commit that fails, ends the
 * current subscription; after a backoff the projector subscribes again from the committed
 * checkpoints, forever. Only a handler that throws on an event parks that event (see ops.ts).
 */
export class Projector {
  /** Committed position per projection (what the read store holds). */
  private readonly checkpoints = new Map<string, Position>();
  private readonly loop: SupervisedLoop;
  private readonly log: (line: string) => void;
  private subscription: Subscription | null = null;
  private indexed = false;
  /** Set by the stall watchdog: the reason the current subscription was closed. */
  private restartReason: Error | null = null;
  private lastProgressAt = Date.now();
  private current: ProjectorStatus;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projections: readonly Projection[],
    private readonly options: ProjectorOptions = {},
  ) {
    const logger = new Logger('projector');
    this.log = options.log ?? ((line) => logger.warn(line));
    this.current = { state: 'stopped', failingSince: null, retry: null, lastError: null, positions: {} };
    this.loop = new SupervisedLoop({
      body: () => this.runSubscription(),
      interrupt: async () => this.closeSubscription(),
      onRetry: (notice) => this.retrying(notice),
      backoff: options.backoff,
    });
  }

  /** Starts the supervised subscription; store failures, even the first, are retried, never thrown. */
  async start(): Promise<void> {
    this.setState('starting');
    this.lastProgressAt = Date.now();
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    this.setState('stopped');
  }

  /** Progress, not just liveness: state, positions reached, retries and the last error. */
  status(): ProjectorStatus {
    const positions: Record<string, string | null> = {};
    for (const p of this.projections) {
      const cp = this.checkpoints.get(p.name);
      positions[p.name] = cp ? positionToString(cp) : null;
    }
    return { ...this.current, positions };
  }

  /**
   * Called with the log's head on every heartbeat: tells catching up from live, and replaces a
   * subscription that sits behind the head without committing (one that hangs without failing).
   */
  observe(head: Position): void {
    const state = this.current.state;
    if (state !== 'catching-up' && state !== 'live' && state !== 'stalled') return;
    const behind = this.projections.some((p) => comparePositions(this.checkpoints.get(p.name) ?? START, head) < 0);
    if (!behind) {
      this.progressed();
      this.setState('live');
      return;
    }
    if (state === 'live') this.setState('catching-up');
    const idleMs = Date.now() - this.lastProgressAt;
    if (idleMs < (this.options.stallMs ?? DEFAULT_STALL_MS) || this.restartReason) return;
    this.restartReason = new Error(`no progress for ${Math.round(idleMs / 1000)} s while behind the head ${positionToString(head)}`);
    this.current = { ...this.current, state: 'stalled', failingSince: new Date(this.lastProgressAt).toISOString() };
    void this.closeSubscription();
  }

  /** Rebuilds one projection from position 0 while the others pause, then resumes them all. */
  async rebuild(name: string): Promise<{ events: number; position: Position; progress: RebuildProgress }> {
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`unknown projection '${name}'`);
    const running = !this.loop.stopped;
    await this.loop.stop();
    this.setState('rebuilding');
    try {
      return await rebuildProjection(this.events, this.reads, projection, (progress) => {
        this.current = { ...this.current, rebuild: progress };
      });
    } finally {
      this.current = { ...this.current, rebuild: null };
      if (running) await this.start();
      else this.setState('stopped');
    }
  }

  /** One subscription's life: returns when it ends, throws when a store fails. */
  private async runSubscription(): Promise<void> {
    this.restartReason = null;
    if (!this.indexed) {
      for (const projection of this.projections) {
        for (const [collection, paths] of Object.entries(projection.indexes)) {
          await this.reads.ensureIndexes(collection, paths, projection.listIndexes?.[collection], projection.crossOrgIndexes?.[collection]);
        }
      }
      this.indexed = true;
    }
    // Always from the store: a commit reported as failed may have landed (a timeout after the write).
    let after: Position | null = null;
    for (const projection of this.projections) {
      const checkpoint = (await this.reads.getCheckpoint(projection.name)) ?? START;
      this.checkpoints.set(projection.name, checkpoint);
      if (after === null || comparePositions(checkpoint, after) < 0) after = checkpoint;
    }
    if (this.loop.stopped) return;
    const subscription = this.events.subscribeToAll({ after: after ?? START });
    this.subscription = subscription;
    this.current = { ...this.current, state: 'catching-up', retry: null };
    try {
      for await (const page of batched(subscription[Symbol.asyncIterator](), PAGE_SIZE)) {
        await this.apply(page);
        if (this.restartReason) break;
      }
    } finally {
      this.subscription = null;
      await subscription.unsubscribe().catch(() => undefined);
    }
    if (this.restartReason) throw this.restartReason;
  }

  private async closeSubscription(): Promise<void> {
    await this.subscription?.unsubscribe().catch(() => undefined);
  }

  /** One page for every projection past whose checkpoint it lies, committed together (apply-page.ts). */
  private async apply(page: RecordedEvent[]): Promise<void> {
    const lanes = this.projections.map((projection) => ({ projection, after: this.checkpoints.get(projection.name) ?? START }));
    const { batches } = await applyPage(this.reads, page, lanes);
    if (batches.length === 0) return;
    for (const batch of batches) this.checkpoints.set(batch.checkpoint, batch.position);
    this.progressed();
  }

  private progressed(): void {
    this.lastProgressAt = Date.now();
    this.loop.succeeded();
    if (this.current.failingSince || this.current.state === 'stalled') {
      this.current = { ...this.current, state: 'catching-up', failingSince: null };
    }
  }

  private retrying({ attempt, delayMs, error }: RetryNotice): void {
    const reason = describeError(error);
    const now = new Date();
    this.current = {
      ...this.current,
      state: 'retrying',
      failingSince: this.current.failingSince ?? now.toISOString(),
      retry: { attempt, reason, nextAt: new Date(now.getTime() + delayMs).toISOString() },
      lastError: { at: now.toISOString(), message: reason },
    };
    this.log(`subscription failed (attempt ${attempt}): ${reason}; resubscribing from the checkpoints in ${delayMs} ms`);
  }

  private setState(state: ProjectorState): void {
    this.current = { ...this.current, state, retry: null, failingSince: state === 'stopped' ? null : this.current.failingSince };
  }
}
