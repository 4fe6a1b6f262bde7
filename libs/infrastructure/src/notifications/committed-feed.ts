import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from '../event-store/event-store.port';
import { backoffDelay, DEFAULT_BACKOFF, describeError } from '../projection/supervisor';
import { topicMatches, type BusNotification } from './notification-bus.port';

/** The committed notifications of one event, with the log position that is their SSE event id. */
export interface CommittedBatch {
  position: Position;
  notifications: BusNotification[];
}

interface FeedListener {
  org: string;
  topic?: string;
  onBatch(batch: CommittedBatch): void;
}

export interface FollowHandle {
  /** The feed's position when the listener joined: it receives exactly the events after it. */
  startedAt: Position;
  close(): void;
}

const REPLAY_PAGE = 512;

/**
 * Committed notifications derived from the log. One event-store subscription per process (from the
 * head when the first listener arrives, ended with the last), fanned out by organization and topic;
 * thousands of open streams cost one subscription. `replay` reads a range of the log for a client
 * resuming with Last-Event-ID.
 */
export class CommittedFeed {
  private readonly byOrg = new Map<string, Set<FeedListener>>();
  private count = 0;
  private subscription: Subscription | undefined;
  private running: Promise<void> | undefined;
  private current: Position | undefined;
  /** The last event whose notifications went out to the listeners (or that had none for them). */
  private delivered: Position | undefined;
  private readonly progress = new Set<() => void>();
  private starting: Promise<void> | undefined;

  /**
   * `beforeBatch` runs before a live event's notifications go out (the bus's sync: what a turn
   * published before it committed reaches the stream first).
   */
  constructor(
    private readonly events: EventStore,
    private readonly derive: (event: RecordedEvent) => BusNotification[],
    private readonly beforeBatch?: () => Promise<void>,
    /** Told of each fault the feed recovers from (a log line, a metric). */
    private readonly onFault?: (reason: string, attempt: number) => void,
  ) {}

  get listenerCount(): number {
    return this.count;
  }

  get isSubscribed(): boolean {
    return this.subscription !== undefined;
  }

  /** Whether the live feed has delivered every event up to `position` (false while it is not running). */
  hasDelivered(position: Position): boolean {
    return this.delivered !== undefined && comparePositions(this.delivered, position) >= 0;
  }

  /** Calls `listener` whenever the feed has delivered more of the log; answers a function that stops it. */
  onProgress(listener: () => void): () => void {
    this.progress.add(listener);
    return () => void this.progress.delete(listener);
  }

  /** Live batches of `org` (narrowed to `topic`) after the feed's current position. */
  async follow(org: string, topic: string | undefined, onBatch: (batch: CommittedBatch) => void): Promise<FollowHandle> {
    await this.start();
    const listener: FeedListener = { org, topic, onBatch };
    let set = this.byOrg.get(org);
    if (!set) this.byOrg.set(org, (set = new Set()));
    set.add(listener);
    this.count++;
    // Read synchronously with the registration: every later event reaches this listener.
    const startedAt = this.current!;
    let closed = false;
    return {
      startedAt,
      close: () => {
        if (closed) return;
        closed = true;
        const own = this.byOrg.get(org);
        own?.delete(listener);
        if (own?.size === 0) this.byOrg.delete(org);
        if (--this.count === 0) this.stop();
      },
    };
  }

  /**
   * The batches of `org` (narrowed to `topic`) strictly after `after` and up to `until`, in order,
   * read in pages; `onBatch` may wait (a slow client), and the next page is read only after it.
   */
  async replay(org: string, topic: string | undefined, after: Position, until: Position, onBatch: (batch: CommittedBatch) => Promise<void>): Promise<void> {
    let from = after;
    while (comparePositions(from, until) < 0) {
      const page = await this.events.readAll({ after: from, maxCount: REPLAY_PAGE });
      if (page.length === 0) return;
      for (const event of page) {
        if (comparePositions(event.position, until) > 0) return;
        from = event.position;
        if (event.metadata.org !== org) continue;
        const batch = this.batchOf(event, topic);
        if (batch) await onBatch(batch);
      }
    }
  }

  async close(): Promise<void> {
    this.byOrg.clear();
    this.count = 0;
    this.stop();
    await this.running;
  }

  private async start(): Promise<void> {
    if (this.subscription) return;
    // Concurrent first followers share one start.
    this.starting ??= (async () => {
      const head = await this.events.headPosition();
      this.current = head;
      this.advance(head);
      const subscription = this.events.subscribeToAll({ after: head });
      this.subscription = subscription;
      this.running = this.run(subscription);
    })().finally(() => (this.starting = undefined));
    await this.starting;
  }

