import { type EventStore, type Position, positionToString, START } from '../event-store/event-store.port';
import type { ReadStore } from '../read-store/read-store.port';
import { applyPage } from './apply-page';
import type { Projection } from './projection';

/** Rebuild pages stay small: measured faster than large ones (less garbage per page, warmer caches). */
const REBUILD_PAGE = 512;

/**
 * How far a rebuild has come, reported after every page: the projector puts it in its status (so
 * `projections status`, the CLI's rebuild and /metrics see it); the CLI draws it.
 */
export interface RebuildProgress {
  projection: string;
  startedAt: string;
  /** Events read so far, and the log position reached and the head it runs to (`commit/prepare`). */
  events: number;
  position: string;
  head: string;
  /** Share of the log done, 0..1, from positions (SQLite: event counts; EventStoreDB: byte offsets). */
  fraction: number;
  /** Events per second since the start, and the seconds left at that rate (null until measurable). */
  rate: number;
  etaSeconds: number | null;
}

/** The progress after `events` events, at `position`, of a rebuild running to `head`. */
export function rebuildProgress(projection: string, started: number, events: number, position: Position, head: Position, now = Date.now()): RebuildProgress {
  const total = Number(head.commit);
  const done = Math.max(0, Number(position.commit));
  const fraction = total <= 0 ? 1 : Math.min(1, done / total);
  const seconds = Math.max(0.001, (now - started) / 1000);
  const rate = events / seconds;
  const etaSeconds = fraction > 0 && fraction < 1 ? ((seconds / fraction) * (1 - fraction)) : fraction >= 1 ? 0 : null;
  return {
    projection,
    startedAt: new Date(started).toISOString(),
    events,
    position: positionToString(position),
    head: positionToString(head),
    fraction,
    rate: Math.round(rate),
    etaSeconds: etaSeconds === null ? null : Math.round(etaSeconds * 10) / 10,
  };
}

/**
 * Replays every event into new physical collections while the current ones keep serving, then
 * points the logical names at them: the projector's rebuild, and the CLI's and the bench's when no
 * projector runs. Pages go through applyPage like the live subscription's, so a handler that throws
 * parks its event and the rebuild moves on; a store error fails the call and leaves nothing behind.
 */
export async function rebuildProjection(
  events: EventStore,
  reads: ReadStore,
  projection: Projection,
  onProgress?: (progress: RebuildProgress) => void,
): Promise<{ events: number; position: Position; progress: RebuildProgress }> {
  const started = Date.now();
  // Events appended during the rebuild are read too; progress is measured against the head at the start.
  const head = await events.headPosition();
  const suffix = `__r${Date.now().toString(36)}`;
  const collections = Object.fromEntries(projection.collections.map((c) => [c, `${c}${suffix}`]));
  const target = { checkpoint: `${projection.name}${suffix}`, collections };
  // The fresh collections are invisible until the swap: load them in bulk (indexes and statistics
  // built once at the end instead of maintained row by row).
  for (const physical of Object.values(collections)) await reads.beginBulk(physical);
  for (const [logical, paths] of Object.entries(projection.indexes)) {
    await reads.ensureIndexes(collections[logical] ?? logical, paths, projection.listIndexes?.[logical], projection.crossOrgIndexes?.[logical]);
  }
  let after: Position = START;
  let count = 0;
  try {
    for (;;) {
      const page = await events.readAll({ after, maxCount: REBUILD_PAGE });
      if (page.length === 0) break;
      await applyPage(reads, page, [{ projection, target }]);
      count += page.length;
      after = page[page.length - 1].position;
      onProgress?.(rebuildProgress(projection.name, started, count, after, head));
    }
  } catch (error) {
    // A failed rebuild leaves nothing behind; the collections in service were never touched.
    for (const physical of Object.values(collections)) await reads.dropCollection(physical);
    await reads.deleteCheckpoint(target.checkpoint);
    throw error;
  }
  for (const physical of Object.values(collections)) await reads.endBulk(physical);
  await reads.swapCollections(collections, { name: projection.name, position: after });
  await reads.deleteCheckpoint(target.checkpoint);
  return { events: count, position: after, progress: rebuildProgress(projection.name, started, count, after, head) };
}
