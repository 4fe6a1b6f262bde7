// @ts-check
/**
 * `node --require` preload for end-to-end tests: makes the built api's indicator planner read live
 * schemas with the test's PostgreSQL reader (pg-schema-reader.js) by swapping the factory of
 * libs/infrastructure/src/integrations/indicators/schema-reader.provider.ts. Once the production
 * reader is wired there, that module no longer consults the factory and this preload changes nothing.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const provider = path.resolve(__dirname, '../../dist/libs/infrastructure/src/integrations/indicators/schema-reader.provider.js');
if (fs.existsSync(provider)) {
  const { schemaReaderWiring } = require(provider);
  const { PgSchemaReader } = require('./pg-schema-reader');
  if (schemaReaderWiring) schemaReaderWiring.create = () => new PgSchemaReader();
}
