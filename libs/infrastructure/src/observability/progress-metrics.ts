import { Gauge, type Registry } from 'prom-client';
import { comparePositions, type EventStore, type Position, START } from '../event-store/event-store.port';
import type { ReadStore } from '../read-store/read-store.port';
import { reactorCheckpoint } from '../reactors/reactor-names';

/** Past this many events behind, a store without sequence positions reports the lag as this bound. */
export const LAG_COUNT_CAP = 10_000;
/** rebuild.ts names the checkpoint of a rebuild in progress `<projection>__r<stamp>`. */
const REBUILD_CHECKPOINT = /^(.+)__r[0-9a-z]+$/;

export interface ProgressSources {
  events: EventStore;
  reads: ReadStore;
  /** The projections to report (a projection with no checkpoint yet reports as fully behind). */
  projections: readonly string[];
  /** The log-driven reactors to report, by name (their checkpoints are `reactor:<name>`); one with no checkpoint yet is left out. */
  reactors: readonly string[];
  /** SQLite positions are 1, 2, 3, ...: the lag in events is a subtraction instead of a count. */
  sequencePositions: boolean;
}

/**
 * Progress of every projection and reactor, read from the stores when scraped (the checkpoints are
 * the truth, whichever process commits them): checkpoint, lag in events and in seconds (age of the
 * oldest event not yet applied), parked events, and the progress of a rebuild underway.
 */
export function registerProgressMetrics(registry: Registry, sources: ProgressSources): void {
  if (registry.getSingleMetric('svc_projection_lag_events')) return; // api and projector in one process
  // One read of the stores per scrape, however many gauges it fills: each gauge awaits the same one.
  let scraping: Promise<void> | null = null;
  const collect = async () => {
    scraping ??= refresh().finally(() => (scraping = null));
    await scraping;
  };
  const gauge = (name: string, help: string, label: 'projection' | 'reactor') =>
    new Gauge({ name, help, labelNames: [label], registers: [registry], collect });
  const checkpoint = gauge('svc_projection_checkpoint', 'Commit position each projection has applied', 'projection');
  const lagEvents = gauge('svc_projection_lag_events', `Events in the log not yet applied (capped at ${LAG_COUNT_CAP} on EventStoreDB)`, 'projection');
  const lagSeconds = gauge('svc_projection_lag_seconds', 'Age of the oldest event not yet applied (0 when caught up)', 'projection');
  const parked = gauge('svc_projection_parked_events', 'Events parked because a handler threw on them', 'projection');
  const rebuild = gauge('svc_projection_rebuild_progress_ratio', 'Share of the log a rebuild underway has replayed (absent when none runs)', 'projection');
  const reactorLagEvents = gauge('svc_reactor_lag_events', 'Events in the log the reactor has not passed', 'reactor');
  const reactorLagSeconds = gauge('svc_reactor_lag_seconds', 'Age of the oldest event the reactor has not passed', 'reactor');
  const all = [checkpoint, lagEvents, lagSeconds, parked, rebuild, reactorLagEvents, reactorLagSeconds];

  const refresh = async () => {
    const head = await sources.events.headPosition();
    const records = await sources.reads.listCheckpoints();
    const parkedEvents = await sources.reads.listParked();
    const lag = lagReader(sources.events, sources.sequencePositions, head);
    for (const g of all) g.reset();
    const positions = new Map(records.map((r) => [r.name, r.position]));
    for (const name of sources.projections) {
      const position = positions.get(name) ?? START;
      checkpoint.set({ projection: name }, Number(position.commit));
      const { events, seconds } = await lag(position);
      lagEvents.set({ projection: name }, events);
      lagSeconds.set({ projection: name }, seconds);
      parked.set({ projection: name }, parkedEvents.filter((e) => e.projection === name).length);
    }
    for (const reactor of sources.reactors) {
      const position = positions.get(reactorCheckpoint(reactor));
      if (!position) continue;
      const { events, seconds } = await lag(position);
      reactorLagEvents.set({ reactor }, events);
      reactorLagSeconds.set({ reactor }, seconds);
    }
    for (const record of records) {
      const rebuilding = REBUILD_CHECKPOINT.exec(record.name)?.[1];
      if (rebuilding && sources.projections.includes(rebuilding)) {
        rebuild.set({ projection: rebuilding }, head.commit > 0n ? Math.min(1, Number(record.position.commit) / Number(head.commit)) : 1);
      }
    }
  };
}

/**
 * Lag of one checkpoint behind `head`: events still to apply (counted up to LAG_COUNT_CAP where
 * positions are not a sequence) and the age in seconds of the oldest of them (0 when caught up).
 * Memoised per position (most projections share one). The metrics and `projections status` use it.
 */
export function lagReader(events: Pick<EventStore, 'readAll'>, sequencePositions: boolean, head: Position) {
  const memo = new Map<string, Promise<{ events: number; seconds: number }>>();
  const measure = async (position: Position) => {
    if (comparePositions(position, head) >= 0) return { events: 0, seconds: 0 };
    const [first] = await events.readAll({ after: position, maxCount: 1 });
    const seconds = first ? Math.max(0, (Date.now() - Date.parse(first.created)) / 1000) : 0;
    const count = sequencePositions
      ? Number(head.commit - (position.commit < 0n ? 0n : position.commit))
      : (await events.readAll({ after: position, maxCount: LAG_COUNT_CAP })).length;
    return { events: count, seconds };
  };
  return (position: Position) => {
    const key = `${position.commit}/${position.prepare}`;
    let found = memo.get(key);
    if (!found) memo.set(key, (found = measure(position)));
    return found;
  };
}
