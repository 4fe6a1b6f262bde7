/**
 * Where the indicator planner gets its SchemaReader: the Nest token INDICATOR_SCHEMA_READER, by
 * default the SQL tools' information_schema reader on pools of its own (closed when idle). A database
 * that cannot be reached answers UNAVAILABLE naming the connection, never an unplanned acceptance.
 */
import { SqlPools } from '../tools/sql/sql-pools';
import { SqlSchemaReader } from '../tools/sql/sql-schema';
import type { SchemaReader } from '../tools/tool-adapter.port';
import { ToolError } from '../tools/tool-adapter.port';

export const INDICATOR_SCHEMA_READER = Symbol('INDICATOR_SCHEMA_READER');

/** A reader that reaches nothing: every read is UNAVAILABLE, naming the connection (for tests that want no database). */
export const unwiredSchemaReader: SchemaReader = {
  schemaOf: async (connection) => {
    throw new ToolError('UNAVAILABLE', `no schema reader is configured in this build for ${connection.name}`);
  },
};

/**
 * The factory the provider calls once per process. A mutable holder, so that an end-to-end test can
 * swap in its own reader from a `--require` preload without any switch in production code.
 */
export const schemaReaderWiring: { create: () => SchemaReader } = { create: () => new SqlSchemaReader(new SqlPools()) };

export const schemaReaderProvider = { provide: INDICATOR_SCHEMA_READER, useFactory: (): SchemaReader => schemaReaderWiring.create() };
