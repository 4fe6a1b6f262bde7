import type { EventStore, Position } from '../event-store/event-store.port';
import { START } from '../event-store/event-store.port';
import type { ReadStore } from '../read-store/read-store.port';
import { applyPage } from './apply-page';
import type { Projection } from './projection';

/** Rebuild pages stay small: measured faster than large ones (less garbage per page, warmer caches). */
const REBUILD_PAGE = 512;

/**
 * Replays every event into new physical collections while the current ones keep serving, then
 * points the logical names at them: the projector's rebuild, and the CLI's and the bench's when no
 * projector runs. Pages go through applyPage like the live subscription's, so a handler that throws
 * parks its event and the rebuild moves on; a store error fails the call and leaves nothing behind.
 */
export async function rebuildProjection(events: EventStore, reads: ReadStore, projection: Projection): Promise<{ events: number; position: Position }> {
  const suffix = `__r${Date.now().toString(36)}`;
  const collections = Object.fromEntries(projection.collections.map((c) => [c, `${c}${suffix}`]));
  const target = { checkpoint: `${projection.name}${suffix}`, collections };
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
      await applyPage(reads, page, [{ projection, target }]);
      count += page.length;
      after = page[page.length - 1].position;
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
  return { events: count, position: after };
}
