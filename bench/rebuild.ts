/**
 * Rebuild speed: with the projector stopped, top the log up to a meaningful size with NoteCreated
 * events appended directly, then rebuild the notes projection from position 0 in this process
 * (`rebuildProjection`, as the projector and the CLI rebuild: read all events in pages, project,
 * commit batches into a fresh collection, swap) and report events per second over every event in the log.
 */
// The areas load the contracts, whose DTO decorators read design-time type metadata.
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { noteSpec } from '@svc/domain/notes/note.resource';
import { projectionNamed, projectionServing } from '@svc/application/areas';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import { rebuildProjection } from '@svc/infrastructure/projection/rebuild';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store';
import { noteCreated, noteStream } from './events';

export interface SeedResult {
  appended: number;
  seconds: number;
  rate: number;
  totalEvents: number;
}

/** Appends NoteCreated events (one new stream each, as CreateNote does) until the log holds `target`. */
export async function seedEvents(eventsFile: string, target: number): Promise<SeedResult> {
  const events = new SqliteEventStore({ file: eventsFile });
  try {
    const head = await events.headPosition();
    const existing = head.commit < 0n ? 0 : Number(head.commit);
    const missing = Math.max(0, target - existing);
    const run = Date.now().toString(36);
    const now = new Date().toISOString();
    const t0 = performance.now();
    for (let i = 0; i < missing; i++) {
      const id = `seed-${run}-${i}`;
      await events.append(noteStream('acme', id), [noteCreated('acme', id, i, now)], 'no_stream');
    }
    const seconds = (performance.now() - t0) / 1000;
    const after = await events.headPosition();
    return { appended: missing, seconds, rate: missing / Math.max(seconds, 1e-9), totalEvents: Number(after.commit) };
  } finally {
    await events.close();
  }
}

export interface RebuildResult {
  events: number;
  seconds: number;
  rate: number;
  /** Documents in the rebuilt `notes` collection (sanity check: every note created so far). */
  documents: number;
}

export async function measureRebuild(eventsFile: string, readFile: string): Promise<RebuildResult> {
  const events = new SqliteEventStore({ file: eventsFile });
  const reads = new SqliteReadStore({ file: readFile });
  try {
    const projection = projectionNamed(projectionServing(noteSpec));
    const t0 = performance.now();
    const result = await rebuildProjection(events, reads, projection);
    const seconds = (performance.now() - t0) / 1000;
    const documents = await reads.collection('notes').countDocuments({});
    return { events: result.events, seconds, rate: result.events / seconds, documents };
  } finally {
    await events.close();
    await reads.close();
  }
}
