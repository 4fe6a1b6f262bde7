import { Registry } from 'prom-client';
import type { EventStore, Position, RecordedEvent } from '../event-store/event-store.port';
import type { CheckpointRecord, ParkedEvent, ReadStore } from '../read-store/read-store.port';
import { registerProgressMetrics } from './progress-metrics';

const at = (commit: number): Position => ({ commit: BigInt(commit), prepare: BigInt(commit) });

/** A log of `count` events, the first one `ageSeconds` old. */
function log(count: number, ageSeconds: number): Pick<EventStore, 'headPosition' | 'readAll'> {
  const events = Array.from({ length: count }, (_, i) => ({ position: at(i + 1), created: new Date(Date.now() - (ageSeconds - i) * 1000).toISOString() }));
  return {
    headPosition: async () => at(count),
    readAll: async ({ after, maxCount } = {}) =>
      events.filter((e) => e.position.commit > (after?.commit ?? -1n)).slice(0, maxCount) as unknown as RecordedEvent[],
  };
}

async function scrape(checkpoints: CheckpointRecord[], parked: Partial<ParkedEvent>[], sequencePositions = true): Promise<string> {
  const registry = new Registry();
  const reads = { listCheckpoints: async () => checkpoints, listParked: async () => parked } as unknown as ReadStore;
  registerProgressMetrics(registry, { events: log(100, 60) as EventStore, reads, projections: ['notes', 'roles'], reactors: ['cron'], sequencePositions });
  return registry.metrics();
}

const cp = (name: string, commit: number): CheckpointRecord => ({ name, position: at(commit), updatedAt: '' });

describe('projection and reactor progress metrics', () => {
  it('report checkpoint, lag in events and seconds, parked count, reactor lag and rebuild progress', async () => {
    const text = await scrape(
      [cp('notes', 100), cp('roles', 40), cp('reactor:cron', 90), cp('notes__rmf3k2', 25)],
      [{ projection: 'roles' }, { projection: 'roles' }],
    );
    expect(text).toContain('svc_projection_checkpoint{projection="notes"} 100');
    expect(text).toContain('svc_projection_lag_events{projection="notes"} 0');
    expect(text).toContain('svc_projection_lag_seconds{projection="notes"} 0');
    expect(text).toContain('svc_projection_lag_events{projection="roles"} 60');
    // The oldest unapplied event (position 41) is 20 s old.
    const seconds = Number(/svc_projection_lag_seconds\{projection="roles"\} ([\d.]+)/.exec(text)?.[1]);
    expect(seconds).toBeGreaterThan(19);
    expect(seconds).toBeLessThan(25);
    expect(text).toContain('svc_projection_parked_events{projection="roles"} 2');
    expect(text).toContain('svc_projection_parked_events{projection="notes"} 0');
    expect(text).toContain('svc_reactor_lag_events{reactor="cron"} 10');
    expect(text).toContain('svc_projection_rebuild_progress_ratio{projection="notes"} 0.25');
    expect(text).not.toContain('svc_projection_rebuild_progress_ratio{projection="roles"}');
  });

  it('count the lag by reading when positions are not a sequence (EventStoreDB)', async () => {
    const text = await scrape([cp('notes', 97)], [], false);
    expect(text).toContain('svc_projection_lag_events{projection="notes"} 3');
    // A projection with no checkpoint has the whole log ahead of it.
    expect(text).toContain('svc_projection_lag_events{projection="roles"} 100');
  });
});
