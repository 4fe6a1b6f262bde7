/**
 * Applying a page of events: the one mechanism behind the projector's live subscription and every
 * rebuild (the projector's, the CLI's, the bench's). Projecting is pure (projectPage); committing
 * parks what failed, then writes every projection's operations and checkpoint together (commitPage).
 */
import { EventEmitter } from 'node:events';
import { upcast } from '../commands/upcasters';
import { comparePositions, type Position, type RecordedEvent, START } from '../event-store/event-store.port';
import type { ParkedEvent, ProjectionBatch, ReadStore, WriteOp } from '../read-store/read-store.port';
import { parkedEvent, projectEvent } from './ops';
import { type Projection, type ProjectedEvent, resourceNameOf } from './projection';

/** Emits ('progress', checkpoint, position) after every committed batch, for in-process waiters. */
export const projectionProgress = new EventEmitter();
projectionProgress.setMaxListeners(0);

export function toProjected(record: RecordedEvent): ProjectedEvent {
  return {
    event: upcast(record),
    record,
    org: record.metadata.org,
    resourceName: resourceNameOf(record.streamId),
    pos: Number(record.position.commit),
  };
}

/** Where a projection's operations go: a rebuild writes fresh physical collections under its own checkpoint. */
export interface Target {
  /** Checkpoint to advance. */
  checkpoint: string;
  /** Logical collection name to the physical one written (empty: the logical names themselves). */
  collections: Record<string, string>;
}

/** One projection's share of a page: events at or before `after` are already in its read model. */
export interface Lane {
  projection: Projection;
  /** Default: the projection's own checkpoint and collections. */
  target?: Target;
  /** Default: the start of the log. */
  after?: Position;
}

export interface ProjectedPage {
  batches: ProjectionBatch[];
  /** Events a handler threw on (or answered with operations the read store does not have). */
  parked: ParkedEvent[];
}

/**
 * Each event is decoded once and handed to every projection past whose checkpoint it lies. A lane
 * gets a batch whenever the page holds anything past its checkpoint, ops or not, so a quiet
 * projection still advances. Whatever throws here is the event's fault: it parks, never stalls.
 */
export function projectPage(page: readonly RecordedEvent[], lanes: readonly Lane[]): ProjectedPage {
  const decoded: Array<{ record: RecordedEvent; projected: ProjectedEvent | null }> = page.map((record) => ({ record, projected: null }));
  const batches: ProjectionBatch[] = [];
  const parked: ParkedEvent[] = [];
  for (const { projection, target, after = START } of lanes) {
    const collections = target?.collections ?? {};
    const ops: WriteOp[] = [];
    let last: Position | null = null;
    for (const item of decoded) {
      if (comparePositions(item.record.position, after) <= 0) continue;
      last = item.record.position;
      if (item.record.type.startsWith('$')) continue;
      try {
        item.projected ??= toProjected(item.record);
        for (const op of projectEvent(projection, item.projected)) {
          retarget(op, collections);
          ops.push(op);
        }
      } catch (error) {
        parked.push(parkedEvent(projection.name, item.record, error));
      }
    }
    if (last) batches.push({ checkpoint: target?.checkpoint ?? projection.name, position: last, ops });
  }
  return { batches, parked };
}

/**
 * Every failure here is the store's: it propagates and no checkpoint moves, so the page is applied
 * again later (re-parking an event is idempotent; the position guard skips what already landed).
 */
export async function commitPage(reads: ReadStore, { batches, parked }: ProjectedPage): Promise<void> {
  if (batches.length === 0) return;
  for (const event of parked) await reads.park(event);
  await reads.commitMany(batches);
  for (const batch of batches) projectionProgress.emit('progress', batch.checkpoint, batch.position);
}

/** projectPage, then commitPage: what the projector does with each page of its subscription. */
export async function applyPage(reads: ReadStore, page: readonly RecordedEvent[], lanes: readonly Lane[]): Promise<ProjectedPage> {
  const projected = projectPage(page, lanes);
  await commitPage(reads, projected);
  return projected;
}

/** Points a freshly made operation at the physical collection (in place: a rebuild makes millions). */
function retarget(op: WriteOp, collections: Record<string, string>): void {
  const physical = collections[op.collection];
  if (physical) op.collection = physical;
}
