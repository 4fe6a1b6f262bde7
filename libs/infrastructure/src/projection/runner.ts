import { EventEmitter } from 'node:events';
import { upcast } from '../commands/upcasters';
import { type EventStore, type Position, type RecordedEvent, START } from '../event-store/event-store.port';
import type { ParkedEvent, ReadStore, WriteOp } from '../read-store/read-store.port';
import { parkedEvent, projectEvent } from './ops';
import { type Projection, type ProjectedEvent, resourceNameOf } from './projection';

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

export interface Target {
  /** Checkpoint to advance. */
  checkpoint: string;
  /** Logical collection name to the physical one written (identity for live runs). */
  collections: Record<string, string>;
}

/** Emits ('progress', projectionName, position) after every committed batch, for in-process waiters. */
export const projectionProgress = new EventEmitter();
projectionProgress.setMaxListeners(0);

/**
 * One projection outside the live group: the CLI's and the projector's rebuilds. A handler that
 * throws parks its event (recorded with the error) and the projection moves on, so one bad event
 * never stalls the read model; a store error fails the call and moves no checkpoint. Live
 * processing (subscription, supervision, retries) is the Projector's.
 */
export class ProjectionRunner {
  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    readonly projection: Projection,
  ) {}

  /** Rebuild from position 0 into fresh collections while the current ones keep serving, then swap. */
  async rebuild(): Promise<{ events: number; position: Position }> {
    return rebuildProjection(this.events, this.reads, this.projection, (batch, target) => this.apply(batch, target));
  }

  async apply(batch: RecordedEvent[], target: Target): Promise<void> {
    if (batch.length === 0) return;
    const ops: WriteOp[] = [];
    const parked: ParkedEvent[] = [];
    for (const record of batch) {
      if (record.type.startsWith('$')) continue;
      try {
        for (const op of projectEvent(this.projection, toProjected(record))) {
          retarget(op, target.collections);
          ops.push(op);
        }
      } catch (error) {
        parked.push(parkedEvent(this.projection.name, record, error));
      }
    }
    const position = batch[batch.length - 1].position;
    for (const event of parked) await this.reads.park(event);
    await this.reads.commit({ checkpoint: target.checkpoint, position, ops });
    projectionProgress.emit('progress', target.checkpoint, position);
  }
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