  private stop(): void {
    const subscription = this.subscription;
    this.subscription = undefined;
    this.delivered = undefined;
    void subscription?.unsubscribe();
  }

  private advance(position: Position): void {
    this.delivered = position;
    for (const listener of [...this.progress]) listener();
  }

  /**
   * Delivers the subscription's events. A store fault (a server restart, a leader change, a
   * keepalive timeout) or a subscription the store ends is not the end of the feed: it resubscribes
   * after the last event it delivered, with backoff, as the projector does, so live streams never
   * freeze and nothing is skipped or sent twice. Only stop() (the last listener left, shutdown) ends it.
   */
  private async run(first: Subscription): Promise<void> {
    let subscription = first;
    let done = this.current!;
    let failures = 0;
    for (;;) {
      try {
        for await (const event of subscription) {
          if (this.subscription !== subscription) return;
          this.current = event.position;
          await this.deliver(event);
          done = event.position;
          failures = 0;
          if (this.subscription === subscription) this.advance(event.position);
        }
        if (this.subscription !== subscription) return;
        this.onFault?.('the store ended the subscription', failures + 1);
      } catch (error) {
        if (this.subscription !== subscription) return;
        this.onFault?.(describeError(error), failures + 1);
      }
      failures++;
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(failures, DEFAULT_BACKOFF)));
      if (this.subscription !== subscription) return;
      void subscription.unsubscribe().catch(() => undefined);
      this.current = done;
      try {
        subscription = this.events.subscribeToAll({ after: done });
      } catch (error) {
        this.onFault?.(describeError(error), failures + 1);
        continue;
      }
      this.subscription = subscription;
    }
  }

  private async deliver(event: RecordedEvent): Promise<void> {
    const set = this.byOrg.get(event.metadata.org);
    if (!set) return;
    const all = this.derive(event);
    if (all.length === 0) return;
    // The listeners as of this event: one that joins during the wait starts after it (its startedAt).
    const listeners = [...set];
    await this.beforeBatch?.();
    for (const listener of listeners) {
      if (!set.has(listener)) continue;
      const notifications = all.filter((n) => topicMatches(listener.topic, n.topic));
      if (notifications.length > 0) listener.onBatch({ position: event.position, notifications });
    }
  }

  private batchOf(event: RecordedEvent, topic: string | undefined): CommittedBatch | undefined {
    const notifications = this.derive(event).filter((n) => topicMatches(topic, n.topic));
    return notifications.length > 0 ? { position: event.position, notifications } : undefined;
  }
}

export interface CommittedSink {
  /** A batch read from the log while catching up; the next is read once this resolves. */
  replayed(batch: CommittedBatch): Promise<void>;
  /** A live batch; the sink must not block (a subscriber that cannot keep up is disconnected). */
  live(batch: CommittedBatch): void;
  /** Caught up: every later batch is live. `position` is the last position covered so far. */
  caughtUp(position: Position): void;
  /** Too many live batches arrived during the catch-up. */
  overflow(): void;
}

/** Live batches a catch-up may hold back before its subscriber counts as one that cannot keep up. */
export const MAX_HELD_BATCHES = 10_000;

/**
 * A subscriber's committed notifications: with `after` (Last-Event-ID), what it missed from the log,
 * then the live feed with nothing skipped or repeated (the feed's batches that arrive during the
 * catch-up are held, and they all lie after the replayed range); without, the live feed only.
 */
export async function followCommitted(
  feed: CommittedFeed,
  subscriber: { org: string; topic?: string; after?: Position },
  sink: CommittedSink,
): Promise<{ close(): void; caughtUp: Promise<void> }> {
  let held: CommittedBatch[] | undefined = subscriber.after ? [] : undefined;
  const handle = await feed.follow(subscriber.org, subscriber.topic, (batch) => {
    if (!held) return sink.live(batch);
    if (held.length >= MAX_HELD_BATCHES) return sink.overflow();
    held.push(batch);
  });
  let closed = false;
  const caughtUp = (async () => {
    if (subscriber.after && comparePositions(subscriber.after, handle.startedAt) < 0) {
      await feed.replay(subscriber.org, subscriber.topic, subscriber.after, handle.startedAt, async (batch) => {
        if (!closed) await sink.replayed(batch);
      });
    }
    if (closed) return;
    const pending = held ?? [];
    held = undefined;
    sink.caughtUp(handle.startedAt);
    for (const batch of pending) sink.live(batch);
  })();
  return {
    caughtUp,
    close: () => {
      closed = true;
      handle.close();
    },
  };
}
