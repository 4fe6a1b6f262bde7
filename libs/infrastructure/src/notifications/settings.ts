/** Limits and timings of the notification and watch streams (docs/operations.md, "Notification stream"). */
export interface NotificationSettings {
  /** Idle streams get a comment this often, so proxies keep them open. SVC_NOTIFY_HEARTBEAT_MS, 15,000. */
  heartbeatMs: number;
  /**
   * Bytes one stream may hold unsent (queued, or written and not yet taken by the socket) before its
   * subscriber is ended as a slow consumer. SVC_NOTIFY_MAX_BUFFER_BYTES, 1 MiB.
   */
  maxBufferBytes: number;
  /** Open streams per organization in one api process (each kind). SVC_NOTIFY_MAX_SUBSCRIBERS_PER_ORG, 2,500. */
  maxSubscribersPerOrg: number;
  /** Open streams per member (principal actor) in one api process (each kind). SVC_NOTIFY_MAX_SUBSCRIBERS_PER_MEMBER, 100. */
  maxSubscribersPerMember: number;
  /** Open streams in one api process, all organizations (each kind). SVC_NOTIFY_MAX_SUBSCRIBERS, 10,000. */
  maxSubscribers: number;
  /**
   * Bytes all streams of one api process (both kinds) may hold unsent: past it, a stream that is
   * behind is ended as a slow consumer and new streams are refused. SVC_NOTIFY_MAX_BUFFERED_BYTES_TOTAL, 256 MiB.
   */
  maxBufferedBytesTotal: number;
}

export function loadNotificationSettings(env: NodeJS.ProcessEnv = process.env): NotificationSettings {
  return {
    heartbeatMs: positive(env, 'SVC_NOTIFY_HEARTBEAT_MS', 15_000),
    maxBufferBytes: positive(env, 'SVC_NOTIFY_MAX_BUFFER_BYTES', 1024 * 1024),
    maxSubscribersPerOrg: positive(env, 'SVC_NOTIFY_MAX_SUBSCRIBERS_PER_ORG', 2500),
    maxSubscribersPerMember: positive(env, 'SVC_NOTIFY_MAX_SUBSCRIBERS_PER_MEMBER', 100),
    maxSubscribers: positive(env, 'SVC_NOTIFY_MAX_SUBSCRIBERS', 10_000),
    maxBufferedBytesTotal: positive(env, 'SVC_NOTIFY_MAX_BUFFERED_BYTES_TOTAL', 256 * 1024 * 1024),
  };
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}
