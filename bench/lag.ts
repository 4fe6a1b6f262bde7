/**
 * Projection lag: append one NoteCreated straight to the embedded event store (as another api
 * process would), then poll the read store until the document is readable. The clock starts when
 * the append has committed, so the figure is commit-to-readable: the projector's wake-up (it polls
 * the file for other processes' appends), the projection and its read-store commit.
 */
import { performance } from 'node:perf_hooks';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import { docId } from '@svc/infrastructure/projection/projection';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store';
import { noteCreated, noteStream } from './events';
import { sleep } from './stack';
import { Samples, type Summary, summarize } from './stats';

export interface LagResult {
  latency: Summary;
  timeouts: number;
}

export async function measureLag(eventsFile: string, readFile: string, samples: number, spacingMs: number): Promise<LagResult> {
  const events = new SqliteEventStore({ file: eventsFile });
  const reads = new SqliteReadStore({ file: readFile });
  const notes = reads.collection('notes');
  const lags = new Samples();
  let timeouts = 0;
  const run = Date.now().toString(36);
  try {
    for (let i = 0; i < samples; i++) {
      const id = `lag-${run}-${i}`;
      await events.append(noteStream('acme', id), [noteCreated('acme', id, i)], 'no_stream');
      const t0 = performance.now();
      const deadline = t0 + 5000;
      let readable = false;
      while (performance.now() < deadline) {
        if ((await notes.findOne({ _id: docId('acme', `notes/${id}`) })) !== null) {
          readable = true;
          break;
        }
        // Yield to I/O between polls; each poll is a ~20 µs read transaction.
        await new Promise((r) => setImmediate(r));
      }
      if (readable) lags.push(performance.now() - t0);
      else timeouts++;
      // Spaced apart and jittered, so samples fall at every phase of the projector's poll interval.
      await sleep(spacingMs + Math.random() * spacingMs);
    }
  } finally {
    await events.close();
    await reads.close();
  }
  return { latency: summarize(lags), timeouts };
}
