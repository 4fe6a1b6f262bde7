import { EventEmitter } from 'node:events';
import { upcast } from '../commands/upcasters';
import {
  type EventStore,
  type Position,
  type RecordedEvent,
  START,
  type Subscription,
} from '../event-store/event-store.port';
import type { ReadStore, WriteOp } from '../read-store/read-store.port';
import { batched } from './batched';
import { type Projection, type ProjectedEvent, resourceNameOf } from './projection';

const BATCH_SIZE = 1000;
/** Rebuild pages stay small: measured faster than large ones (less garbage per page, warmer caches). */
const REBUILD_PAGE = 512;

export function toProjected(record: RecordedEvent): ProjectedEvent {
  return {
    event: upcast(record),
    record,
    org: record.metadata.org,
    resourceName: resourceNameOf(record.streamId),
    pos: Number(record.position.commit),
  };
}

interface Target {
  /** Checkpoint to advance. */
  checkpoint: string;
  /** Logical collection name to the physical one written (identity for live runs). */
  collections: Record<string, string>;
}

/** Emits ('progress', projectionName, position) after every committed batch, for in-process waiters. */
export const projectionProgress = new EventEmitter();
projectionProgress.setMaxListeners(0);

/**
 * Runs one projection: subscribes to all events after its checkpoint, folds each batch into read-store
 * operations and commits them with the checkpoint. A handler that throws parks its event (recorded
 * with the error) and the projection moves on, so one bad event never stalls the read model.
 */
export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projection: Projection,
  ) {}

  async start(): Promise<void> {
    await this.ensureIndexes(identity(this.projection.collections));
    const after = (await this.reads.getCheckpoint(this.projection.name)) ?? START;
    this.subscription = this.events.subscribeToAll({ after });
    const subscription = this.subscription;
    this.loop = (async () => {
      for await (const batch of batched(subscription[Symbol.asyncIterator](), BATCH_SIZE)) {
        await this.apply(batch, { checkpoint: this.projection.name, collections: identity(this.projection.collections) });
      }
    })();
  }

  async stop(): Promise<void> {
    await this.subscription?.unsubscribe();
    await this.loop?.catch(() => undefined);
    this.subscription = null;
    this.loop = null;
  }

  /**
   * Rebuild from position 0 into fresh collections while the current ones keep serving, then swap.
   * Live processing pauses during the rebuild so no event lands in the collections being replaced.
   */
  async rebuild(): Promise<{ events: number; position: Position }> {
    const wasRunning = this.subscription !== null;
    await this.stop();
    try {
      return await rebuildProjection(this.events, this.reads, this.projection, (batch, target) => this.apply(batch, target));
    } finally {
      if (wasRunning) await this.start();
    }
  }

  async apply(batch: RecordedEvent[], target: Target): Promise<void> {
    const perEvent: Array<{ record: RecordedEvent; ops: WriteOp[] }> = [];
    for (const record of batch) {
      if (record.type.startsWith('$')) continue;
      try {
        const ops = this.projection.handle(toProjected(record));
        for (const op of ops) retarget(op, target.collections);
        if (ops.length > 0) perEvent.push({ record, ops });
      } catch (error) {
        await this.park(record, error);
      }
    }
    const position = batch[batch.length - 1].position;
    try {
      await this.reads.commit({ checkpoint: target.checkpoint, position, ops: perEvent.flatMap((e) => e.ops) });
    } catch {
      // One event's operations broke the batch: apply event by event and park the ones that fail.
      for (const { record, ops } of perEvent) {
        try {
          await this.reads.commit({ checkpoint: target.checkpoint, position: record.position, ops });
        } catch (error) {
          await this.park(record, error);
        }
      }
      await this.reads.commit({ checkpoint: target.checkpoint, position, ops: [] });
    }
    projectionProgress.emit('progress', target.checkpoint, position);
  }

  private async park(record: RecordedEvent, error: unknown): Promise<void> {
    await this.reads.park({
      projection: this.projection.name,
      eventId: record.id,
      eventType: record.type,
      streamId: record.streamId,
      position: record.position,
      error: error instanceof Error ? error.message : String(error),
      parkedAt: new Date().toISOString(),
    });
  }

  private async ensureIndexes(collections: Record<string, string>): Promise<void> {
    for (const [logical, paths] of Object.entries(this.projection.indexes)) {
      await this.reads.ensureIndexes(collections[logical] ?? logical, paths);
    }
  }
}

function identity(names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, n]));
}

/** Points a freshly made operation at the physical collection (in place: a rebuild makes millions). */
function retarget(op: WriteOp, collections: Record<string, string>): void {
  const physical = collections[op.collection];
  if (physical) op.collection = physical;
}

/** Replays every event into new physical collections, then points the logical names at them. */
export async function rebuildProjection(
  events: EventStore,
  reads: ReadStore,
  projection: Projection,
  apply: (batch: RecordedEvent[], target: Target) => Promise<void>,
): Promise<{ events: number; position: Position }> {
  const suffix = `__r${Date.now().toString(36)}`;
  const collections = Object.fromEntries(projection.collections.map((c) => [c, `${c}${suffix}`]));
  const checkpoint = `${projection.name}${suffix}`;
  // The fresh collections are invisible until the swap: load them in bulk (indexes and statistics
  // built once at the end instead of maintained row by row).
  for (const physical of Object.values(collections)) await reads.beginBulk(physical);
  for (const [logical, paths] of Object.entries(projection.indexes)) {
    await reads.ensureIndexes(collections[logical] ?? logical, paths);
  }
  let after: Position = START;
  let count = 0;
  try {
    for (;;) {
      const page = await events.readAll({ after, maxCount: REBUILD_PAGE });
      if (page.length === 0) break;
      await apply(page, { checkpoint, collections });
      count += page.length;
      after = page[page.length - 1].position;
    }
  } catch (error) {
    // A failed rebuild leaves nothing behind; the collections in service were never touched.
    for (const physical of Object.values(collections)) await reads.dropCollection(physical);
    await reads.deleteCheckpoint(checkpoint);
    throw error;
  }
  for (const physical of Object.values(collections)) await reads.endBulk(physical);
  await reads.swapCollections(collections, { name: projection.name, position: after });
  await reads.deleteCheckpoint(checkpoint);
  return { events: count, position: after };
}
