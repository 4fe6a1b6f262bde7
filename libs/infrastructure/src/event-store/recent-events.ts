import type { RecordedEvent } from './event-store.port';

/** Events kept (up to twice as many between trims): reactors poll every 25 ms, a few hundred events behind at most. */
const KEEP = 2048;

/**
 * The events a process's subscriptions read last, decoded once and shared by all of them.
 *
 * Every subscription of a process (the projections' one and each reactor's) follows the same log
 * near its head, so without this each event was read and JSON-decoded once per subscription: eight
 * times in the projector. The window is the run of events after `from` up to `to`, complete: it
 * grows only by a page read from exactly `to` (reads `WHERE pos > ?` are gap-safe, see
 * sqlite-event-store.ts), so a subscription anywhere inside it is served from memory, and a read
 * elsewhere (a catch-up far behind, a first read) goes to the database as before.
 *
 * The events are shared, not copied: subscribers must not change them (none does; projections
 * build new documents, reactors build commands).
 */
export class RecentEvents {
  private from = -1n;
  private to = -1n;
  private events: RecordedEvent[] = [];

  /** The events after `pos` the window holds, at most `max`; null when it cannot answer for `pos`. */
  after(pos: bigint, max: number): RecordedEvent[] | null {
    if (this.events.length === 0 || pos < this.from || pos >= this.to) return null;
    // The first event past `pos`: positions increase along the window.
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].position.commit <= pos) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo, lo + max);
  }

  /** A page read from the database: every committed event after `pos`, up to its last one. */
  remember(pos: bigint, page: readonly RecordedEvent[]): void {
    if (page.length === 0) return;
    const last = page[page.length - 1].position.commit;
    if (this.events.length > 0 && pos === this.to) {
      for (const event of page) this.events.push(event);
      this.to = last;
      // Trimmed in halves, so the copy costs O(1) per event remembered.
      if (this.events.length >= 2 * KEEP) {
        const drop = this.events.length - KEEP;
        this.from = this.events[drop - 1].position.commit;
        this.events = this.events.slice(drop);
      }
    } else if (this.events.length === 0 || pos > this.to) {
      // Ahead of the window (or the first read): start again from here. A read behind it, a
      // catch-up, leaves the window to the subscriptions at the head.
      this.from = pos;
      this.to = last;
      this.events = page.slice();
    }
  }
}
