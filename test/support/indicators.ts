/** What the indicator tests (v1 and v2) share: the answer shapes and SQL valid against the telemetry connection's schema. */
export type { IndicatorRelation as Relation } from '@svc/domain/indicators/indicator.decider';

export interface Indicator {
  name: string;
  displayName: string;
  kind: string;
  unit?: string;
  description?: string;
  query: { connections: string[]; engineSql: string; description?: string; status?: { validateTime?: string; error?: string } };
  etag: string;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}

/** Valid against TEST_CONFIG_WITH_TELEMETRY's `connections/telemetry` (BigQuery's dialect, a declared schema). */
export const RATIO_SQL =
  'SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, COUNTIF(ok) AS good_events, COUNT(*) AS total_events FROM requests WHERE ts >= @start_time AND ts < @end_time GROUP BY time';
export const GAUGE_SQL = 'SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, MAX(depth) AS value FROM ops.queue WHERE ts >= @start_time AND ts < @end_time GROUP BY time';
