/**
 * What the SQL tools need from a database driver: one statement, read-only, under a time limit, at
 * most a bounded number of rows fetched. One engine is one connection pool (sql-pools.ts).
 */
import type { SqlRows } from './sql-result';
import type { SqlDialect } from './sql-statement';

export interface ReadOnlyQuery {
  /** One statement (sql-statement.ts checked it), or one of the tools' own catalog queries. */
  sql: string;
  /** Bound parameters of the tools' own queries (`$1` / `?`); a user's statement has none. */
  params?: unknown[];
  /** The statement's first keyword, for engines that fetch through a cursor. */
  keyword: string;
  /** Rows fetched at most past this one are not fetched (`more` says there were). */
  maxRows: number;
  /** The database cancels the statement past this. */
  timeoutMs: number;
}

export interface SqlEngine {
  readonly driver: SqlDialect;
  /** Runs the query in a read-only transaction of its own, rolled back after. Throws ToolError. */
  query(query: ReadOnlyQuery): Promise<SqlRows>;
  /** Closes the pool; queries under way finish first. */
  end(): Promise<void>;
}

/** Added to the database's own timeout before the client gives up on a silent server. */
export const CLIENT_GRACE_MS = 2_000;
/** Connections one pool opens at most. */
export const POOL_MAX_CONNECTIONS = 4;
/** How long opening a connection may take. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** Socket-level failures: the server cannot be reached (the message names the code, never the credentials). */
export const NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
