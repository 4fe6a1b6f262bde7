/** Limits and timings of the notification stream (docs/operations.md, "Notification stream"). */
export interface NotificationSettings {
  /** Idle streams get a comment this often, so proxies keep them open. SVC_NOTIFY_HEARTBEAT_MS, 15,000. */
  heartbeatMs: number;
  /** Bytes a stream may hold unsent before its subscriber is disconnected. SVC_NOTIFY_MAX_BUFFER_BYTES, 1 MiB. */
  maxBufferBytes: number;
  /** Open streams per organization in one api process. SVC_NOTIFY_MAX_SUBSCRIBERS_PER_ORG, 2,500. */
  maxSubscribersPerOrg: number;
  /** Open streams in one api process, all organizations. SVC_NOTIFY_MAX_SUBSCRIBERS, 10,000. */
  maxSubscribers: number;
}

export function loadNotificationSettings(env: NodeJS.ProcessEnv = process.env): NotificationSettings {
  return {
    heartbeatMs: positive(env, 'SVC_NOTIFY_HEARTBEAT_MS', 15_000),
    maxBufferBytes: positive(env, 'SVC_NOTIFY_MAX_BUFFER_BYTES', 1024 * 1024),
    maxSubscribersPerOrg: positive(env, 'SVC_NOTIFY_MAX_SUBSCRIBERS_PER_ORG', 2500),
    maxSubscribers: positive(env, 'SVC_NOTIFY_MAX_SUBSCRIBERS', 10_000),
  };
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}
