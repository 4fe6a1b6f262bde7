import { DomainError } from '../shared/domain-error';
import { invalidMessage } from '../shared/testing';
import { checkIndicatorSql, compileIndicatorSql } from './indicator-query';

const schema = new Map([
  ['requests', ['ts', 'ok', 'service']],
  ['ops.queue', ['ts', 'depth']],
]);
const RATIO = 'INDICATOR_KIND_RATIO';
const GAUGE = 'INDICATOR_KIND_GAUGE';
const WINDOW = 'WHERE ts >= @start_time AND ts < @end_time';

describe('indicator SQL', () => {
  it('accepts the kind\'s columns from a declared table, a CTE, a subquery or a star over a matching table', () => {
    expect(() => checkIndicatorSql(`SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, COUNTIF(ok) AS good_events, COUNT(*) AS total_events FROM requests ${WINDOW} GROUP BY time`, RATIO, schema)).not.toThrow();
    expect(() => checkIndicatorSql(`WITH q AS (SELECT ts, depth FROM ops.queue) SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, MAX(depth) AS value FROM q ${WINDOW} GROUP BY time`, GAUGE, schema)).not.toThrow();
    expect(() => checkIndicatorSql(`SELECT t AS time, d AS value FROM (SELECT TIMESTAMP_BUCKET(ts, @resolution) AS t, depth AS d, ts FROM ops.queue) s ${WINDOW}`, GAUGE, schema)).not.toThrow();
    expect(() =>
      checkIndicatorSql(`WITH q AS (SELECT ts, depth FROM ops.queue) SELECT ts AS time, depth AS value FROM q ${WINDOW} AND @resolution IS NOT NULL UNION ALL SELECT ts AS time, depth AS value FROM q`, GAUGE, schema),
    ).not.toThrow();
    const star = new Map([['points', ['time', 'value']]]);
    expect(() => checkIndicatorSql('SELECT * FROM points WHERE time >= @start_time AND time < @end_time AND @resolution IS NOT NULL', GAUGE, star)).not.toThrow();
  });

  it('names each missing placeholder and refuses unknown ones', () => {
    expect(invalidMessage(() => checkIndicatorSql('SELECT ts AS time, depth AS value FROM ops.queue', GAUGE, schema))).toMatch(/must reference @start_time, @end_time, @resolution/);
    expect(invalidMessage(() => checkIndicatorSql(`SELECT ts AS time, depth AS value FROM ops.queue ${WINDOW} AND @resolution = @other`, GAUGE, schema))).toMatch(/unknown placeholder @other/);
  });

  it('names missing and unexpected output columns, unnamed columns, unknown tables and columns', () => {
    const gauge = (select: string, from = 'ops.queue') => `SELECT ${select} FROM ${from} ${WINDOW} AND @resolution IS NOT NULL`;
    expect(invalidMessage(() => checkIndicatorSql(gauge('ts AS time'), GAUGE, schema))).toMatch(/lacks column value/);
    expect(invalidMessage(() => checkIndicatorSql(gauge('ts AS time, depth AS value, 1 AS extra'), GAUGE, schema))).toMatch(/unexpected column extra/);
    expect(invalidMessage(() => checkIndicatorSql(gauge('ts AS time, MAX(depth)'), GAUGE, schema))).toMatch(/output column 2 .* no name/);
    expect(invalidMessage(() => checkIndicatorSql(gauge('ts AS time, depth AS value', 'queue'), GAUGE, schema))).toMatch(/table 'queue'/);
    expect(invalidMessage(() => checkIndicatorSql(gauge('ts AS time, width AS value'), GAUGE, schema))).toMatch(/column 'width'/);
    expect(invalidMessage(() => checkIndicatorSql('DELETE FROM requests', GAUGE, schema))).toMatch(/SELECT/);
  });

  it('a deeply nested expression is judged without overflowing the stack', () => {
    const deep = `${'('.repeat(200)}depth${')'.repeat(200)}`;
    let outcome: unknown;
    try {
      checkIndicatorSql(`SELECT ts AS time, ${deep} AS value FROM ops.queue ${WINDOW} AND @resolution IS NOT NULL`, GAUGE, schema);
    } catch (error) {
      outcome = error;
    }
    expect(outcome === undefined || outcome instanceof DomainError).toBe(true);
  });

  it('compiles to typed literals in place of the placeholders', () => {
    const sql = compileIndicatorSql(`SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, MAX(depth) AS value FROM ops.queue ${WINDOW}`, {
      startTime: '2024-01-01T00:00:00.000Z',
      endTime: '2024-01-02T00:00:00.000Z',
      resolutionSeconds: 1.5,
    });
    expect(sql).toContain("ts >= TIMESTAMP '2024-01-01T00:00:00.000Z'");
    expect(sql).toContain("ts < TIMESTAMP '2024-01-02T00:00:00.000Z'");
    expect(sql).toContain('INTERVAL 1500 MILLISECOND');
    expect(sql).not.toContain('@');
  });
});
