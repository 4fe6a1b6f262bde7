/**
 * The indicator planner's engine (docs/decisions.md, "Indicators planned against the live schema"):
 * DuckDB in memory holds EMPTY tables of the schema the query reads and prepares the query (binds and
 * plans it, never runs it), which yields the output columns and their types. One instance per
 * process, one plan at a time on it (a queue), each plan in a fresh in-memory catalog dropped after.
 * The engine can reach no file and no network (`enable_external_access=false`), loads no extension,
 * and a plan past its time cap is interrupted.
 *
 * The query arrives in its database's dialect; DuckDB's own is close to PostgreSQL's. What differs
 * is bridged here, for planning only (the stored SQL is never rewritten): MySQL/BigQuery backquoted
 * names and double-quoted strings, BigQuery's `TIMESTAMP_TRUNC(ts, MINUTE)` argument order and bare
 * date parts, and a few functions as macros (BIGQUERY_MACROS).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type PlannedColumn } from '@svc/domain/indicators/indicator-contract';
import { type SqlDialect, sqlTokens, substitutePlaceholders } from '@svc/domain/indicators/indicator-sql';

/** A table as the planner creates it: schema-qualified or bare name, DuckDB column types. */
export interface PlannerTable {
  /** `public.orders`, `ops.queue` or `orders`. */
  name: string;
  columns: ReadonlyArray<{ name: string; type: string }>;
}

export interface PlannerLimits {
  /** Wall time of one plan (catalog set-up included); past it the plan is interrupted. */
  timeoutMs: number;
  /** Tables one plan may create (those the query names). */
  maxTables: number;
  /** Columns over all tables of one plan. */
  maxColumns: number;
  /** Plans waiting for the engine; one more is refused rather than queued. */
  maxQueue: number;
  /** DuckDB's memory limit. */
  memoryLimit: string;
}

export const DEFAULT_PLANNER_LIMITS: PlannerLimits = { timeoutMs: 2_000, maxTables: 64, maxColumns: 8_192, maxQueue: 64, memoryLimit: '256MB' };

/** Why a plan failed, told apart so the caller can word it: the query's fault, or the engine's limits. */
export class PlanError extends Error {
  constructor(
    readonly kind: 'parse' | 'table' | 'column' | 'statement' | 'bind' | 'timeout' | 'limit' | 'busy',
    message: string,
    /** The table or column the engine could not find. */
    readonly subject?: string,
  ) {
    super(message);
    this.name = 'PlanError';
  }
}

/** Functions of the dialects DuckDB lacks under that name, as macros (TEMP: visible from every plan's catalog). */
const MACROS = [
  // BigQuery
  'CREATE TEMP MACRO timestamp_bucket(ts, width) AS time_bucket(width, ts)',
  'CREATE TEMP MACRO svc_trunc(x, part) AS date_trunc(part, x)',
  'CREATE TEMP MACRO timestamp_add(ts, i) AS ts + i',
  'CREATE TEMP MACRO timestamp_sub(ts, i) AS ts - i',
  'CREATE TEMP MACRO timestamp_seconds(s) AS to_timestamp(s)',
  'CREATE TEMP MACRO timestamp_millis(ms) AS epoch_ms(ms)',
  'CREATE TEMP MACRO unix_seconds(ts) AS epoch(ts)::BIGINT',
  'CREATE TEMP MACRO safe_divide(a, b) AS CASE WHEN b = 0 THEN NULL ELSE a / b END',
  // PostgreSQL 14+
  'CREATE TEMP MACRO date_bin(width, ts, origin) AS time_bucket(width, ts, origin)',
  // MySQL
  'CREATE TEMP MACRO from_unixtime(s) AS to_timestamp(s)',
  'CREATE TEMP MACRO unix_timestamp(ts) AS epoch(ts)::BIGINT',
];
/** Type names of the dialects DuckDB does not know (INT64, BOOL, STRING... it does). */
const TYPES = ['CREATE TYPE float64 AS DOUBLE', 'CREATE TYPE bytes AS BLOB', 'CREATE TYPE bignumeric AS DOUBLE'];

const DATE_PARTS = new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'dayofweek', 'dayofyear', 'week', 'isoweek', 'month', 'quarter', 'year', 'isoyear', 'date', 'time']);
/** BigQuery's truncations take (value, PART); DuckDB's date_trunc takes ('part', value). */
const BQ_TRUNC = new Set(['timestamp_trunc', 'datetime_trunc', 'date_trunc', 'time_trunc']);

