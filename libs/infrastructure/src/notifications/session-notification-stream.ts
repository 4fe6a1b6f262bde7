/**
 * The session notification stream: the one place that orders what a subscriber sees. It merges two
 * sources that reach a process separately, the committed notifications derived from the log (the
 * committed feed) and the ephemeral ones of the bus, under two rules (docs/decisions.md,
 * "Notification stream"):
 *
 * - committed before the ephemeral that answers it: the runtime marks a turn's notifications with the
 *   log position of the event that asked for the turn (`afterCommitted`); each subscriber's bus
 *   notifications pass a CausalGate that holds a marked one until the feed has delivered that position;
 * - ephemeral before the commit that follows it: before the feed sends a committed event, the bus's
 *   `sync` delivers what any process published before it (what a turn streamed before committing).
 *
 * The api's NotificationStreams only translates a subscriber to SSE frames (ids, heartbeats, limits).
 */
import { ACTIVITY_TYPE, SESSION_EVENTS, type SessionMessagesWrittenData } from '@svc/contracts/sessions/session.events';
import { comparePositions, positionFromString, type EventStore, type Position, type RecordedEvent } from '../event-store/event-store.port';
import { CommittedFeed, followCommitted, type CommittedBatch } from './committed-feed';
import type { BusNotification, NotificationBody, NotificationBus } from './notification-bus.port';

/**
 * Body key of a notification published in answer to a committed event (a turn's output, after the
 * SessionTurnRequested that asked for it): that event's log position (positionToString). Internal:
 * the gate strips it before a subscriber sees the notification, and Publish never sets it.
 */
export const AFTER_POSITION_KEY = '_after';

/** `body`, marked to reach subscribers only after the committed event at `after` (positionToString); unmarked without one. */
export function afterCommitted(body: NotificationBody, after: string | undefined): NotificationBody {
  return after ? { ...body, [AFTER_POSITION_KEY]: after } : body;
}

export const ACTIVITY_NOTIFICATION_TYPE = 'svc.nxagent.v1.ActivityNotification';

/**
 * The committed notifications an event stands for (spec part 1, "Notification stream payloads"):
 * each message of a SessionMessagesWritten, on the session's topic, as an ActivityNotification (its
 * 0-based sessionOffset and the activity as an inner Any) followed by the bare Activity. Every other
 * event stands for none. Type URLs use the configured type host; the activity is the Any as accepted.
 */
export function committedNotifications(event: RecordedEvent, typeHost: string): BusNotification[] {
  if (event.type !== SESSION_EVENTS.messagesWritten || !event.streamId.startsWith('session-')) return [];
  const topic = event.streamId.slice(event.streamId.indexOf(':') + 1);
  const data = event.data as unknown as SessionMessagesWrittenData;
  const org = event.metadata.org;
  return data.messages.flatMap((activity, i) => [
    {
      org,
      topic,
      notification: { value: { '@type': `${typeHost}/${ACTIVITY_NOTIFICATION_TYPE}`, sessionOffset: data.firstOffset + i, activity } },
    },
    { org, topic, notification: { value: { ...activity, '@type': activity['@type'] || `${typeHost}/${ACTIVITY_TYPE}` } } },
  ]);
}

/** Where one subscriber's notifications go, in the order the rules above give them. */
export interface SessionStreamSink {
  /**
   * One notification. `position` comes with the last committed notification of each event (where a
   * client cut off resumes: it receives that whole event again); ephemeral ones have none.
   */
  send(notification: BusNotification, position?: Position): void;
  /** Resolves once the subscriber has taken what was sent: a catch-up reads the log's next page only then. */
  drained(): Promise<void>;
  /** Caught up with the log: later committed notifications are live. `position` is where a client resumes if it saw none. */
  caughtUp(position: Position): void;
  /** Too many live events arrived while it caught up: it cannot keep up. */
  overflow(): void;
  /** The catch-up failed (the log could not be read): the subscriber must be ended. */
  failed(error: unknown): void;
}

export interface SessionStreamOptions {
  events: EventStore;
  bus: NotificationBus;
  /** The host of the committed notifications' type URLs. */
  typeHost: string;
  /** Told of each fault the committed feed recovers from (a log line). */
  onFault?: (reason: string, attempt: number) => void;
  /** How long a marked notification may wait for the feed (a stalled feed must not silence a stream). */
  maxWaitMs?: number;
}

/**
 * The notification streams of one process: one committed feed (one event-store subscription,
 * shared by every subscriber) and, per subscriber, a bus subscription behind a CausalGate.
 */
export class SessionNotificationStream {
  private readonly feed: CommittedFeed;

  constructor(private readonly options: SessionStreamOptions) {
    const { events, bus, typeHost, onFault } = options;
    // The bus's sync runs before each live event's notifications go out (the second rule above).
    this.feed = new CommittedFeed(events, (event: RecordedEvent) => committedNotifications(event, typeHost), bus.sync.bind(bus), onFault);
  }

  /** Open subscribers' committed listeners (0 once every subscriber has closed). */
  get listenerCount(): number {
    return this.feed.listenerCount;
  }

