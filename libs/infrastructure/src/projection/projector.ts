import { comparePositions, type EventStore, type Position, type RecordedEvent, START, type Subscription } from '../event-store/event-store.port';
import type { ProjectionBatch, ReadStore, WriteOp } from '../read-store/read-store.port';
import { batched } from './batched';
import type { Projection, ProjectedEvent } from './projection';
import { ProjectionRunner, projectionProgress, toProjected } from './runner';

const PAGE_SIZE = 1000;

/**
 * Runs a group of projections off ONE subscription: each page of events is read and decoded once,
 * fanned out to every projection past whose checkpoint it lies, and committed as one read-store
 * transaction carrying every projection's operations and checkpoint. Each projection still has its
 * own checkpoint (a rebuilt or new projection catches up from its own), parks its own failures, and
 * advances even when a page holds nothing for it.
 */
export class Projector {
  private readonly runners: Map<string, ProjectionRunner>;
  private readonly checkpoints = new Map<string, Position>();
  private subscription: Subscription | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projections: readonly Projection[],
  ) {
    this.runners = new Map(projections.map((p) => [p.name, new ProjectionRunner(events, reads, p)]));
  }

  async start(): Promise<void> {
    let after: Position | null = null;
    for (const projection of this.projections) {
      for (const [collection, paths] of Object.entries(projection.indexes)) await this.reads.ensureIndexes(collection, paths);
      const checkpoint = (await this.reads.getCheckpoint(projection.name)) ?? START;
      this.checkpoints.set(projection.name, checkpoint);
      if (after === null || comparePositions(checkpoint, after) < 0) after = checkpoint;
    }
    const subscription = this.events.subscribeToAll({ after: after ?? START });
    this.subscription = subscription;
    this.loop = (async () => {
      for await (const page of batched(subscription[Symbol.asyncIterator](), PAGE_SIZE)) await this.apply(page);
    })();
  }

  async stop(): Promise<void> {
    await this.subscription?.unsubscribe();
    await this.loop?.catch(() => undefined);
    this.subscription = null;
    this.loop = null;
  }

  /** Rebuilds one projection from position 0 while the others pause, then resumes them all. */
  async rebuild(name: string): Promise<{ events: number; position: Position }> {
    const runner = this.runners.get(name);
    if (!runner) throw new Error(`unknown projection '${name}'`);
    const running = this.subscription !== null;
    await this.stop();
    try {
      return await runner.rebuild();
    } finally {
      if (running) await this.start();
    }
  }

  private async apply(page: RecordedEvent[]): Promise<void> {
    const decoded: Array<{ record: RecordedEvent; projected: ProjectedEvent | null }> = page.map((record) => ({ record, projected: null }));
    const batches: Array<ProjectionBatch & { failed: RecordedEvent[] }> = [];
    for (const projection of this.projections) {
      const checkpoint = this.checkpoints.get(projection.name) ?? START;
      const ops: WriteOp[] = [];
      const failed: RecordedEvent[] = [];
      let last: Position | null = null;
      for (const item of decoded) {
        if (comparePositions(item.record.position, checkpoint) <= 0) continue;
        last = item.record.position;
        if (item.record.type.startsWith('$')) continue;
        try {
          item.projected ??= toProjected(item.record);
          ops.push(...projection.handle(item.projected));
        } catch {
          failed.push(item.record);
        }
      }
      if (last) batches.push({ checkpoint: projection.name, position: last, ops, failed });
    }
    if (batches.length === 0) return;
    if (batches.some((b) => b.failed.length > 0)) {
      await this.applyEachAlone(page, batches);
    } else {
      try {
        await this.reads.commitMany(batches.map(({ checkpoint, position, ops }) => ({ checkpoint, position, ops })));
      } catch {
        // Some operation broke the page: let each projection isolate and park its failing events.
        await this.applyEachAlone(page, batches);
      }
    }
    for (const batch of batches) {
      this.checkpoints.set(batch.checkpoint, batch.position);
      projectionProgress.emit('progress', batch.checkpoint, batch.position);
    }
  }

  private async applyEachAlone(page: RecordedEvent[], batches: Array<{ checkpoint: string }>): Promise<void> {
    for (const { checkpoint } of batches) {
      const runner = this.runners.get(checkpoint)!;
      const after = this.checkpoints.get(checkpoint) ?? START;
      const pending = page.filter((e) => comparePositions(e.position, after) > 0);
      await runner.apply(pending, { checkpoint, collections: Object.fromEntries(runner.projection.collections.map((c) => [c, c])) });
    }
  }
}
