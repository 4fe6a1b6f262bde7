export { SqliteReadStore, type QueryPlan, type ReadStats, type SqliteReadStoreOptions } from './sqlite-read-store';
