/**
 * Indicators planned against the live schema (issue 20): a SQL connection configured with no schema
 * at all, pointing at a PostgreSQL database this test creates. CreateIndicator reads the database's
 * catalog, plans the query and checks the kind's columns; a database that cannot be reached answers
 * UNAVAILABLE naming the connection. The api reads schemas with the SQL tools' own reader.
 * Skipped with a message without PostgreSQL, unless SVC_REQUIRE_SERVERS=1.
 */
import { freePort, Stack, TEST_CONFIG } from './support/harness';
import { createTestDatabase, PG, postgresAvailable, type TestDatabase } from './support/postgres';

const S = 'svc.goals.v1.IndicatorsService';

interface ErrorBody {
  error: { code: number; status: string; message: string };
}
interface Indicator {
  name: string;
  query: { engineSql: string; status?: { validateTime?: string } };
}

const DDL = `
  CREATE TABLE requests (ts timestamptz NOT NULL, ok boolean NOT NULL, latency_ms double precision, service text);
  INSERT INTO requests VALUES ('2024-01-01T00:01:00Z', true, 12.5, 'checkout'), ('2024-01-01T00:02:00Z', false, 80, 'checkout'), ('2024-01-01T00:07:00Z', true, 9, 'search');
`;
const WINDOW = 'ts >= @start_time AND ts < @end_time';
const RATIO_PG = `SELECT date_bin(@resolution, ts, @start_time) AS time, count(*) FILTER (WHERE ok) AS good_events, count(*) AS total_events FROM requests WHERE ${WINDOW} GROUP BY 1 ORDER BY 1`;

function config(database: string, downPort: number): string {
  return TEST_CONFIG.replace(
    '      - id: pagerduty\n',
    `      - id: live
        display_name: Live
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {host: "${PG.host}", port: ${PG.port}, database: ${database}, username: ${PG.user}, password: "${PG.password ?? 'trust'}", ssl_mode: disable}}
      - id: down
        display_name: Down
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {host: "127.0.0.1", port: ${downPort}, database: nothing, username: svc, password: "down-secret", ssl_mode: disable}}
      - id: pagerduty
`,
  );
}

