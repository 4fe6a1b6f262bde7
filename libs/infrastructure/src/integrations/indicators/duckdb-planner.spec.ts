import { DEFAULT_PLANNER_LIMITS, DuckDbPlanner, PlanError, toPlannerDialect } from './duckdb-planner';
import { duckdbType } from './planner-types';

const requests = { name: 'public.requests', columns: [{ name: 'ts', type: 'TIMESTAMPTZ' }, { name: 'v', type: 'DOUBLE' }] };
const GAUGE = 'SELECT ts AS time, v AS value FROM requests WHERE ts >= @start_time AND ts < @end_time AND @resolution IS NOT NULL';

async function planError(promise: Promise<unknown>): Promise<PlanError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlanError);
  return error as PlanError;
}

describe('the DuckDB planner', () => {
  const planner = new DuckDbPlanner({ ...DEFAULT_PLANNER_LIMITS, maxTables: 2, maxColumns: 4, maxQueue: 3, timeoutMs: 300 });
  afterAll(() => planner.close());

  it('plans over empty tables without running anything, one engine for every plan, each plan in its own catalog', async () => {
    const plans = await Promise.all([1, 2, 3].map(() => planner.plan(GAUGE, 'postgresql', [requests])));
    for (const columns of plans) expect(columns).toEqual([{ name: 'time', type: 'TIMESTAMP WITH TIME ZONE' }, { name: 'value', type: 'DOUBLE' }]);
    // The tables of one plan are gone for the next.
    expect((await planError(planner.plan(GAUGE, 'postgresql', []))).kind).toBe('table');
  });

  it('checks its limits before planning: tables, columns, the queue', async () => {
    const t = (n: number) => ({ name: `t${n}`, columns: [{ name: 'a', type: 'INTEGER' }] });
    expect((await planError(planner.plan(GAUGE, 'postgresql', [t(1), t(2), t(3)]))).message).toMatch(/more than 2 tables/);
    expect((await planError(planner.plan(GAUGE, 'postgresql', [{ name: 'w', columns: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, type: 'INTEGER' })) }]))).message).toMatch(/more than 4 columns/);
    const burst = await Promise.allSettled([1, 2, 3, 4, 5].map(() => planner.plan(GAUGE, 'postgresql', [requests])));
    const busy = burst.filter((r) => r.status === 'rejected' && (r.reason as PlanError).kind === 'busy');
    expect(busy.length).toBe(2);
  });

  it('cuts a plan past its time cap, and the engine plans the next one', async () => {
    const limits = { ...DEFAULT_PLANNER_LIMITS, timeoutMs: 1 };
    const capped = new DuckDbPlanner(limits);
    const joins = Array.from({ length: 24 }, (_, i) => (i === 0 ? 'requests r0' : `JOIN requests r${i} ON r${i}.ts = r${i - 1}.ts`)).join(' ');
    const slow = `SELECT r0.ts AS time, r23.v AS value FROM ${joins} WHERE r0.ts >= @start_time AND r0.ts < @end_time AND @resolution IS NOT NULL`;
    try {
      const error = await planError(capped.plan(slow, 'postgresql', [requests]));
      expect([error.kind, error.message]).toEqual(['timeout', 'planning took longer than 1 ms']);
      limits.timeoutMs = 5_000;
      expect(await capped.plan(slow, 'postgresql', [requests])).toEqual([{ name: 'time', type: 'TIMESTAMP WITH TIME ZONE' }, { name: 'value', type: 'DOUBLE' }]);
    } finally {
      await capped.close();
    }
  });

  it('a stop refuses the plans that have not started (it waits for one plan at most); a later plan starts a new engine', async () => {
    const own = new DuckDbPlanner();
    await own.plan(GAUGE, 'postgresql', [requests]);
    const pending = [1, 2, 3].map(() =>
      own.plan(GAUGE, 'postgresql', [requests]).then(
        () => 'planned',
        (e: PlanError) => e.message,
      ),
    );
    await own.close();
    for (const outcome of await Promise.all(pending)) expect(['planned', 'the planner is stopping']).toContain(outcome);
    expect(await own.plan(GAUGE, 'postgresql', [requests])).toHaveLength(2);
    await own.close();
  });

  it('reaches no file: a table function over the file system is refused', async () => {
    const error = await planError(planner.plan("SELECT now() AS time, 1 AS value FROM read_text('/etc/hostname') WHERE @start_time < @end_time AND @resolution IS NOT NULL", 'postgresql', []));
    expect(error.message).toMatch(/Permission Error|disabled/);
  });

  it("bridges MySQL and BigQuery spellings to DuckDB's for planning only", () => {
    expect(toPlannerDialect("SELECT `a`.`b`, \"x\", 'it\\'s' FROM `db.t`", 'mysql')).toBe(`SELECT "a"."b", 'x', 'it''s' FROM "db"."t"`);
    expect(toPlannerDialect('SELECT TIMESTAMP_TRUNC(ts, MINUTE), DATE_TRUNC(d, month), INTERVAL 1 MINUTE', 'bigquery')).toBe("SELECT svc_trunc(ts, 'minute'), svc_trunc(d, 'month'), INTERVAL 1 MINUTE");
    expect(toPlannerDialect("SELECT date_trunc('minute', ts)", 'postgresql')).toBe("SELECT date_trunc('minute', ts)");
  });

  it("maps the databases' type names, unknown ones to VARCHAR (and says so)", () => {
    const t = (name: string, dialect: 'postgresql' | 'mysql' | 'bigquery' = 'postgresql') => duckdbType(name, dialect);
    expect(t('timestamp with time zone')).toEqual({ type: 'TIMESTAMPTZ', known: true });
    expect(t('timestamp')).toEqual({ type: 'TIMESTAMP', known: true });
    expect(t('TIMESTAMP', 'bigquery')).toEqual({ type: 'TIMESTAMPTZ', known: true });
    expect(t('numeric(12,2)')).toEqual({ type: 'DECIMAL(12,2)', known: true });
    expect(t('numeric')).toEqual({ type: 'DOUBLE', known: true });
    expect(t('character varying(255)')).toEqual({ type: 'VARCHAR', known: true });
    expect(t('_int4')).toEqual({ type: 'INTEGER[]', known: true });
    expect(t('int unsigned', 'mysql')).toEqual({ type: 'UINTEGER', known: true });
    expect(t('tinyint(1)', 'mysql')).toEqual({ type: 'TINYINT', known: true });
    expect(t("enum('a','b')", 'mysql')).toEqual({ type: 'VARCHAR', known: true });
    expect(t('datetime(3)', 'mysql')).toEqual({ type: 'TIMESTAMP', known: true });
    expect(t('ARRAY<INT64>', 'bigquery')).toEqual({ type: 'BIGINT[]', known: true });
    expect(t('tsvector')).toEqual({ type: 'VARCHAR', known: false });
    expect(t('mood')).toEqual({ type: 'VARCHAR', known: false });
  });
});
