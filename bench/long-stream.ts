/**
 * Bench phase `long-stream` (issue 17): the latency of UpdateNote on one note as its stream grows,
 * sampled around event 1,000 and around the last event (100,000 by default). With folds cached and
 * snapshotted, both cost the same; a command that folded its whole stream would grow linearly.
 * Updates go one after another (one stream serializes them anyway), through the real api.
 */
import { performance } from 'node:perf_hooks';
import type { Client } from './load';
import { Samples, type Summary, summarize } from './stats';

const NOTES = '/svc.notes.v1.NotesService';

export interface LongStreamResult {
  events: number;
  /** Updates timed at each mark. */
  sample: number;
  early: Summary & { at: number };
  late: Summary & { at: number };
  /** late p50 / early p50. */
  ratio: number;
  seedSeconds: number;
}

export async function measureLongStream(client: Client, options: { events: number; sample: number; early?: number }): Promise<LongStreamResult> {
  const name = `notes/long-${Date.now()}`;
  const created = await client.post(`${NOTES}/CreateNote`, JSON.stringify({ note_id: name.slice('notes/'.length), note: { display_name: 'v0' } }));
  if (created.status !== 200) throw new Error(`CreateNote answered ${created.status}: ${created.body.slice(0, 200)}`);
  let revision = 0;
  const update = async (samples?: Samples): Promise<void> => {
    revision++;
    const started = performance.now();
    const res = await client.post(`${NOTES}/UpdateNote`, JSON.stringify({ note: { name, display_name: `v${revision}` }, update_mask: 'display_name' }));
    if (res.status !== 200) throw new Error(`UpdateNote ${revision} answered ${res.status}: ${res.body.slice(0, 200)}`);
    samples?.push(performance.now() - started);
  };
  const early = options.early ?? 1000;
  const seedStarted = performance.now();
  while (revision < early - options.sample / 2) await update();
  const earlySamples = new Samples();
  for (let i = 0; i < options.sample; i++) await update(earlySamples);
  const earlyAt = revision;
  while (revision < options.events - options.sample) await update();
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const lateSamples = new Samples();
  for (let i = 0; i < options.sample; i++) await update(lateSamples);
  const earlySummary = { ...summarize(earlySamples), at: earlyAt };
  const lateSummary = { ...summarize(lateSamples), at: revision };
  return { events: revision + 1, sample: options.sample, early: earlySummary, late: lateSummary, ratio: lateSummary.p50 / earlySummary.p50, seedSeconds };
}
