import { positionFromString, type Position } from '../event-store/event-store.port';
import { AFTER_POSITION_KEY, type BusNotification } from './notification-bus.port';

/** What the gate needs of the committed feed (CommittedFeed). */
export interface FeedProgress {
  hasDelivered(position: Position): boolean;
  onProgress(listener: () => void): () => void;
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
