/**
 * The notification bus port: ephemeral notifications (AssistantThinking, AssistantOutput deltas,
 * ToolOutput, anything a caller Publishes) crossing api instances. Never stored as events and never
 * replayed: a subscriber receives what is published after it subscribed, while the bus retains it.
 * Adapters: SQLite (a bounded table with wake-ups) and MongoDB (a capped collection with a tailable
 * cursor). Both pass test/contracts/notification-bus.contract.ts.
 */

/** One notification as the wire shows it (lowerCamelCase): `value` (an Any), `payload`, ... */
export type NotificationBody = Record<string, unknown>;

export interface BusNotification {
  org: string;
  /** `agents/{agent}/sessions/{session}`, or '' for a notification of the whole organization. */
  topic: string;
  notification: NotificationBody;
}

export interface BusSubscribeOptions {
  /** Narrows delivery to this topic and the topics under it (see topicMatches). */
  topic?: string;
  onNotification(notification: BusNotification): void;
}

export interface BusSubscription {
  /** Stops delivery; idempotent. When the last subscription of a bus ends, its tail (poll, cursor) stops. */
  close(): void;
}

export interface NotificationBus {
  /**
   * Publishes to every current subscriber of `org` (whose topic matches), in any process on the same
   * store. Resolves once the notification is stored (visible to other processes); `notification`
   * must be JSON and at most MAX_NOTIFICATION_BYTES once encoded.
   */
  publish(org: string, topic: string, notification: NotificationBody): Promise<void>;
  /** Live delivery of what is published from now on; nothing published before is delivered. */
  subscribe(org: string, options: BusSubscribeOptions): Promise<BusSubscription>;
  /**
   * Resolves once what any process published before the call has been delivered to this instance's
   * subscribers (at once when it has none). A stream that merges the bus with the log calls it before
   * a committed event, so what a turn published before committing reaches its subscribers first
   * (SessionNotificationStream).
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export const NOTIFICATION_BUS = Symbol('NOTIFICATION_BUS');

/** Largest encoded notification the bus accepts (a Publish body is refused past it, INVALID_ARGUMENT). */
export const MAX_NOTIFICATION_BYTES = 256 * 1024;

/**
 * A subscriber with no topic receives every notification of its organization; with a topic, those
 * whose topic is that topic or lies under it at a `/` boundary (`agents/a` receives `agents/a/sessions/s`,
 * not `agents/ab`).
 */
export function topicMatches(filter: string | undefined, topic: string): boolean {
  if (!filter) return true;
  return topic === filter || (topic.startsWith(filter) && topic.charCodeAt(filter.length) === 47 /* '/' */);
}

export class NotificationTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`notification is ${bytes} bytes encoded; the limit is ${MAX_NOTIFICATION_BYTES}`);
    this.name = 'NotificationTooLargeError';
  }
}

/** The encoded form every adapter stores; refuses what is over the limit before any I/O. */
export function encodeNotification(notification: NotificationBody): string {
  const encoded = JSON.stringify(notification);
  const bytes = Buffer.byteLength(encoded);
  if (bytes > MAX_NOTIFICATION_BYTES) throw new NotificationTooLargeError(bytes);
  return encoded;
}
