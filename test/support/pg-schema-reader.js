// @ts-check
/**
 * A SchemaReader for tests only (the production one is the SQL tool adapters', issue 20): PostgreSQL's
 * information_schema, read-only, through `pg`. Plain JavaScript so that an end-to-end test can load it
 * into the api process with `node --require` (test/support/schema-reader.preload.js).
 */
'use strict';
const { Client } = require('pg');

/** `numeric(10,2)`, `_int4` arrays, enums by their type name: as information_schema tells them. */
function typeOf(row) {
  if (row.data_type === 'numeric' && row.numeric_precision !== null) return `numeric(${row.numeric_precision},${row.numeric_scale ?? 0})`;
  if (row.data_type === 'ARRAY' || row.data_type === 'USER-DEFINED') return row.udt_name;
  return row.data_type;
}

class PgSchemaReader {
  /**
   * @param {{ name: string, details: Record<string, unknown> }} connection
   * @param {{ limits: { timeoutMs: number } }} context
   */
  async schemaOf(connection, context) {
    const d = connection.details;
    const client = new Client({
      host: String(d.host ?? '127.0.0.1'),
      port: Number(d.port ?? 5432),
      database: String(d.database ?? ''),
      user: String(d.username ?? 'postgres'),
      password: d.password === undefined ? undefined : String(d.password),
      connectionTimeoutMillis: context.limits.timeoutMs,
      statement_timeout: context.limits.timeoutMs,
    });
    await client.connect();
    try {
      await client.query('BEGIN READ ONLY');
      const { rows } = await client.query(
        `SELECT table_schema, table_name, column_name, data_type, udt_name, numeric_precision, numeric_scale
           FROM information_schema.columns
          WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
          ORDER BY table_schema, table_name, ordinal_position`,
      );
      await client.query('COMMIT');
      /** @type {Map<string, Array<{ name: string, type: string }>>} */
      const tables = new Map();
      for (const row of rows) {
        const name = `${row.table_schema}.${row.table_name}`;
        if (!tables.has(name)) tables.set(name, []);
        tables.get(name)?.push({ name: row.column_name, type: typeOf(row) });
      }
      return { tables: [...tables].map(([name, columns]) => ({ name, columns })) };
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

module.exports = { PgSchemaReader };
