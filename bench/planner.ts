/**
 * The indicator planner's cost (issue 20: "the planner's cost is a bench figure"): CreateIndicator's
 * validation short of HTTP and the event store — the placeholders, the schema from the cache, the
 * tables the query names created empty in DuckDB, the query prepared, the kind's contract — one plan
 * at a time, as the engine serializes them. The schema is a warehouse-sized catalog (BENCH_PLANNER_TABLES
 * tables of 12 columns) answered by an in-process reader, so the figure is the planner's, not a
 * database's round trip (which the TTL cache takes off the path after the first read).
 */
import { checkPlannedColumns } from '@svc/domain/indicators/indicator-contract';
import { checkPlaceholders } from '@svc/domain/indicators/indicator-sql';
import { IndicatorPlanner, type PlannedConnection } from '@svc/infrastructure/integrations/indicators/indicator-planner';
import type { DatabaseSchema } from '@svc/infrastructure/integrations/tools/tool-adapter.port';
import { Samples, summarize, type Summary } from './stats';

export interface PlannerResult {
  plans: number;
  seconds: number;
  rate: number;
  latency: Summary;
  tables: number;
  failures: number;
}

const QUERIES: Array<{ kind: string; sql: string }> = [
  {
    kind: 'INDICATOR_KIND_RATIO',
    sql: 'SELECT date_bin(@resolution, ts, @start_time) AS time, count(*) FILTER (WHERE ok) AS good_events, count(*) AS total_events FROM requests WHERE ts >= @start_time AND ts < @end_time GROUP BY 1',
  },
  {
    kind: 'INDICATOR_KIND_GAUGE',
    sql: 'WITH b AS (SELECT date_bin(@resolution, ts, @start_time) AS time, avg(latency_ms) AS v FROM requests WHERE ts >= @start_time AND ts < @end_time GROUP BY 1) SELECT time, avg(v) OVER (ORDER BY time ROWS 4 PRECEDING) AS value FROM b',
  },
  {
    kind: 'INDICATOR_KIND_GAUGE',
    sql: 'SELECT date_bin(@resolution, o.created_at, @start_time) AS time, sum(o.amount) AS value FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.created_at >= @start_time AND o.created_at < @end_time AND c.region = \'eu\' GROUP BY 1',
  },
];

function catalog(tables: number): DatabaseSchema {
  const filler = Array.from({ length: tables - 3 }, (_, i) => ({
    name: `public.t${i}`,
    columns: Array.from({ length: 12 }, (__, j) => ({ name: `c${j}`, type: j % 3 === 0 ? 'timestamp with time zone' : j % 3 === 1 ? 'bigint' : 'text' })),
  }));
  return {
    tables: [
      { name: 'public.requests', columns: [{ name: 'ts', type: 'timestamp with time zone' }, { name: 'ok', type: 'boolean' }, { name: 'latency_ms', type: 'double precision' }, { name: 'service', type: 'text' }] },
      { name: 'public.orders', columns: [{ name: 'created_at', type: 'timestamp with time zone' }, { name: 'amount', type: 'numeric(12,2)' }, { name: 'customer_id', type: 'bigint' }] },
      { name: 'public.customers', columns: [{ name: 'id', type: 'bigint' }, { name: 'region', type: 'character varying(16)' }] },
      ...filler,
    ],
  };
}

/** Plans the queries round-robin for `seconds` (after `warmupSeconds`), one at a time. */
export async function measurePlanner(seconds: number, warmupSeconds: number, tables: number): Promise<PlannerResult> {
  const schema = catalog(tables);
  const planner = new IndicatorPlanner({ schemaOf: async () => schema });
  const connection: PlannedConnection = {
    name: 'connections/warehouse',
    type: 'CONNECTION_TYPE_SQLDB',
    details: { sqldb: { host: 'warehouse', port: 5432 } },
    open: async () => ({ name: 'connections/warehouse', type: 'CONNECTION_TYPE_SQLDB', details: { host: 'warehouse', port: 5432, database: 'w' } }),
  };
  const once = async (i: number) => {
    const q = QUERIES[i % QUERIES.length];
    checkPlaceholders(q.sql, 'postgresql');
    const plan = await planner.plan({ org: 'bench', engineSql: q.sql, dialect: 'postgresql', connections: [connection] });
    checkPlannedColumns(q.kind, plan.columns);
  };
  try {
    let i = 0;
    const warmEnd = Date.now() + warmupSeconds * 1000;
    while (Date.now() < warmEnd) await once(i++);
    const samples = new Samples();
    let failures = 0;
    const started = performance.now();
    const end = started + seconds * 1000;
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await once(i++);
      } catch {
        failures++;
      }
      samples.push(performance.now() - t);
    }
    const elapsed = (performance.now() - started) / 1000;
    return { plans: samples.count, seconds: elapsed, rate: samples.count / elapsed, latency: summarize(samples), tables, failures };
  } finally {
    await planner.engine.close();
  }
}
