/**
 * A SQL connection's schema from its own catalog, read-only and bounded, through the same pools as
 * the SQL tools: PostgreSQL's pg_catalog (every schema but the system ones, tables, views,
 * materialized views, partitioned and foreign tables, `format_type` names such as
 * `timestamp with time zone`), MySQL/MariaDB's information_schema (the connection's database,
 * `COLUMN_TYPE` names such as `varchar(255)`). Also the catalog queries of TOOL_SQLDB_LIST_TABLES and
 * TOOL_SQLDB_DESCRIBE_TABLE.
 */
import { type DatabaseSchema, type SchemaReader, type ToolConnection, type ToolContext, ToolError } from '../tool-adapter.port';
import type { SqlEngine } from './sql-engine';
import type { SqlPools } from './sql-pools';

/** Most columns (all tables together) one schema read returns; past it the schema says `truncated`. */
export const MAX_SCHEMA_COLUMNS = 10_000;

const PG_SYSTEM = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'";

const PG_COLUMNS = `SELECT n.nspname || '.' || c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_catalog.pg_attribute a
  JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND a.attnum > 0 AND NOT a.attisdropped AND ${PG_SYSTEM}
  ORDER BY n.nspname, c.relname, a.attnum
  LIMIT $1`;

const MYSQL_COLUMNS = `SELECT table_name, column_name, column_type FROM information_schema.columns
  WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position LIMIT ?`;

const PG_TABLES = `SELECT n.nspname || '.' || c.relname,
    CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition AND ${PG_SYSTEM}
  ORDER BY 1 LIMIT $1`;

const MYSQL_TABLES = `SELECT table_name, CASE table_type WHEN 'BASE TABLE' THEN 'TABLE' ELSE table_type END
  FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1 LIMIT ?`;

// to_regclass reads the name as PostgreSQL would (search_path, quoting) and is null for none.
const PG_DESCRIBE = `SELECT a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull
  FROM pg_catalog.pg_attribute a
  WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
  ORDER BY a.attnum LIMIT $2`;

const MYSQL_DESCRIBE = `SELECT column_name, column_type, is_nullable = 'YES' FROM information_schema.columns
  WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ? ORDER BY ordinal_position LIMIT ?`;

export class SqlSchemaReader implements SchemaReader {
  constructor(private readonly pools: SqlPools) {}

  async schemaOf(connection: ToolConnection, context: ToolContext): Promise<DatabaseSchema> {
    const { engine } = this.pools.engineFor(connection);
    const result = await catalogQuery(engine, engine.driver === 'postgres' ? PG_COLUMNS : MYSQL_COLUMNS, [MAX_SCHEMA_COLUMNS + 1], MAX_SCHEMA_COLUMNS + 1, context);
    const truncated = result.length > MAX_SCHEMA_COLUMNS;
    const rows = truncated ? result.slice(0, MAX_SCHEMA_COLUMNS) : result;
    const tables: DatabaseSchema['tables'] = [];
    for (const [table, column, type] of rows) {
      const last = tables[tables.length - 1];
      if (last?.name === String(table)) last.columns.push({ name: String(column), type: String(type) });
      else tables.push({ name: String(table), columns: [{ name: String(column), type: String(type) }] });
    }
    // Past the bound the last table may be cut: only whole tables are reported.
    if (truncated) tables.pop();
    return truncated ? { tables, truncated } : { tables };
  }
}

/** Tables and views of the connection (TOOL_SQLDB_LIST_TABLES), at most `limit + 1` fetched. */
export async function listTables(engine: SqlEngine, limit: number, context: ToolContext): Promise<unknown[][]> {
  return catalogQuery(engine, engine.driver === 'postgres' ? PG_TABLES : MYSQL_TABLES, [limit + 1], limit + 1, context);
}

/** Columns of one table (TOOL_SQLDB_DESCRIBE_TABLE): `[name, type, nullable]` rows; NOT_FOUND when there is no such table. */
export async function describeTable(engine: SqlEngine, table: string, limit: number, context: ToolContext): Promise<unknown[][]> {
  let params: unknown[];
  if (engine.driver === 'postgres') {
    params = [table, limit];
  } else {
    const dot = table.indexOf('.');
    params = dot < 0 ? [null, unquote(table), limit] : [unquote(table.slice(0, dot)), unquote(table.slice(dot + 1)), limit];
  }
  const rows = await catalogQuery(engine, engine.driver === 'postgres' ? PG_DESCRIBE : MYSQL_DESCRIBE, params, limit, context);
  if (rows.length === 0) throw new ToolError('NOT_FOUND', `no table or view '${table}' is visible on this connection (TOOL_SQLDB_LIST_TABLES lists them)`);
  return rows;
}

function unquote(name: string): string {
  return name.length >= 2 && name.startsWith('`') && name.endsWith('`') ? name.slice(1, -1).replace(/``/g, '`') : name;
}

async function catalogQuery(engine: SqlEngine, sql: string, params: unknown[], maxRows: number, context: ToolContext): Promise<unknown[][]> {
  const result = await engine.query({ sql, params, keyword: 'select', maxRows, timeoutMs: context.limits.timeoutMs });
  return result.rows;
}
