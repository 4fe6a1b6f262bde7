/**
 * The corpus of indicator queries (issue 20, "Done when"): each query with the outcome a user gets
 * from CreateIndicator's validation (placeholders, the plan over the live schema, the kind's
 * contract). PostgreSQL queries are planned against the schema of a real database this spec creates,
 * read through information_schema, and each is also compiled with the PostgreSQL literals and
 * EXPLAINed by that database: the planner accepts a query exactly when PostgreSQL does, except the
 * rows marked `gap` (DuckDB's dialect, docs/decisions.md) and the contract's refusals (SQL PostgreSQL
 * runs, with the wrong columns). MySQL and BigQuery queries are planned against declared schemas;
 * the MySQL ones are also compiled with MySQL's literals and EXPLAINed by a real MariaDB holding those
 * tables.
 */
import { checkPlannedColumns } from '@svc/domain/indicators/indicator-contract';
import { checkPlaceholders, compileIndicatorSql, type SqlDialect } from '@svc/domain/indicators/indicator-sql';
import { DomainError } from '@svc/domain/shared/domain-error';
import { SqlPools } from '../tools/sql/sql-pools';
import { SqlSchemaReader } from '../tools/sql/sql-schema';
import { createMariaDatabase, mariadbAvailable, type TestMariaDatabase } from '../../../../../test/support/mariadb';
import { createTestDatabase, PG, postgresAvailable, type TestDatabase } from '../../../../../test/support/postgres';
import { IndicatorPlanner, type PlannedConnection } from './indicator-planner';

const RATIO = 'INDICATOR_KIND_RATIO';
const GAUGE = 'INDICATOR_KIND_GAUGE';
const WINDOW = 'ts >= @start_time AND ts < @end_time';
const BIN = 'date_bin(@resolution, ts, @start_time)';

const DDL = `
  CREATE TABLE requests (ts timestamptz NOT NULL, ok boolean, latency_ms double precision, service text, status_code integer, meta jsonb, tags text[]);
  CREATE SCHEMA ops;
  CREATE TABLE ops.queue (ts timestamp, depth bigint, name varchar(64));
  CREATE TABLE orders (created_at timestamptz, amount numeric(12,2), status text, day date);
  CREATE TABLE "Events" ("Time" timestamptz, "Count" integer);
  CREATE TYPE mood AS ENUM ('fine', 'sad');
  CREATE TABLE feelings (ts timestamptz, mood mood, score real);
`;

interface Case {
  label: string;
  kind: string;
  sql: string;
  /** 'ok', or the message a refusal carries. */
  expect: 'ok' | RegExp;
  dialect?: SqlDialect;
  /** PostgreSQL and MySQL queries: whether the database runs the compiled SQL (default: when expected ok). */
  postgres?: boolean;
  /** A query PostgreSQL runs that DuckDB's dialect cannot plan (documented in docs/decisions.md). */
  gap?: true;
}

