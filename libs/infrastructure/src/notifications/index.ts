import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MongoNotificationBus } from './mongo-notification-bus';
import type { NotificationBus } from './notification-bus.port';
import { SqliteNotificationBus } from './sqlite-notification-bus';

export * from './notification-bus.port';
export { MongoNotificationBus, type MongoNotificationBusOptions } from './mongo-notification-bus';
export { SqliteNotificationBus, type SqliteNotificationBusOptions } from './sqlite-notification-bus';

/** A capped collection beside the read store when MONGODB_URL is set, else `${SVC_DATA_DIR}/notifications.db`. */
export async function createNotificationBus(env: { MONGODB_URL?: string; SVC_DATA_DIR: string }): Promise<NotificationBus> {
  if (env.MONGODB_URL) return MongoNotificationBus.create({ url: env.MONGODB_URL });
  mkdirSync(env.SVC_DATA_DIR, { recursive: true });
  return new SqliteNotificationBus({ file: join(env.SVC_DATA_DIR, 'notifications.db') });
}
