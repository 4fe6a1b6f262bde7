/**
 * Plans an indicator's query against the live schema of the connections it reads (spec part 3,
 * "schema-aware dry run"; issue 20): the schema comes from each connection's database through a
 * SchemaReader (cached), or from the operator configuration when it declares one
 * (`details.sqldb.schema`, an optional override); the tables the query names are created empty in the
 * DuckDB planner, which gives the output columns. The answer is an IndicatorPlan the decider checks
 * against the kind (libs/domain/src/indicators/indicator-contract.ts), or a DomainError:
 * INVALID_ARGUMENT naming the table, column or syntax the query got wrong, UNAVAILABLE naming the
 * connection whose database cannot be read.
 */
import type { IndicatorPlan, PlannedColumn } from '@svc/domain/indicators/indicator-contract';
import { sqlTokens, type SqlDialect } from '@svc/domain/indicators/indicator-sql';
import { DomainError, invalid } from '@svc/domain/shared/domain-error';
import { isPlainObject } from '@svc/domain/shared/json-path';
import { DEFAULT_TOOL_LIMITS, type DatabaseSchema, type SchemaReader, type ToolConnection, ToolError } from '../tools/tool-adapter.port';
import { DuckDbPlanner, PlanError, type PlannerTable } from './duckdb-planner';
import { duckdbType } from './planner-types';
import { CachedSchemaReader } from './schema-cache';

/** A connection as the planner needs it; `open` gives its details with secrets opened, only when the database is read. */
export interface PlannedConnection {
  name: string;
  type: string;
  /** Details as stored (secrets sealed): enough to see a declared schema and the dialect. */
  details: Record<string, unknown>;
  open(): Promise<ToolConnection>;
}

export interface PlanRequest {
  org: string;
  engineSql: string;
  dialect: SqlDialect;
  connections: readonly PlannedConnection[];
}

const SQLDB = 'CONNECTION_TYPE_SQLDB';

/** The declared override of a connection (`details.sqldb.schema`: table to column to type), or undefined. */
export function declaredSchema(details: Record<string, unknown>): DatabaseSchema | undefined {
  const sqldb = isPlainObject(details.sqldb) ? details.sqldb : undefined;
  if (!sqldb || !isPlainObject(sqldb.schema)) return undefined;
  return {
    tables: Object.entries(sqldb.schema).map(([name, columns]) => ({
      name,
      columns: isPlainObject(columns) ? Object.entries(columns).map(([column, type]) => ({ name: column, type: String(type) })) : [],
    })),
  };
}

/** Lowercased names the query mentions (words and quoted names): a table it never names cannot be read. */
function mentioned(sql: string, dialect: SqlDialect): Set<string> {
  const names = new Set<string>();
  for (const token of sqlTokens(sql, dialect)) {
    if (token.kind === 'word') names.add(token.value);
    else if (token.kind === 'quoted') for (const part of token.value.split('.')) names.add(part.toLowerCase());
  }
  return names;
}

/**
 * PostgreSQL folds unquoted output names to lowercase (`AS Time` is `time`); DuckDB keeps them as
 * written. A planned name the SQL never quotes is folded as PostgreSQL would.
 */
function foldNames(columns: PlannedColumn[], request: PlanRequest): PlannedColumn[] {
  if (request.dialect !== 'postgresql') return columns;
  const quoted = new Set<string>();
  for (const token of sqlTokens(request.engineSql, request.dialect)) if (token.kind === 'quoted') quoted.add(token.value);
  return columns.map((c) => (quoted.has(c.name) ? c : { ...c, name: c.name.toLowerCase() }));
}

const bareName = (name: string) => name.slice(name.lastIndexOf('.') + 1).toLowerCase();

export class IndicatorPlanner {
  readonly schemas: CachedSchemaReader;

  constructor(
    reader: SchemaReader,
    readonly engine: DuckDbPlanner = new DuckDbPlanner(),
    cache?: ConstructorParameters<typeof CachedSchemaReader>[1],
  ) {
    this.schemas = reader instanceof CachedSchemaReader ? reader : new CachedSchemaReader(reader, cache);
  }

