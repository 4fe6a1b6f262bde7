import { invalidMessage } from '../shared/testing';
import { checkOutputNames, checkPlannedColumns } from './indicator-contract';
import { checkPlaceholders, compileIndicatorSql, declaredOutputNames, sqlDialectOf, substitutePlaceholders } from './indicator-sql';

const WINDOW = { startTime: '2024-01-01T00:00:00.000Z', endTime: '2024-01-02T00:00:00.000Z', resolutionSeconds: 60 };
const SQL = "SELECT date_bin(@resolution, ts, @start_time) AS time, count(*) AS value FROM requests WHERE ts >= @start_time AND ts < @end_time AND note <> '@end_time' GROUP BY 1";

describe('indicator SQL text', () => {
  it('finds placeholders outside strings, quoted names and comments, per dialect', () => {
    expect(() => checkPlaceholders(SQL, 'postgresql')).not.toThrow();
    expect(invalidMessage(() => checkPlaceholders("SELECT 1 WHERE ts >= @start_time AND '@end_time' = '' -- @resolution", 'postgresql'))).toMatch(/must reference @end_time, @resolution$/);
    expect(invalidMessage(() => checkPlaceholders('SELECT "@end_time" /* @resolution */ FROM t WHERE ts >= @start_time', 'postgresql'))).toMatch(/@end_time, @resolution/);
    // MySQL: `#` comments, backslash escapes, double-quoted strings.
    expect(invalidMessage(() => checkPlaceholders("SELECT 'it\\'s @end_time' AS x, \"@resolution\" FROM t # @resolution\nWHERE ts >= @start_time", 'mysql'))).toMatch(/@end_time, @resolution/);
    // PostgreSQL's dollar quoting.
    expect(invalidMessage(() => checkPlaceholders('SELECT $$ @end_time $$, $q$@resolution$q$ WHERE ts >= @start_time', 'postgresql'))).toMatch(/@end_time, @resolution/);
    expect(invalidMessage(() => checkPlaceholders(`${SQL} AND x = @Other`, 'postgresql'))).toMatch(/unknown placeholder @other; only @start_time, @end_time and @resolution exist/);
  });

  it('compiles to literals the database accepts: PostgreSQL TIMESTAMPTZ and quoted intervals, MySQL datetimes, BigQuery timestamps', () => {
    const pg = compileIndicatorSql(SQL, WINDOW, 'postgresql');
    expect(pg).toBe(
      "SELECT date_bin(INTERVAL '60 seconds', ts, TIMESTAMPTZ '2024-01-01T00:00:00.000Z') AS time, count(*) AS value FROM requests WHERE ts >= TIMESTAMPTZ '2024-01-01T00:00:00.000Z' AND ts < TIMESTAMPTZ '2024-01-02T00:00:00.000Z' AND note <> '@end_time' GROUP BY 1",
    );
    expect(pg).not.toMatch(/INTERVAL \d+ SECOND/);
    expect(compileIndicatorSql('SELECT @resolution', { ...WINDOW, resolutionSeconds: 1.5 }, 'postgresql')).toBe("SELECT INTERVAL '1500 milliseconds'");
    expect(compileIndicatorSql('SELECT @start_time, @resolution', WINDOW, 'mysql')).toBe("SELECT TIMESTAMP '2024-01-01 00:00:00.000', INTERVAL 60 SECOND");
    expect(compileIndicatorSql('SELECT @resolution', { ...WINDOW, resolutionSeconds: 0.25 }, 'mysql')).toBe('SELECT INTERVAL 250000 MICROSECOND');
    expect(compileIndicatorSql('SELECT @start_time, @resolution', { ...WINDOW, resolutionSeconds: 300 }, 'bigquery')).toBe("SELECT TIMESTAMP '2024-01-01T00:00:00.000Z', INTERVAL 300 SECOND");
    expect(compileIndicatorSql('SELECT @resolution', { ...WINDOW, resolutionSeconds: 1.5 }, 'bigquery')).toBe('SELECT INTERVAL 1500 MILLISECOND');
    // Everything else as written, comments and odd spacing included.
    expect(substitutePlaceholders('SELECT  @a /* @start_time */ ,@start_time', 'postgresql', { start_time: 'X' })).toBe('SELECT  @a /* @start_time */ ,X');
  });

  it('tells the dialect from the connection: declared, else MySQL on port 3306, else PostgreSQL; an unknown one is refused', () => {
    expect(sqlDialectOf({ sqldb: { host: 'h', port: 5432 } })).toBe('postgresql');
    expect(sqlDialectOf({ sqldb: { host: 'h', port: 3306 } })).toBe('mysql');
    expect(sqlDialectOf({ sqldb: { dialect: 'MariaDB' } })).toBe('mysql');
    expect(sqlDialectOf({ sqldb: { dialect: 'bigquery', port: 5432 } })).toBe('bigquery');
    expect(sqlDialectOf(undefined)).toBe('postgresql');
    expect(invalidMessage(() => sqlDialectOf({ sqldb: { dialect: 'oracle' } }))).toMatch(/dialect 'oracle' is not one of postgresql, mysql, bigquery/);
  });

  it('reads the output names a SELECT states for sure, and nothing when it does not', () => {
    expect(declaredOutputNames('WITH q AS (SELECT a, b FROM t) SELECT DISTINCT x.ts AS time, "Value" AS "value", q.v FROM q, (SELECT 1 AS z) s', 'postgresql')).toEqual(['time', 'value', 'v']);
    expect(declaredOutputNames('SELECT ts AS Time, CASE WHEN a THEN 1 END AS Value FROM t UNION ALL SELECT 1, 2', 'postgresql')).toEqual(['time', 'value']);
    expect(declaredOutputNames('SELECT ts AS Time FROM t', 'bigquery')).toEqual(['Time']);
    expect(declaredOutputNames('SELECT * FROM t', 'postgresql')).toBeUndefined();
    expect(declaredOutputNames('SELECT ts AS time, max(v) FROM t', 'postgresql')).toBeUndefined();
    expect(declaredOutputNames('SELECT ts time, v value FROM t', 'postgresql')).toBeUndefined();
    expect(declaredOutputNames('DELETE FROM t', 'postgresql')).toBeUndefined();
  });
});

