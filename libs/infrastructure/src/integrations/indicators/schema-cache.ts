/**
 * A SchemaReader with a TTL cache in front (issue 20: "cached with a TTL"): a schema read less than
 * `ttlMs` ago is used without asking the database; an older one is read again, and a database that
 * cannot be read then answers UNAVAILABLE naming the connection (a stale schema is never used, and a
 * failure is never an acceptance). Concurrent reads of one connection share one request. Bounded:
 * at most `maxEntries` connections (least recently used out first) and `maxColumns` per schema.
 */
import { DEFAULT_TOOL_LIMITS, type DatabaseSchema, type SchemaReader, type ToolConnection, type ToolContext, ToolError } from '../tools/tool-adapter.port';

export interface SchemaCacheOptions {
  ttlMs: number;
  maxEntries: number;
  /** Columns of one schema, all tables together; a larger catalog is refused (declare the tables instead). */
  maxColumns: number;
  /** Wall time of one read. */
  timeoutMs: number;
  now?: () => number;
}

export const DEFAULT_SCHEMA_CACHE: SchemaCacheOptions = { ttlMs: 60_000, maxEntries: 256, maxColumns: 100_000, timeoutMs: 5_000 };

interface Entry {
  schema: DatabaseSchema;
  readAt: number;
}

export class CachedSchemaReader implements SchemaReader {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<DatabaseSchema>>();
  private readonly options: Required<SchemaCacheOptions>;

  constructor(
    private readonly reader: SchemaReader,
    options: Partial<SchemaCacheOptions> = {},
  ) {
    this.options = { now: Date.now, ...DEFAULT_SCHEMA_CACHE, ...options };
  }

  /**
   * The cache key: the connection and where it points (a changed host or database is another schema).
   * `org` keeps two organizations' connections of the same ID apart.
   */
  static key(org: string, connection: ToolConnection): string {
    const d = connection.details;
    return JSON.stringify([org, connection.name, d.host, d.port, d.database, d.username]);
  }

  async schemaOf(connection: ToolConnection, context: ToolContext, org = ''): Promise<DatabaseSchema> {
    const key = CachedSchemaReader.key(org, connection);
    const hit = this.entries.get(key);
    if (hit && this.options.now() - hit.readAt < this.options.ttlMs) {
      // Most recently used last: the Map's order is the eviction order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.schema;
    }
    let read = this.pending.get(key);
    if (!read) {
      read = this.read(connection, context).finally(() => this.pending.delete(key));
      this.pending.set(key, read);
    }
    const schema = await read;
    this.entries.delete(key);
    this.entries.set(key, { schema, readAt: this.options.now() });
    while (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return schema;
  }

  /** Forgets every cached schema (tests; an operator's config apply could call it). */
  clear(): void {
    this.entries.clear();
  }

  private async read(connection: ToolConnection, context: ToolContext): Promise<DatabaseSchema> {
    const limits = { ...DEFAULT_TOOL_LIMITS, ...context.limits, timeoutMs: Math.min(context.limits?.timeoutMs ?? this.options.timeoutMs, this.options.timeoutMs) };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ToolError('UNAVAILABLE', `reading the schema of ${connection.name} took longer than ${limits.timeoutMs} ms`)), limits.timeoutMs);
    });
    let schema: DatabaseSchema;
    try {
      schema = await Promise.race([this.reader.schemaOf(connection, { ...context, limits }), deadline]);
    } catch (error) {
      // The reader's words name the connection and never a credential (tool-adapter.port.ts); anything else is summed up.
      const code = (error as { code?: unknown }).code;
      const detail = error instanceof ToolError ? error.message : `the database could not be reached${typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? ` (${code})` : ''}`;
      throw new ToolError('UNAVAILABLE', `the schema of ${connection.name} could not be read: ${detail}`);
    } finally {
      clearTimeout(timer);
    }
    const columns = schema.tables.reduce((sum, t) => sum + t.columns.length, 0);
    if (columns > this.options.maxColumns) {
      throw new ToolError(
        'FAILED_PRECONDITION',
        `the schema of ${connection.name} has ${columns} columns, more than the ${this.options.maxColumns} the indicator planner reads; declare the tables indicators read in the operator configuration (details.sqldb.schema)`,
      );
    }
    return schema;
  }
}
