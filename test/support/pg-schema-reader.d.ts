import type { SchemaReader } from '@svc/infrastructure/integrations/tools/tool-adapter.port';

/** PostgreSQL's information_schema as a SchemaReader, for tests (pg-schema-reader.js). */
export declare class PgSchemaReader implements SchemaReader {
  schemaOf: SchemaReader['schemaOf'];
}
