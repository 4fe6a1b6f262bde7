/**
 * The SQL tools of CONNECTION_TYPE_SQLDB: TOOL_SQLDB_QUERY (`{sql}`), TOOL_SQLDB_LIST_TABLES (`{}`)
 * and TOOL_SQLDB_DESCRIBE_TABLE (`{table}`), on PostgreSQL or MySQL/MariaDB. Every statement runs in
 * a read-only transaction of its own with the call's timeout, one statement only, its result cut at
 * the row and byte caps (docs/operations.md, "Tools").
 */
import { type SchemaReader, type ToolAdapter, type ToolConnection, type ToolContext, ToolError, type DatabaseSchema } from '../tool-adapter.port';
import { capRows, type QueryResult } from './sql-result';
import { DEFAULT_SQL_POOL_OPTIONS, type SqlPoolOptions, SqlPools } from './sql-pools';
import { describeTable, listTables, SqlSchemaReader } from './sql-schema';
import { singleStatement } from './sql-statement';

export const SQL_TOOLS = ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_DESCRIBE_TABLE'] as const;

/** Longest table name TOOL_SQLDB_DESCRIBE_TABLE accepts. */
const MAX_TABLE_NAME = 300;

export class SqlAdapter implements ToolAdapter, SchemaReader {
  readonly connectionType = 'CONNECTION_TYPE_SQLDB';
  readonly tools: readonly string[] = SQL_TOOLS;
  readonly pools: SqlPools;
  private readonly schemas: SqlSchemaReader;

  constructor(options: SqlPoolOptions = DEFAULT_SQL_POOL_OPTIONS) {
    this.pools = new SqlPools(options);
    this.schemas = new SqlSchemaReader(this.pools);
  }

  async run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>> {
    const { limits } = context;
    switch (tool) {
      case 'TOOL_SQLDB_QUERY': {
        // `query` is read too: the name models were first offered for it.
        const sql = args.sql ?? args.query;
        if (typeof sql !== 'string') throw new ToolError('INVALID_ARGUMENT', 'TOOL_SQLDB_QUERY takes {"sql": "<one SQL statement>"}');
        const { engine } = this.pools.engineFor(connection);
        const statement = singleStatement(sql, engine.driver);
        const rows = await engine.query({ sql: statement.text, keyword: statement.keyword, maxRows: limits.maxRows, timeoutMs: limits.timeoutMs });
        return capRows(rows, limits.maxRows, limits.maxBytes);
      }
      case 'TOOL_SQLDB_LIST_TABLES': {
        const { engine } = this.pools.engineFor(connection);
        const rows = await listTables(engine, limits.maxRows, context);
        const result: QueryResult = capRows({ columns: ['name', 'type'], rows, more: false }, limits.maxRows, limits.maxBytes);
        const tables = result.rows.map(([name, type]) => ({ name, type }));
        return { tables, ...(result.truncated ? { truncated: result.truncated } : {}) };
      }
      case 'TOOL_SQLDB_DESCRIBE_TABLE': {
        const table = args.table;
        if (typeof table !== 'string' || table.trim() === '' || table.length > MAX_TABLE_NAME) {
          throw new ToolError('INVALID_ARGUMENT', `TOOL_SQLDB_DESCRIBE_TABLE takes {"table": "<name or schema.name>"} (at most ${MAX_TABLE_NAME} characters)`);
        }
        const { engine } = this.pools.engineFor(connection);
        const rows = await describeTable(engine, table.trim(), limits.maxRows + 1, context);
        const result = capRows({ columns: ['name', 'type', 'nullable'], rows, more: false }, limits.maxRows, limits.maxBytes);
        const columns = result.rows.map(([name, type, nullable]) => ({ name, type, nullable: nullable === true || nullable === 1 }));
        return { table: table.trim(), columns, ...(result.truncated ? { truncated: result.truncated } : {}) };
      }
      default:
        throw new ToolError('INVALID_ARGUMENT', `${tool} is not a SQL tool`);
    }
  }

  schemaOf(connection: ToolConnection, context: ToolContext): Promise<DatabaseSchema> {
    return this.schemas.schemaOf(connection, context);
  }

  close(): Promise<void> {
    return this.pools.close();
  }
}
