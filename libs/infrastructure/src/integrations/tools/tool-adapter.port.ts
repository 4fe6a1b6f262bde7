/**
 * The tool executor's port (issue 20, "The tool executor"): one adapter per connection type runs the
 * tools that type offers (libs/domain/src/connections/connection-types.ts). The executor resolves the
 * connection, opens its secrets and hands the adapter the details of its type; the adapter talks to
 * the outside system, bounded by the limits it is given, and answers a JSON-able result the model sees.
 * Adapters never log or return a secret: a fault names the connection, never a credential.
 */

/** A connection as an adapter sees it: its own section of the details, secrets opened. */
export interface ToolConnection {
  /** `connections/{id}` */
  name: string;
  /** `CONNECTION_TYPE_*` */
  type: string;
  /** The details of the connection's type as configured (e.g. `{host, port, database, username, password, ssl_mode}` for sqldb), secrets opened. */
  details: Record<string, unknown>;
}

/** Caps every adapter applies; results past a cap are cut and say so (`truncated`). */
export interface ToolLimits {
  /** Wall time of one call, the outside system's own work included. */
  timeoutMs: number;
  /** Rows of a SQL result. */
  maxRows: number;
  /** Bytes of the JSON result handed to the model. */
  maxBytes: number;
  /** Series of a PromQL result. */
  maxSeries: number;
  /** Points of a PromQL range result, all series together. */
  maxPoints: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = { timeoutMs: 10_000, maxRows: 500, maxBytes: 64 * 1024, maxSeries: 100, maxPoints: 5_000 };

export interface ToolContext {
  limits: ToolLimits;
  /** Aborted when the turn is given up (the process stops). */
  signal?: AbortSignal;
}

export interface ToolAdapter {
  /** The connection type it serves. */
  readonly connectionType: string;
  /** The tools it runs (a subset of its type's available tools). */
  readonly tools: readonly string[];
  /** Runs one call; `args` is the model's parsed JSON object. Throws ToolError for an honest failure. */
  run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>>;
  /** Releases pools and sockets (process stop, tests). */
  close(): Promise<void>;
}

/** The failure codes a tool result carries; the model sees `{error: code, message}`. */
export type ToolErrorCode = 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'PERMISSION_DENIED' | 'DEADLINE_EXCEEDED' | 'UNAVAILABLE' | 'FAILED_PRECONDITION';

/** A tool call that failed for a reason the model may act on; its message never holds a secret. */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

/** A database's tables as its catalog describes them (information_schema / pg_catalog), for the SQL tools and the indicator planner. */
export interface DatabaseSchema {
  tables: Array<{
    /** Schema-qualified where the database has schemas (`public.orders`), else the bare name. */
    name: string;
    columns: Array<{ name: string; /** The database's own type name, e.g. `timestamp with time zone`, `bigint`, `varchar(255)`. */ type: string }>;
  }>;
  /** Set when the catalog held more columns than the reader's bound: the tables listed are complete, later ones are missing. */
  truncated?: boolean;
}

/** Reads a SQL connection's schema (read-only, through the same pools as the SQL tools). */
export interface SchemaReader {
  schemaOf(connection: ToolConnection, context: ToolContext): Promise<DatabaseSchema>;
}