export const CORPUS: Case[] = [
  // PostgreSQL, accepted
  { label: 'date_bin buckets and count(*) FILTER', kind: RATIO, sql: `SELECT ${BIN} AS time, count(*) FILTER (WHERE ok) AS good_events, count(*) AS total_events FROM requests WHERE ${WINDOW} GROUP BY 1 ORDER BY 1`, expect: 'ok' },
  { label: "date_trunc(...)::timestamp and a FILTER over a comparison", kind: RATIO, sql: `SELECT date_trunc('minute', ts)::timestamp AS time, count(*) FILTER (WHERE status_code < 500) AS good_events, count(*) AS total_events FROM requests WHERE ${WINDOW} AND @resolution > interval '0 seconds' GROUP BY 1`, expect: 'ok' },
  { label: 'epoch arithmetic buckets with to_timestamp', kind: GAUGE, sql: `SELECT to_timestamp(floor(extract(epoch FROM ts) / extract(epoch FROM @resolution)) * extract(epoch FROM @resolution)) AS time, avg(latency_ms) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: 'ok' },
  { label: 'a CTE', kind: RATIO, sql: `WITH w AS (SELECT ts, ok FROM requests WHERE ${WINDOW}) SELECT ${BIN} AS time, sum(CASE WHEN ok THEN 1 ELSE 0 END) AS good_events, count(*) AS total_events FROM w GROUP BY 1`, expect: 'ok' },
  { label: 'two CTEs joined', kind: RATIO, sql: `WITH good AS (SELECT ${BIN} AS b, count(*) AS n FROM requests WHERE ${WINDOW} AND ok GROUP BY 1), total AS (SELECT ${BIN} AS b, count(*) AS n FROM requests WHERE ${WINDOW} GROUP BY 1) SELECT total.b AS time, coalesce(good.n, 0) AS good_events, total.n AS total_events FROM total LEFT JOIN good ON good.b = total.b`, expect: 'ok' },
  { label: 'UNION ALL of two tables', kind: GAUGE, sql: `SELECT ${BIN} AS time, max(depth)::double precision AS value FROM ops.queue WHERE ${WINDOW} GROUP BY 1 UNION ALL SELECT ${BIN}, avg(latency_ms) FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: 'ok' },
  { label: 'a window function over buckets', kind: GAUGE, sql: `SELECT time, avg(value) OVER (ORDER BY time ROWS BETWEEN 4 PRECEDING AND CURRENT ROW) AS value FROM (SELECT ${BIN} AS time, avg(latency_ms) AS value FROM requests WHERE ${WINDOW} GROUP BY 1) buckets`, expect: 'ok' },
  { label: 'lag() in a named window', kind: GAUGE, sql: `SELECT time, value - lag(value) OVER w AS value FROM (SELECT ${BIN} AS time, count(*) AS value FROM requests WHERE ${WINDOW} GROUP BY 1) b WINDOW w AS (ORDER BY time)`, expect: 'ok' },
  { label: 'quoted mixed-case names', kind: GAUGE, sql: `SELECT date_bin(@resolution, "Time", @start_time) AS "time", sum("Count") AS "value" FROM "Events" WHERE "Time" >= @start_time AND "Time" < @end_time GROUP BY 1`, expect: 'ok' },
  { label: '::date time and ::numeric value', kind: GAUGE, sql: `SELECT ts::date AS time, count(*)::numeric AS value FROM requests WHERE ${WINDOW} AND @resolution IS NOT NULL GROUP BY 1`, expect: 'ok' },
  { label: 'a schema-qualified table', kind: GAUGE, sql: `SELECT date_bin(@resolution, ts, @start_time::timestamp) AS time, max(depth) AS value FROM ops.queue WHERE ts >= @start_time AND ts < @end_time GROUP BY 1`, expect: 'ok' },
  { label: 'a numeric(12,2) sum', kind: GAUGE, sql: `SELECT date_bin(@resolution, created_at, @start_time) AS time, sum(amount) AS value FROM orders WHERE created_at >= @start_time AND created_at < @end_time GROUP BY 1`, expect: 'ok' },
  { label: 'percentile_cont WITHIN GROUP', kind: GAUGE, sql: `SELECT ${BIN} AS time, percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: 'ok' },
  { label: 'gap filling with generate_series and a LEFT JOIN', kind: GAUGE, sql: `SELECT g.slot AS time, count(r.ts) AS value FROM generate_series(@start_time, @end_time - @resolution, @resolution) AS g(slot) LEFT JOIN requests r ON r.ts >= g.slot AND r.ts < g.slot + @resolution GROUP BY g.slot`, expect: 'ok' },
  { label: 'a ratio as a gauge: FILTER, ::float8 and NULLIF', kind: GAUGE, sql: `SELECT ${BIN} AS time, (count(*) FILTER (WHERE ok))::float8 / NULLIF(count(*), 0) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: 'ok' },
  { label: 'a subquery in WHERE and HAVING', kind: GAUGE, sql: `SELECT ${BIN} AS time, count(DISTINCT service) AS value FROM requests WHERE ${WINDOW} AND service IN (SELECT service FROM requests GROUP BY service HAVING count(*) > 10) GROUP BY 1 HAVING count(*) > 0`, expect: 'ok' },
  { label: "AT TIME ZONE 'UTC'", kind: GAUGE, sql: `SELECT date_trunc('hour', ts AT TIME ZONE 'UTC') AS time, max(latency_ms) AS value FROM requests WHERE ${WINDOW} AND @resolution IS NOT NULL GROUP BY 1`, expect: 'ok' },
  { label: 'jsonb ->> and a cast', kind: GAUGE, sql: `SELECT ${BIN} AS time, avg((meta->>'latency')::float8) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: 'ok' },
  { label: 'an enum column compared to text', kind: RATIO, sql: `SELECT ${BIN} AS time, count(*) FILTER (WHERE mood = 'fine') AS good_events, count(*) AS total_events FROM feelings WHERE ${WINDOW} GROUP BY 1`, expect: 'ok' },
  { label: 'ANY over an array column', kind: GAUGE, sql: `SELECT ${BIN} AS time, count(*) AS value FROM requests WHERE ${WINDOW} AND 'urgent' = ANY(tags) GROUP BY 1`, expect: 'ok' },
  { label: 'the placeholders in a comment do not count, in the code they do', kind: GAUGE, sql: `-- @start_time is inclusive\nSELECT ${BIN} AS time, max(latency_ms) AS value FROM requests WHERE ${WINDOW} /* @end_time exclusive */ GROUP BY 1`, expect: 'ok' },
  // PostgreSQL, refused
  { label: "SELECT 'x' AS time ... (text where the kind needs a timestamp)", kind: RATIO, sql: `SELECT 'x' AS time, 'y' AS good_events, 'z' AS total_events FROM requests WHERE ${WINDOW} AND @resolution IS NOT NULL`, expect: /column 'time' is VARCHAR: INDICATOR_KIND_RATIO needs a timestamp or a date there/, postgres: true },
  { label: 'a text value column', kind: GAUGE, sql: `SELECT ${BIN} AS time, max(service) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: /column 'value' is VARCHAR: INDICATOR_KIND_GAUGE needs a number there/, postgres: true },
  { label: 'an epoch number as time', kind: GAUGE, sql: `SELECT extract(epoch FROM ${BIN}) AS time, count(*) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: /column 'time' is (DOUBLE|DECIMAL[^:]*): .*timestamp or a date/, postgres: true },
  { label: 'a column the table does not have', kind: GAUGE, sql: `SELECT ${BIN} AS time, avg(latency) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: /reads column 'latency', which no table it reads has in the database of connection 'connections\/warehouse'/ },
  { label: 'a table the database does not have', kind: GAUGE, sql: `SELECT ${BIN} AS time, count(*) AS value FROM payments WHERE ${WINDOW} GROUP BY 1`, expect: /reads table 'payments', which is not in the database of connection 'connections\/warehouse'/ },
  { label: 'a column of a table outside the search path, unqualified', kind: GAUGE, sql: `SELECT ${BIN} AS time, max(depth) AS value FROM queue WHERE ${WINDOW} GROUP BY 1`, expect: /reads table 'queue'/ },
  { label: 'a column missing for the kind', kind: RATIO, sql: `SELECT ${BIN} AS time, count(*) FILTER (WHERE ok) AS good, count(*) AS total_events FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: /lacks column good_events and has unexpected column good/, postgres: true },
  { label: 'an extra column', kind: GAUGE, sql: `SELECT ${BIN} AS time, service, count(*) AS value FROM requests WHERE ${WINDOW} GROUP BY 1, 2`, expect: /has unexpected column service: INDICATOR_KIND_GAUGE needs exactly time, value/, postgres: true },
  { label: 'an unnamed aggregate', kind: GAUGE, sql: `SELECT ${BIN} AS time, max(latency_ms) FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: /lacks column value and has unexpected column max\(latency_ms\)/, postgres: true },
  { label: 'two statements', kind: GAUGE, sql: `SELECT ${BIN} AS time, count(*) AS value FROM requests WHERE ${WINDOW} GROUP BY 1; DROP TABLE requests`, expect: /exactly one SELECT statement/ },
  { label: 'a DELETE', kind: GAUGE, sql: `DELETE FROM requests WHERE ${WINDOW} AND @resolution IS NULL`, expect: /exactly one SELECT statement: it is not a SELECT/, postgres: undefined },
  { label: 'SQL that does not parse', kind: GAUGE, sql: `SELEC ${BIN} AS time, count(*) AS value FROM requests WHERE ${WINDOW}`, expect: /does not parse: syntax error at or near "SELEC"/ },
  { label: 'an ambiguous column in a join', kind: GAUGE, sql: `SELECT ${BIN} AS time, count(*) AS value FROM requests JOIN ops.queue q ON true WHERE ${WINDOW} GROUP BY 1`, expect: /cannot be planned: .*ambiguous/i },
  { label: 'a function over the wrong type', kind: GAUGE, sql: `SELECT ${BIN} AS time, sum(service) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: /cannot be planned: .*sum\(VARCHAR\)/ },
  { label: 'a file read through the planner', kind: GAUGE, sql: `SELECT ${BIN} AS time, 1 AS value FROM requests, read_csv('/etc/passwd') WHERE ${WINDOW}`, expect: /cannot be planned/ },
  { label: 'a placeholder only inside a string', kind: GAUGE, sql: `SELECT ${BIN} AS time, count(*) AS value FROM requests WHERE ts >= @start_time AND '@end_time' <> '' GROUP BY 1`, expect: /must reference @end_time/ },
  { label: 'an unknown placeholder', kind: GAUGE, sql: `SELECT ${BIN} AS time, count(*) AS value FROM requests WHERE ${WINDOW} AND service = @service GROUP BY 1`, expect: /unknown placeholder @service/ },
  // PostgreSQL, beyond DuckDB's dialect
  { label: 'cardinality() of an array (PostgreSQL only)', kind: GAUGE, sql: `SELECT ${BIN} AS time, sum(cardinality(tags)) AS value FROM requests WHERE ${WINDOW} GROUP BY 1`, expect: /cannot be planned: .*Cardinality/, postgres: true, gap: true },
  // MySQL / MariaDB (declared schema)
  { label: 'MySQL: backquoted names, FROM_UNIXTIME buckets, SUM over a comparison', dialect: 'mysql', kind: RATIO, sql: "SELECT FROM_UNIXTIME(FLOOR(UNIX_TIMESTAMP(`ts`) / 60) * 60) AS `time`, SUM(`ok` = 1) AS good_events, COUNT(*) AS total_events FROM `requests` WHERE ts >= @start_time AND ts < @end_time AND ts + @resolution > ts GROUP BY 1", expect: 'ok' },
  { label: 'MySQL: a double-quoted string and a backslash escape', dialect: 'mysql', kind: GAUGE, sql: "SELECT ts AS time, COUNT(*) AS value FROM requests WHERE status = \"ok\" AND note <> 'it\\'s' AND ts >= @start_time AND ts < @end_time AND ts + @resolution > ts GROUP BY ts", expect: 'ok' },
  { label: 'MySQL: a column the declared schema lacks', dialect: 'mysql', kind: GAUGE, sql: 'SELECT ts AS time, MAX(latency) AS value FROM requests WHERE ts >= @start_time AND ts < @end_time AND ts + @resolution > ts GROUP BY ts', expect: /reads column 'latency', which no table it reads has in the declared schema/, postgres: false },
  // BigQuery (declared schema)
  { label: 'BigQuery: TIMESTAMP_TRUNC(ts, MINUTE) and COUNTIF', dialect: 'bigquery', kind: RATIO, sql: 'SELECT TIMESTAMP_TRUNC(ts, MINUTE) AS time, COUNTIF(ok) AS good_events, COUNT(*) AS total_events FROM `telemetry.requests` WHERE ts >= @start_time AND ts < @end_time AND @resolution IS NOT NULL GROUP BY time', expect: 'ok' },
  { label: 'BigQuery: TIMESTAMP_BUCKET with @resolution', dialect: 'bigquery', kind: RATIO, sql: 'SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, COUNTIF(ok) AS good_events, COUNT(*) AS total_events FROM telemetry.requests WHERE ts >= @start_time AND ts < @end_time GROUP BY time', expect: 'ok' },
  { label: 'BigQuery: SAFE_DIVIDE and CAST AS FLOAT64', dialect: 'bigquery', kind: GAUGE, sql: 'SELECT TIMESTAMP_TRUNC(ts, HOUR) AS time, SAFE_DIVIDE(CAST(COUNTIF(ok) AS FLOAT64), COUNT(*)) AS value FROM `telemetry.requests` WHERE ts >= @start_time AND ts < @end_time AND @resolution IS NOT NULL GROUP BY 1', expect: 'ok' },
  { label: 'BigQuery: DATE_TRUNC(date, MONTH) gives a DATE time', dialect: 'bigquery', kind: GAUGE, sql: 'SELECT DATE_TRUNC(DATE(ts), MONTH) AS time, AVG(latency_ms) AS value FROM `telemetry.requests` WHERE ts >= @start_time AND ts < @end_time AND @resolution IS NOT NULL GROUP BY 1', expect: 'ok' },
  { label: "BigQuery: a STRING as time", dialect: 'bigquery', kind: GAUGE, sql: 'SELECT service AS time, COUNT(*) AS value FROM `telemetry.requests` WHERE ts >= @start_time AND ts < @end_time AND @resolution IS NOT NULL GROUP BY 1', expect: /column 'time' is VARCHAR/ },
];

const DECLARED: Record<Exclude<SqlDialect, 'postgresql'>, PlannedConnection> = {
  mysql: declared('mysql', { requests: { ts: 'datetime(3)', ok: 'tinyint(1)', status: "enum('ok','failed')", note: 'varchar(255)', latency_ms: 'double' } }),
  bigquery: declared('bigquery', { 'telemetry.requests': { ts: 'TIMESTAMP', ok: 'BOOL', latency_ms: 'FLOAT64', service: 'STRING' } }),
};

function declared(dialect: string, schema: Record<string, Record<string, string>>): PlannedConnection {
  return {
    name: `connections/${dialect}`,
    type: 'CONNECTION_TYPE_SQLDB',
    details: { sqldb: { host: `${dialect}.invalid`, dialect, schema } },
    open: () => Promise.reject(new Error('a declared schema is read without opening the connection')),
  };
}

/** CreateIndicator's validation short of HTTP: the placeholders, the plan, the kind's contract. */
async function validate(planner: IndicatorPlanner, c: Case, connection: PlannedConnection): Promise<'ok' | string> {
  const dialect = c.dialect ?? 'postgresql';
  try {
    checkPlaceholders(c.sql, dialect);
    const plan = await planner.plan({ org: 'acme', engineSql: c.sql, dialect, connections: [connection] });
    checkPlannedColumns(c.kind, plan.columns);
    return 'ok';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return `${error.code}: ${error.message}`;
  }
}

/** The MySQL rows' declared table, as MariaDB creates it. */
const MARIADB_DDL = ["CREATE TABLE requests (ts datetime(3), ok tinyint(1), status enum('ok','failed'), note varchar(255), latency_ms double)"];

describe('indicator query corpus: planned against the live schema', () => {
  let db: TestDatabase | undefined;
  let maria: TestMariaDatabase | undefined;
  let planner: IndicatorPlanner;
  let pools: SqlPools;
  let warehouse: PlannedConnection;

  beforeAll(async () => {
    pools = new SqlPools();
    planner = new IndicatorPlanner(new SqlSchemaReader(pools));
    if (await mariadbAvailable('the MySQL rows of the indicator query corpus')) maria = await createMariaDatabase('corpus', MARIADB_DDL);
    if (!(await postgresAvailable('the indicator query corpus'))) return;
    db = await createTestDatabase('corpus', DDL);
    const details = { host: PG.host, port: PG.port, database: db.name, username: PG.user, password: PG.password };
    warehouse = { name: 'connections/warehouse', type: 'CONNECTION_TYPE_SQLDB', details: { sqldb: { host: PG.host, port: PG.port } }, open: async () => ({ name: 'connections/warehouse', type: 'CONNECTION_TYPE_SQLDB', details }) };
  }, 30_000);
  afterAll(async () => {
    await planner.engine.close();
    await pools.close();
    await db?.drop();
    await maria?.drop();
  });

  it('holds at least 30 queries', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CORPUS.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    const dialect = c.dialect ?? 'postgresql';
    if (dialect === 'postgresql' && !db) return;
    const outcome = await validate(planner, c, dialect === 'postgresql' ? warehouse : DECLARED[dialect]);
    if (c.expect === 'ok') expect(outcome).toBe('ok');
    else expect(outcome).toMatch(c.expect);
    // The database's own verdict on the compiled SQL, with the literals CompileIndicatorQuery emits.
    const explain = dialect === 'postgresql' && db ? (sql: string) => db!.client.query(`EXPLAIN ${sql}`) : dialect === 'mysql' && maria ? (sql: string) => maria!.connection.query(`EXPLAIN ${sql}`) : undefined;
    if (!explain) return;
    const runs = c.postgres ?? c.expect === 'ok';
    if (c.postgres === undefined && c.expect !== 'ok' && /must reference|unknown placeholder|exactly one SELECT/.test(outcome)) return;
    const compiled = compileIndicatorSql(c.sql, { startTime: '2024-01-01T00:00:00.000Z', endTime: '2024-01-02T00:00:00.000Z', resolutionSeconds: 60 }, dialect);
    const verdict = await explain(compiled).then(
      () => 'runs',
      (error: Error) => `refused: ${error.message}`,
    );
    expect([c.label, verdict.startsWith('runs')]).toEqual([c.label, runs]);
  });
});