describe("an indicator kind's output contract", () => {
  const ts = { name: 'time', type: 'TIMESTAMP WITH TIME ZONE' };
  it('accepts timestamps and dates for time, every numeric type for values', () => {
    for (const time of ['TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'DATE', 'TIMESTAMP_MS']) {
      for (const value of ['BIGINT', 'HUGEINT', 'DOUBLE', 'FLOAT', 'DECIMAL(12,2)', 'UINTEGER', 'SMALLINT']) {
        expect(() => checkPlannedColumns('INDICATOR_KIND_GAUGE', [{ name: 'time', type: time }, { name: 'value', type: value }])).not.toThrow();
      }
    }
  });

  it('names the column and what was expected', () => {
    expect(invalidMessage(() => checkPlannedColumns('INDICATOR_KIND_GAUGE', [{ name: 'time', type: 'VARCHAR' }, { name: 'value', type: 'BIGINT' }]))).toBe(
      "indicator.query.engine_sql column 'time' is VARCHAR: INDICATOR_KIND_GAUGE needs a timestamp or a date there",
    );
    expect(invalidMessage(() => checkPlannedColumns('INDICATOR_KIND_RATIO', [ts, { name: 'good_events', type: 'BOOLEAN' }, { name: 'total_events', type: 'BIGINT' }]))).toMatch(
      /column 'good_events' is BOOLEAN: INDICATOR_KIND_RATIO needs a number there/,
    );
    expect(invalidMessage(() => checkPlannedColumns('INDICATOR_KIND_GAUGE', [ts, { name: 'value', type: 'TIME' }]))).toMatch(/'value' is TIME/);
    expect(invalidMessage(() => checkPlannedColumns('INDICATOR_KIND_GAUGE', [ts, { name: 'value', type: 'INTERVAL' }]))).toMatch(/'value' is INTERVAL/);
    expect(invalidMessage(() => checkPlannedColumns('INDICATOR_KIND_GAUGE', [ts]))).toMatch(/lacks column value: INDICATOR_KIND_GAUGE needs exactly time, value \(planned output: time\)/);
    expect(invalidMessage(() => checkOutputNames('INDICATOR_KIND_GAUGE', ['time', 'value', 'value']))).toMatch(/has column value twice/);
  });
});