describe('indicators planned against the live schema of a real PostgreSQL', () => {
  let db: TestDatabase | undefined;
  let stack: Stack | undefined;
  const indicator = (engineSql: string, kind = 'INDICATOR_KIND_RATIO', connection = 'connections/live') => ({
    display_name: 'Checkout availability',
    kind,
    query: { connections: [connection], engine_sql: engineSql },
  });
  const create = (id: string, body: Record<string, unknown>) =>
    stack!.rpc<{ indicator: Indicator } & ErrorBody>(`${S}/CreateIndicator`, { indicator_id: id, indicator: body, initial_resource: 'agents/watch' });
  const get = (name: string) => stack!.rpc<{ indicator: Indicator } & ErrorBody>(`${S}/GetIndicator`, { name });

  beforeAll(async () => {
    if (!(await postgresAvailable('the live-schema indicator tests'))) return;
    db = await createTestDatabase('indicators', DDL);
    // A port nothing listens on: the database that cannot be reached.
    const downPort = await freePort();
    // One process (projector in-process): a quicker start on a busy machine.
    stack = await Stack.start({ config: config(db.name, downPort), layout: 'inprocess' });
    expect((await stack.rpc('svc.nxagent.v2.AgentService/CreateAgent', { agent_id: 'watch', agent: { display_name: 'watch' } })).status).toBe(200);
  }, 90_000);
  afterAll(async () => {
    await stack?.destroy();
    await db?.drop();
  });

  it('CreateIndicator accepts PostgreSQL SQL (date_bin, FILTER) on a connection that declares no schema', async () => {
    if (!stack) return;
    const res = await create('availability', indicator(RATIO_PG));
    expect(res.status).toBe(200);
    expect(res.body.indicator.name).toBe('indicators/availability');
    expect(res.body.indicator.query.status?.validateTime).toBeDefined();
  });

  it.each([
    ['a missing column', RATIO_PG.replace('FILTER (WHERE ok)', 'FILTER (WHERE success)'), "reads column 'success', which no table it reads has in the database of connection 'connections/live'"],
    ['a missing table', RATIO_PG.replace('FROM requests', 'FROM payments'), "reads table 'payments', which is not in the database of connection 'connections/live'"],
    ['a mistyped column (text as a count)', RATIO_PG.replace('count(*) AS total_events', 'max(service) AS total_events'), "column 'total_events' is VARCHAR: INDICATOR_KIND_RATIO needs a number there"],
    ["text as time (SELECT 'x' AS time ...)", `SELECT 'x' AS time, 'y' AS good_events, 'z' AS total_events FROM requests WHERE ${WINDOW} AND @resolution IS NOT NULL`, "column 'time' is VARCHAR: INDICATOR_KIND_RATIO needs a timestamp or a date there"],
  ])('CreateIndicator refuses %s with INVALID_ARGUMENT naming it, and appends nothing', async (_label, sql, message) => {
    if (!stack) return;
    const res = await create('refused', indicator(sql));
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toContain(message);
    expect((await get('indicators/refused')).status).toBe(404);
  });

  it('CreateIndicator answers UNAVAILABLE naming the connection whose database cannot be reached, never accepting the query unplanned', async () => {
    if (!stack) return;
    const res = await create('unreachable', indicator(RATIO_PG, 'INDICATOR_KIND_RATIO', 'connections/down'));
    expect(res.status).toBe(503);
    expect(res.body.error.status).toBe('UNAVAILABLE');
    expect(res.body.error.message).toMatch(/connections\/down/);
    expect(res.body.error.message).not.toMatch(/down-secret/);
    expect((await get('indicators/unreachable')).status).toBe(404);
  });

  it('UpdateIndicator plans a changed query again: a missing column is refused, a valid one replaces the SQL', async () => {
    if (!stack) return;
    const update = (sql: string) =>
      stack!.rpc<{ indicator: Indicator } & ErrorBody>(`${S}/UpdateIndicator`, { indicator: { name: 'indicators/availability', query: { engine_sql: sql } }, update_mask: 'query.engine_sql' });
    const bad = await update(RATIO_PG.replace('count(*) AS total_events', 'count(latency) AS total_events'));
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("reads column 'latency'");
    const narrower = RATIO_PG.replace('count(*) AS total_events', 'count(ts) AS total_events');
    const ok = await update(narrower);
    expect(ok.status).toBe(200);
    expect(ok.body.indicator.query.engineSql).toBe(narrower);
    // The kind is checked against the planned columns too.
    const gauge = await stack.rpc<ErrorBody>(`${S}/UpdateIndicator`, { indicator: { name: 'indicators/availability', kind: 'INDICATOR_KIND_GAUGE' }, update_mask: 'kind' });
    expect(gauge.status).toBe(400);
    expect(gauge.body.error.message).toMatch(/lacks column value .*INDICATOR_KIND_GAUGE needs exactly time, value/);
  });

  it('CompileIndicatorQuery emits PostgreSQL literals that PostgreSQL runs, and the rows are the real ones', async () => {
    if (!stack || !db) return;
    const res = await stack.request<{ queryRequest: { sql: string } }>('POST', '/v1/indicators/availability:compileQuery', {
      body: { start_time: '2024-01-01T00:00:00Z', end_time: '2024-01-01T00:10:00Z', resolution: '300s' },
    });
    expect(res.status).toBe(200);
    const sql = res.body.queryRequest.sql;
    expect(sql).toContain("TIMESTAMPTZ '2024-01-01T00:00:00.000Z'");
    expect(sql).toContain("INTERVAL '300 seconds'");
    expect(sql).not.toMatch(/INTERVAL \d+ SECOND/);
    const { rows } = await db.client.query<{ time: Date; good_events: string; total_events: string }>(sql);
    expect(rows.map((r) => [r.time.toISOString(), Number(r.good_events), Number(r.total_events)])).toEqual([
      ['2024-01-01T00:00:00.000Z', 1, 2],
      ['2024-01-01T00:05:00.000Z', 1, 1],
    ]);
  });
});
