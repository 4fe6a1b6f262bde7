import { comparePositions, type EventStore, positionToString, type RecordedEvent } from '../event-store/event-store.port';
import type { ParkedEvent, ReadStore } from '../read-store/read-store.port';
import { commitPage, projectPage } from './apply-page';
import type { Projection } from './projection';

export interface ReplayOutcome {
  eventId: string;
  eventType: string;
  streamId: string;
  position: string;
  /** `applied`: unparked; `failed`: parked still, with the new error; `missing`: the event is gone from the log. */
  outcome: 'applied' | 'failed' | 'missing';
  error?: string;
}

/**
 * Retries a projection's parked events once their cause is fixed, in log order, through the page
 * mechanism every other write to a read model goes through (projectPage, commitPage), under a
 * scratch checkpoint so the projection's own never moves back. An event that applies leaves the
 * parked list; one that throws again stays with its new error. Operations are position-guarded:
 * a document already past the event (later events applied after it parked) keeps its state; a
 * rebuild reconciles such a projection completely.
 */
export async function replayParked(events: EventStore, reads: ReadStore, projection: Projection): Promise<ReplayOutcome[]> {
  const parked = (await reads.listParked(projection.name)).sort((a, b) => comparePositions(a.position, b.position));
  const scratch = `${projection.name}__replay`;
  const streams = new Map<string, RecordedEvent[]>();
  const outcomes: ReplayOutcome[] = [];
  try {
    for (const entry of parked) {
      const record = await find(events, streams, entry);
      const base = { eventId: entry.eventId, eventType: entry.eventType, streamId: entry.streamId, position: positionToString(entry.position) };
      if (!record) {
        outcomes.push({ ...base, outcome: 'missing', error: 'the event is no longer in its stream' });
        continue;
      }
      const page = projectPage([record], [{ projection, target: { checkpoint: scratch, collections: {} } }]);
      await commitPage(reads, page);
      if (page.parked.length > 0) {
        outcomes.push({ ...base, outcome: 'failed', error: page.parked[0].error });
      } else {
        await reads.unpark(projection.name, entry.eventId);
        outcomes.push({ ...base, outcome: 'applied' });
      }
    }
  } finally {
    await reads.deleteCheckpoint(scratch);
  }
  return outcomes;
}

async function find(events: EventStore, streams: Map<string, RecordedEvent[]>, entry: ParkedEvent): Promise<RecordedEvent | undefined> {
  let stream = streams.get(entry.streamId);
  if (!stream) streams.set(entry.streamId, (stream = await events.readStream(entry.streamId)));
  return stream.find((r) => r.id === entry.eventId);
}
