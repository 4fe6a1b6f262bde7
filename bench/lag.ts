/**
 * Projection lag: append one NoteCreated straight to the embedded event store (as another api
 * process would), then poll the read store until the document is readable. The clock starts when
 * the append has committed, so the figure is commit-to-readable: the projector's wake-up (it polls
 * the file for other processes' appends), the projection and its read-store commit.
 * Samples are taken one at a time, spaced 10-20 ms apart, with nothing else running (not under load).
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
        // Poll on a timer (~1 ms apart), not in a setImmediate spin: on a 2-core machine a spinning
        // poller takes a core from the projector and was seen to triple the p90 it measures. The
        // timer's granularity biases each sample up by at most ~1 ms.
        await new Promise((r) => setTimeout(r, 0));
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
