import type { RecordedEvent } from './event-store.port';
import { RecentEvents } from './recent-events';

/** Events at these log positions (gaps, as rolled-back appends leave them). */
const at = (...positions: number[]): RecordedEvent[] =>
  positions.map((p) => ({
    id: `e${p}`,
    type: 'NoteCreated',
    streamId: 'note-acme:notes/a',
    revision: BigInt(p),
    position: { commit: BigInt(p), prepare: BigInt(p) },
    data: {},
    metadata: { org: 'acme', actor: 'users/a', subject: 'users/a', correlationId: 'c', causationId: 'c', occurredAt: '', schemaVersion: 1 },
    created: '',
  }));
const positions = (events: RecordedEvent[] | null) => events?.map((e) => Number(e.position.commit)) ?? null;

describe('RecentEvents: the events subscriptions read last, shared', () => {
  it('answers any position inside the window with what follows it, and nothing it cannot vouch for', () => {
    const recent = new RecentEvents();
    expect(recent.after(0n, 10)).toBeNull();
    recent.remember(0n, at(1, 2, 5, 9));
    expect(positions(recent.after(0n, 10))).toEqual([1, 2, 5, 9]);
    expect(positions(recent.after(2n, 10))).toEqual([5, 9]);
    // Between two stored positions (a gap): what follows it.
    expect(positions(recent.after(3n, 10))).toEqual([5, 9]);
    expect(positions(recent.after(2n, 1))).toEqual([5]);
    // At its end the database must be asked (something may have committed since); before its start too.
    expect(recent.after(9n, 10)).toBeNull();
    expect(recent.after(-1n, 10)).toBeNull();
  });

  it('grows only by a page read from its end, so it never hides an event', () => {
    const recent = new RecentEvents();
    recent.remember(4n, at(5, 6));
    recent.remember(6n, at(8));
    expect(positions(recent.after(4n, 10))).toEqual([5, 6, 8]);
    // A read behind the window (a catch-up) does not join it: events between 1 and 4 were never seen.
    recent.remember(1n, at(2, 3));
    expect(recent.after(1n, 10)).toBeNull();
    expect(positions(recent.after(4n, 10))).toEqual([5, 6, 8]);
    // A read ahead of it starts a new window from there.
    recent.remember(20n, at(21));
    expect(recent.after(8n, 10)).toBeNull();
    expect(positions(recent.after(20n, 10))).toEqual([21]);
  });

  it('keeps a bounded tail as the log grows', () => {
    const recent = new RecentEvents();
    let pos = 0;
    for (let page = 0; page < 100; page++) {
      const events = at(...Array.from({ length: 100 }, (_, i) => pos + i + 1));
      recent.remember(BigInt(pos), events);
      pos += 100;
    }
    // The newest events are served; the oldest were let go and go back to the database.
    expect(positions(recent.after(BigInt(pos - 3), 10))).toEqual([pos - 2, pos - 1, pos]);
    expect(recent.after(0n, 10)).toBeNull();
    const tail = recent.after(BigInt(pos - 2048), 5000)!;
    expect(tail.length).toBe(2048);
  });
});