const quoteName = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteString = (value: string) => `'${value.replace(/'/g, "''")}'`;
/** A MySQL/BigQuery string's backslash escapes, resolved. */
const unescape = (value: string) => value.replace(/\\(.)/gs, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', '0': '\0' })[c] ?? c);

/**
 * The query in DuckDB's dialect, for planning: names quoted DuckDB's way, strings as standard
 * strings, BigQuery's truncations reordered. Linear: one pass over the tokens.
 */
export function toPlannerDialect(sql: string, dialect: SqlDialect): string {
  if (dialect === 'postgresql') return sql;
  const tokens = [...sqlTokens(sql, dialect)];
  const significant = (from: number, step: 1 | -1) => {
    for (let j = from + step; j >= 0 && j < tokens.length; j += step) if (tokens[j].kind !== 'space' && tokens[j].kind !== 'comment') return tokens[j];
    return undefined;
  };
  const out: string[] = [];
  tokens.forEach((token, i) => {
    const text = sql.slice(token.start, token.end);
    if (token.kind === 'quoted' && token.quote === '`') out.push(token.value.split('.').map(quoteName).join('.'));
    else if (token.kind === 'string' && (token.quote === '"' || token.value.includes('\\'))) out.push(quoteString(unescape(token.value)));
    else if (dialect === 'bigquery' && token.kind === 'word' && BQ_TRUNC.has(token.value) && significant(i, 1)?.value === '(') out.push('svc_trunc');
    else if (dialect === 'bigquery' && token.kind === 'word' && DATE_PARTS.has(token.value) && significant(i, -1)?.value === ',' && significant(i, 1)?.value === ')') {
      out.push(quoteString(token.value));
    } else out.push(text);
  });
  return out.join('');
}

/**
 * Typed literals the plan binds the placeholders to: the types the compiled query gives them
 * (a timestamp with time zone in PostgreSQL and BigQuery, a datetime in MySQL, an interval).
 */
const PLAN_LITERALS: Record<SqlDialect, Record<string, string>> = {
  postgresql: { start_time: "TIMESTAMPTZ '2000-01-01 00:00:00+00'", end_time: "TIMESTAMPTZ '2000-01-02 00:00:00+00'", resolution: "INTERVAL '60 seconds'" },
  bigquery: { start_time: "TIMESTAMPTZ '2000-01-01 00:00:00+00'", end_time: "TIMESTAMPTZ '2000-01-02 00:00:00+00'", resolution: "INTERVAL '60 seconds'" },
  mysql: { start_time: "TIMESTAMP '2000-01-01 00:00:00'", end_time: "TIMESTAMP '2000-01-02 00:00:00'", resolution: "INTERVAL '60 seconds'" },
};

/** Splits `schema.table` (the last dot: BigQuery's `project.dataset.table` keeps `project.dataset`). */
function splitName(name: string): { schema: string; table: string } {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? { schema: 'main', table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}

/** The DuckDB message's first line, without its `Binder Error: ` style prefix kept out of our words. */
const firstLine = (message: string) => message.split('\n')[0].trim();

export class DuckDbPlanner {
  private instance: Promise<{ db: DuckDBInstance; connection: DuckDBConnection; duckdb: typeof import('@duckdb/node-api') }> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private sequence = 0;
  /** Set by close(): plans still queued are refused, so a stop waits for one plan at most. */
  private closing = false;

  constructor(readonly limits: PlannerLimits = DEFAULT_PLANNER_LIMITS) {}

  /**
   * The output columns of `sql` (in `dialect`, placeholders still in) over empty `tables`, or a
   * PlanError saying what the engine could not do.
   */
  async plan(sql: string, dialect: SqlDialect, tables: readonly PlannerTable[]): Promise<PlannedColumn[]> {
    if (tables.length > this.limits.maxTables) throw new PlanError('limit', `the query names more than ${this.limits.maxTables} tables`);
    const columns = tables.reduce((sum, t) => sum + t.columns.length, 0);
    if (columns > this.limits.maxColumns) throw new PlanError('limit', `the tables the query names have more than ${this.limits.maxColumns} columns together`);
    if (this.waiting >= this.limits.maxQueue) throw new PlanError('busy', `more than ${this.limits.maxQueue} indicator queries are waiting to be planned`);
    const planned = toPlannerDialect(substitutePlaceholders(sql, dialect, PLAN_LITERALS[dialect]), dialect);
    this.waiting++;
    const run = this.queue.then(() => (this.closing ? Promise.reject(new PlanError('busy', 'the planner is stopping')) : this.planOne(planned, tables)));
    this.queue = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      this.waiting--;
    }
  }

  /** Whether `sql` parses as DuckDB reads it (no catalog, no plan); a PlanError of kind `parse` when not. */
  async parse(sql: string, dialect: SqlDialect): Promise<void> {
    if (this.waiting >= this.limits.maxQueue) throw new PlanError('busy', `more than ${this.limits.maxQueue} indicator queries are waiting to be planned`);
    const text = toPlannerDialect(substitutePlaceholders(sql, dialect, PLAN_LITERALS[dialect]), dialect);
    this.waiting++;
    const run = this.queue.then(async () => {
      const { connection } = await this.engine();
      await connection.extractStatements(text).catch((error: Error) => {
        throw classify(firstLine(error.message).replace(/^Failed to extract statements: /, ''));
      });
    });
    this.queue = run.catch(() => undefined);
    try {
      await run;
    } finally {
      this.waiting--;
    }
  }

  /** Releases the engine (process stop, tests). */
  async close(): Promise<void> {
    const engine = this.instance;
    this.instance = undefined;
    if (!engine) return;
    this.closing = true;
    await this.queue;
    const { db, connection } = await engine.catch(() => ({ db: undefined, connection: undefined }));
    connection?.closeSync();
    db?.closeSync();
    // A plan asked for after the stop starts a new engine.
    this.closing = false;
  }

  private engine() {
    this.instance ??= (async () => {
      // Loaded on the first plan, not at process start: the native engine costs a start that never plans ~0.5 s and ~25 MB.
      const duckdb = await import('@duckdb/node-api');
      const db = await duckdb.DuckDBInstance.create(':memory:', {
        threads: '1',
        memory_limit: this.limits.memoryLimit,
        enable_external_access: 'false',
        autoinstall_known_extensions: 'false',
        autoload_known_extensions: 'false',
      });
      const connection = await db.connect();
      for (const statement of [...MACROS, ...TYPES]) await connection.run(statement);
      return { db, connection, duckdb };
    })();
    return this.instance;
  }

  private async planOne(sql: string, tables: readonly PlannerTable[]): Promise<PlannedColumn[]> {
    const { connection, duckdb } = await this.engine();
    const catalog = `plan_${++this.sequence}`;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, this.limits.timeoutMs);
    try {
      await connection.run(`ATTACH ':memory:' AS ${catalog}`);
      const schemas = new Set(['main', 'public']);
      const ddl: string[] = [];
      for (const table of tables) {
        const { schema, table: bare } = splitName(table.name);
        if (!schemas.has(schema)) ddl.push(`CREATE SCHEMA IF NOT EXISTS ${catalog}.${quoteName(schema)}`);
        schemas.add(schema);
        const columns = table.columns.map((c) => `${quoteName(c.name)} ${c.type}`).join(', ');
        ddl.push(`CREATE TABLE IF NOT EXISTS ${catalog}.${quoteName(schema)}.${quoteName(bare)} (${columns || 'svc_no_columns INTEGER'})`);
      }
      ddl.unshift(`CREATE SCHEMA IF NOT EXISTS ${catalog}.public`);
      for (const statement of ddl) await connection.run(statement);
      // Unqualified names resolve as PostgreSQL's default search path would (public), then bare names; types and macros from the engine's own catalog.
      await connection.run(`USE ${catalog}.public`);
      await connection.run(`SET search_path = '${catalog}.public,${catalog}.main,memory.main'`);
      const columns = await this.describe(connection, sql, duckdb.StatementType.SELECT);
      // The cap holds even where the engine did not heed the interrupt (it fired between statements).
      if (timedOut) throw new PlanError('timeout', `planning took longer than ${this.limits.timeoutMs} ms`);
      return columns;
    } catch (error) {
      if (timedOut) throw new PlanError('timeout', `planning took longer than ${this.limits.timeoutMs} ms`);
      throw error;
    } finally {
      clearTimeout(timer);
      await connection.run('USE memory.main').catch(() => undefined);
      await connection.run(`DETACH DATABASE IF EXISTS ${catalog}`).catch(() => undefined);
    }
  }

  private async describe(connection: DuckDBConnection, sql: string, select: number): Promise<PlannedColumn[]> {
    let statements;
    try {
      statements = await connection.extractStatements(sql);
    } catch (error) {
      throw classify(firstLine((error as Error).message).replace(/^Failed to extract statements: /, ''));
    }
    if (statements.count !== 1) throw new PlanError('statement', `it holds ${statements.count} statements; an indicator query is exactly one SELECT`);
    let prepared;
    try {
      prepared = await statements.prepare(0);
    } catch (error) {
      throw classify(firstLine((error as Error).message));
    }
    if (prepared.statementType !== select) throw new PlanError('statement', 'it is not a SELECT statement');
    const columns: PlannedColumn[] = [];
    for (let i = 0; i < prepared.columnCount; i++) columns.push({ name: prepared.columnName(i), type: prepared.columnType(i).toString() });
    return columns;
  }
}

/** DuckDB's binder and catalog errors as what they mean for the query. */
function classify(message: string): PlanError {
  const table = /^Catalog Error: Table with name (.+?) does not exist/.exec(message);
  if (table) return new PlanError('table', message, table[1]);
  const column = /^Binder Error: Referenced column "([^"]+)" (?:was )?not found/.exec(message);
  if (column) return new PlanError('column', message, column[1]);
  const qualified = /^Binder Error: Values list "(.+?)" does not have a column named "(.+?)"/.exec(message);
  if (qualified) return new PlanError('column', message, `${qualified[1]}.${qualified[2]}`);
  if (message.startsWith('Parser Error: ')) return new PlanError('parse', message.slice('Parser Error: '.length));
  if (message.startsWith('INTERRUPT Error') || message.includes('Interrupted')) return new PlanError('timeout', message);
  return new PlanError('bind', message);
}
