/**
 * Where the indicator planner gets its SchemaReader: the Nest token INDICATOR_SCHEMA_READER.
 *
 * WIRING POINT (issue 20): the SQL tool adapters' information_schema reader
 * (libs/infrastructure/src/integrations/tools/sql) is the production reader; until it is wired here,
 * `schemaReaderWiring.create` answers UNAVAILABLE naming the connection, so an indicator on a
 * connection without a declared schema is refused with 503, never accepted unplanned.
 */
import type { SchemaReader } from '../tools/tool-adapter.port';
import { ToolError } from '../tools/tool-adapter.port';

export const INDICATOR_SCHEMA_READER = Symbol('INDICATOR_SCHEMA_READER');

/** No live reader in this build: every read is UNAVAILABLE, naming the connection. */
export const unwiredSchemaReader: SchemaReader = {
  schemaOf: async (connection) => {
    throw new ToolError('UNAVAILABLE', `no schema reader is configured in this build for ${connection.name}`);
  },
};

/**
 * The factory the provider calls once per process. A mutable holder, so that an end-to-end test can
 * swap in its own reader from a `--require` preload without any switch in production code.
 */
export const schemaReaderWiring: { create: () => SchemaReader } = { create: () => unwiredSchemaReader };

export const schemaReaderProvider = { provide: INDICATOR_SCHEMA_READER, useFactory: (): SchemaReader => schemaReaderWiring.create() };