  async plan(request: PlanRequest): Promise<IndicatorPlan> {
    const names = mentioned(request.engineSql, request.dialect);
    const tables: PlannerTable[] = [];
    // Tables by full name, first connection first: a name two connections share is the first's.
    const seen = new Set<string>();
    const unknownTypes: string[] = [];
    for (const connection of request.connections) {
      if (connection.type !== SQLDB) throw invalid(`indicator.query.connections: '${connection.name}' is a ${connection.type} connection; an indicator's query reads SQL databases (${SQLDB})`);
      const declared = declaredSchema(connection.details);
      const schema = declared ?? (await this.liveSchema(request.org, connection));
      for (const table of schema.tables) {
        if (!names.has(bareName(table.name)) || seen.has(table.name.toLowerCase())) continue;
        seen.add(table.name.toLowerCase());
        tables.push({
          name: table.name,
          columns: table.columns.map((c) => {
            const mapped = duckdbType(c.type, request.dialect);
            if (!mapped.known) unknownTypes.push(`${table.name}.${c.name} (${c.type})`);
            return { name: c.name, type: mapped.type };
          }),
        });
      }
    }
    let columns;
    try {
      columns = await this.engine.plan(request.engineSql, request.dialect, tables);
    } catch (error) {
      if (!(error instanceof PlanError)) throw error;
      throw this.explain(error, request, unknownTypes);
    }
    return { engineSql: request.engineSql, connections: request.connections.map((c) => c.name), columns: foldNames(columns, request) };
  }

  /** INVALID_ARGUMENT `does not parse: ...` when the engine cannot read `sql` as SQL at all; nothing else is checked. */
  async checkSyntax(request: Pick<PlanRequest, 'engineSql' | 'dialect' | 'connections'>): Promise<void> {
    try {
      await this.engine.parse(request.engineSql, request.dialect);
    } catch (error) {
      if (!(error instanceof PlanError)) throw error;
      if (error.kind === 'parse') throw this.explain(error, request as PlanRequest, []);
    }
  }

  private async liveSchema(org: string, connection: PlannedConnection): Promise<DatabaseSchema> {
    try {
      return await this.schemas.schemaOf(await connection.open(), { limits: DEFAULT_TOOL_LIMITS }, org);
    } catch (error) {
      if (error instanceof ToolError && error.code === 'FAILED_PRECONDITION') throw new DomainError('FAILED_PRECONDITION', error.message, 'INDICATOR_SCHEMA_TOO_LARGE');
      if (error instanceof ToolError) throw new DomainError('UNAVAILABLE', `indicator.query cannot be planned: ${error.message}`, 'INDICATOR_SCHEMA_UNAVAILABLE', { connection: connection.name });
      throw error;
    }
  }

  /** A PlanError in the words of the request: which table, column or syntax, and where the schema came from. */
  private explain(error: PlanError, request: PlanRequest, unknownTypes: string[]): DomainError {
    const where = request.connections.map((c) => `'${c.name}'`).join(', ');
    const declared = request.connections.some((c) => declaredSchema(c.details) !== undefined);
    const schemaOf = declared ? `the declared schema of connection ${where}` : `the database of connection ${where}`;
    const note = unknownTypes.length > 0 ? ` (planned as VARCHAR, having no planner type: ${unknownTypes.slice(0, 5).join(', ')})` : '';
    switch (error.kind) {
      case 'table':
        return invalid(`indicator.query.engine_sql reads table '${error.subject}', which is not in ${schemaOf}`);
      case 'column':
        return invalid(`indicator.query.engine_sql reads column '${error.subject}', which no table it reads has in ${schemaOf}`);
      case 'parse':
        return invalid(`indicator.query.engine_sql does not parse: ${error.message}`);
      case 'statement':
        return invalid(`indicator.query.engine_sql must be exactly one SELECT statement: ${error.message}`);
      case 'timeout':
        return invalid(`indicator.query.engine_sql could not be planned within ${this.engine.limits.timeoutMs} ms; simplify the query`);
      case 'limit':
        return invalid(`indicator.query.engine_sql cannot be planned: ${error.message}`);
      case 'busy':
        return new DomainError('RESOURCE_EXHAUSTED', `indicator.query.engine_sql cannot be planned now: ${error.message}; retry shortly`);
      default:
        return invalid(`indicator.query.engine_sql cannot be planned: ${error.message}${note}`);
    }
  }
}
