import { topicMatches, type BusNotification, type BusSubscribeOptions } from './notification-bus.port';

/** One in-process subscriber of a bus; `from` is the adapter's marker of where its delivery starts. */
export interface Listener<From> extends BusSubscribeOptions {
  org: string;
  from: From;
}

/**
 * The in-process subscribers of one bus instance, by organization: each adapter tails its store once
 * per process and fans out here, so a process holding thousands of idle subscribers runs one poll or
 * cursor, not thousands. Delivery to one organization costs its own subscribers, not everyone's.
 */
export class Listeners<From> {
  private readonly byOrg = new Map<string, Set<Listener<From>>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(listener: Listener<From>): void {
    let set = this.byOrg.get(listener.org);
    if (!set) this.byOrg.set(listener.org, (set = new Set()));
    set.add(listener);
    this.count++;
  }

  /** True when the listener was still there. */
  delete(listener: Listener<From>): boolean {
    const set = this.byOrg.get(listener.org);
    if (!set?.delete(listener)) return false;
    if (set.size === 0) this.byOrg.delete(listener.org);
    this.count--;
    return true;
  }

  all(): Iterable<Listener<From>> {
    return [...this.byOrg.values()].flatMap((set) => [...set]);
  }

  /** Delivers to the organization's listeners whose topic matches and that `accepts` (their start marker). */
  deliver(notification: BusNotification, accepts: (listener: Listener<From>) => boolean): void {
    const set = this.byOrg.get(notification.org);
    if (!set) return;
    for (const listener of [...set]) {
      if (!topicMatches(listener.topic, notification.topic) || !accepts(listener)) continue;
      // One failing consumer must not stop delivery to the others.
      try {
        listener.onNotification(notification);
      } catch {
        // The consumer owns its errors (the SSE writer disconnects itself); nothing to do here.
      }
    }
  }
}
