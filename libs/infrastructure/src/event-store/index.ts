import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EsdbEventStore } from './esdb-event-store';
import { EventStore } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';

export * from './event-store.port';
export { EsdbEventStore } from './esdb-event-store';
export { SqliteEventStore } from './sqlite-event-store';
export type { SqliteEventStoreOptions } from './sqlite-event-store';

export interface EventStoreEnv {
  EVENTSTORE_URL?: string;
  SVC_DATA_DIR: string;
}

/** EventStoreDB when EVENTSTORE_URL is set, otherwise the embedded SQLite file `${SVC_DATA_DIR}/events.db`. */
export function createEventStore(env: EventStoreEnv): EventStore {
  if (env.EVENTSTORE_URL) return new EsdbEventStore({ url: env.EVENTSTORE_URL });
  mkdirSync(env.SVC_DATA_DIR, { recursive: true });
  return new SqliteEventStore({ file: join(env.SVC_DATA_DIR, 'events.db') });
}
