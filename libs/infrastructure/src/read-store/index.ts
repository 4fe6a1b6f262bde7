import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MongoReadStore } from './mongo-read-store';
import type { ReadStore } from './read-store.port';
import { SqliteReadStore } from './sqlite-read-store';

export * from './read-store.port';
export { MongoReadStore, type MongoReadStoreOptions } from './mongo-read-store';
export { SqliteReadStore, type SqliteReadStoreOptions, type QueryPlan, type ReadStats } from './sqlite-read-store';

/** MongoDB when MONGODB_URL is set, else the embedded SQLite file `${SVC_DATA_DIR}/read.db`. */
export async function createReadStore(env: { MONGODB_URL?: string; SVC_DATA_DIR: string }): Promise<ReadStore> {
  if (env.MONGODB_URL) return MongoReadStore.create({ url: env.MONGODB_URL });
  mkdirSync(env.SVC_DATA_DIR, { recursive: true });
  return new SqliteReadStore({ file: join(env.SVC_DATA_DIR, 'read.db') });
}