  /**
   * Starts delivering `org`'s notifications (narrowed to `topic`) to `sink`: with `after`
   * (Last-Event-ID), the committed ones it missed first. Answers once both sources are followed;
   * `close` releases everything, whenever it is called.
   */
  async subscribe(subscriber: { org: string; topic?: string; after?: Position }, sink: SessionStreamSink): Promise<{ close(): void }> {
    const releases: (() => void)[] = [];
    const close = (): void => {
      for (const release of releases.splice(0).reverse()) release();
    };
    try {
      const progress = new SubscriberProgress(this.feed, subscriber.after);
      // The bus first: what is published while the feed starts is held by the gate, not missed.
      const gate = new CausalGate(progress, (n) => sink.send(n), this.options.maxWaitMs);
      releases.push(() => gate.close());
      const bus = await this.options.bus.subscribe(subscriber.org, { topic: subscriber.topic, onNotification: (n) => gate.push(n) });
      releases.push(() => bus.close());
      const send = (batch: CommittedBatch): void => {
        progress.sending(batch.position);
        sendBatch(sink, batch.notifications, batch.position);
        progress.sent(batch.position);
      };
      const committed = await followCommitted(this.feed, subscriber, {
        replayed: async (batch) => {
          send(batch);
          await sink.drained();
        },
        live: send,
        caughtUp: (position) => {
          sink.caughtUp(position);
          progress.sent(position);
        },
        overflow: () => sink.overflow(),
      });
      releases.push(() => committed.close());
      // After the live batches held during the catch-up (followCommitted sends them right after caughtUp).
      committed.caughtUp.then(
        () => progress.live(),
        (error: unknown) => sink.failed(error),
      );
    } catch (error) {
      close();
      throw error;
    }
    return { close };
  }

  /** Ends the committed feed (shutdown). */
  close(): Promise<void> {
    return this.feed.close();
  }
}

/** The notifications of one event; only the last carries its position (sessionOffset dedupes a repeat). */
function sendBatch(sink: SessionStreamSink, notifications: BusNotification[], position: Position): void {
  const last = notifications.length - 1;
  notifications.forEach((n, i) => sink.send(n, i === last ? position : undefined));
}

/** What the gate needs to know of the committed notifications its subscriber has been sent. */
export interface FeedProgress {
  hasDelivered(position: Position): boolean;
  onProgress(listener: () => void): () => void;
}

/**
 * How far one subscriber's committed notifications have gone out. The shared feed's progress counts
 * only once the subscriber is live: while a resuming subscriber catches up, the feed is ahead of
 * what it was sent. Events without notifications (the SessionTurnRequested a mark names) are not
 * sent, so a batch about to go also vouches for everything before it: the log is read in order.
 */
class SubscriberProgress implements FeedProgress {
  private readonly listeners = new Set<() => void>();
  /** Everything up to and including it went out. */
  private through: Position | undefined;
  /** Everything strictly before it went out. */
  private before: Position | undefined;
  private isLive: boolean;

  constructor(
    private readonly feed: CommittedFeed,
    after: Position | undefined,
  ) {
    this.through = after;
    this.isLive = after === undefined;
  }

  hasDelivered(position: Position): boolean {
    if (this.through && comparePositions(position, this.through) <= 0) return true;
    if (this.before && comparePositions(position, this.before) < 0) return true;
    return this.isLive && this.feed.hasDelivered(position);
  }

  onProgress(listener: () => void): () => void {
    const stopFeed = this.feed.onProgress(listener);
    this.listeners.add(listener);
    return () => {
      stopFeed();
      this.listeners.delete(listener);
    };
  }

  /** The batch at `position` is about to go out. */
  sending(position: Position): void {
    this.before = position;
    this.tell();
  }

  sent(position: Position): void {
    this.through = position;
    this.tell();
  }

  live(): void {
    this.isLive = true;
    this.tell();
  }

  private tell(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** Notifications held at once before the gate gives up waiting (a stalled feed must not hold a stream's memory). */
const MAX_HELD = 1000;

/**
 * One stream's bus notifications, each after the committed event it answers (AFTER_POSITION_KEY): a
 * notification naming a position the feed has not delivered yet waits, with everything behind it
 * (their order is the publisher's), until the feed passes it. A feed that stalls or stops does not
 * silence the stream: after `maxWaitMs`, or MAX_HELD notifications, what is held goes out anyway.
 */
export class CausalGate {
  private held: BusNotification[] = [];
  private stopWatching: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: FeedProgress,
    private readonly deliver: (notification: BusNotification) => void,
    private readonly maxWaitMs = 2000,
  ) {}

  push(notification: BusNotification): void {
    if (this.held.length === 0 && this.ready(notification)) return this.deliver(withoutMark(notification));
    this.held.push(notification);
    this.watch();
    this.flush(this.held.length >= MAX_HELD);
  }

  close(): void {
    this.held = [];
    this.unwatch();
  }

  private ready(notification: BusNotification): boolean {
    const after = notification.notification[AFTER_POSITION_KEY];
    if (typeof after !== 'string') return true;
    try {
      return this.feed.hasDelivered(positionFromString(after));
    } catch {
      return true; // not a position: nothing to wait for
    }
  }

  private flush(force: boolean): void {
    while (this.held.length > 0 && (force || this.ready(this.held[0]))) this.deliver(withoutMark(this.held.shift()!));
    if (this.held.length === 0) this.unwatch();
  }

  private watch(): void {
    this.stopWatching ??= this.feed.onProgress(() => this.flush(false));
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush(true);
    }, this.maxWaitMs).unref();
  }

  private unwatch(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** One unmarked copy per notification, shared by every stream's gate (their writers cache frames by identity). */
const unmarked = new WeakMap<BusNotification, BusNotification>();

function withoutMark(n: BusNotification): BusNotification {
  if (!(AFTER_POSITION_KEY in n.notification)) return n;
  let copy = unmarked.get(n);
  if (!copy) {
    const { [AFTER_POSITION_KEY]: _mark, ...body } = n.notification;
    unmarked.set(n, (copy = { ...n, notification: body }));
  }
  return copy;
}
