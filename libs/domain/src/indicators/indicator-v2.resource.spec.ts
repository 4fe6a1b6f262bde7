import type { Resource } from '../shared/resource';
import { indicatorRelationV2Spec, indicatorV2Spec, judgeIndicatorRelationV2 } from './indicator-v2.resource';
import { indicatorSpec, PLAN_FACT } from './indicator.resource';

const SQL = 'SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, COUNTIF(ok) AS good_events, COUNT(*) AS total_events FROM requests WHERE ts >= @start_time AND ts < @end_time GROUP BY time';
const telemetry: Resource = { name: 'connections/telemetry', connectionDetails: { sqldb: { schema: { requests: { ts: 'TIMESTAMP', ok: 'BOOL' } } } } };
const refs = new Map([[telemetry.name, telemetry]]);
const actor = { org: 'acme', actor: 'operator-config', subject: 'operator-config', permissions: [], now: '2024-01-01T00:00:00.000Z' };
const indicator = (extra: Record<string, unknown> = {}): Resource => ({
  name: 'x',
  displayName: 'Availability',
  kind: 'INDICATOR_KIND_RATIO',
  unit: '%',
  query: { connections: [telemetry.name], engineSql: SQL },
  ...extra,
});
/** v1's query arrives planned (apps/api plans before deciding); the configuration's v2 indicators are not planned. */
const RATIO_PLAN = (resource: Resource) => ({
  engineSql: (resource.query as { engineSql: string }).engineSql,
  connections: (resource.query as { connections: string[] }).connections,
  columns: [
    { name: 'time', type: 'TIMESTAMP WITH TIME ZONE' },
    { name: 'good_events', type: 'HUGEINT' },
    { name: 'total_events', type: 'BIGINT' },
  ],
});
const judge = (spec: typeof indicatorSpec, resource: Resource) => () =>
  spec.validate!(resource, { actor, refs, facts: spec === indicatorSpec ? { [PLAN_FACT]: RATIO_PLAN(resource) } : undefined });

describe('indicator rule shared by v1 and v2', () => {
  it('both accept a well-formed indicator', () => {
    expect(judge(indicatorSpec, indicator())).not.toThrow();
    expect(judge(indicatorV2Spec, indicator())).not.toThrow();
  });

  it.each([
    ['display name', { displayName: '' }, /display_name is required/],
    ['kind', { kind: 'INDICATOR_KIND_HISTOGRAM' }, /kind is required: one of/],
    ['placeholders', { query: { connections: [telemetry.name], engineSql: SQL.replace('@resolution', "INTERVAL 1 MINUTE") } }, /must reference @resolution/],
    ['planned columns', { kind: 'INDICATOR_KIND_GAUGE' }, /needs exactly time, value/],
    ['unknown placeholder', { query: { connections: [telemetry.name], engineSql: `${SQL} HAVING @other` } }, /unknown placeholder @other/],
  ])('both refuse a bad %s with the same message', (_, change, message) => {
    expect(judge(indicatorSpec, indicator(change))).toThrow(message);
    expect(judge(indicatorV2Spec, indicator(change))).toThrow(message);
  });

  it('a connection needs no declared schema (the planner reads the live one); v1 without a plan of its query is refused', () => {
    const live: Resource = { name: 'connections/live', connectionDetails: { sqldb: { host: 'db.internal', port: 5432 } } };
    const withLive = new Map([[live.name, live]]);
    const resource = indicator({ query: { connections: [live.name], engineSql: SQL } });
    expect(() => indicatorV2Spec.validate!(resource, { actor, refs: withLive })).not.toThrow();
    expect(() => indicatorSpec.validate!(resource, { actor, refs: withLive })).toThrow(/changed while it was being planned/);
    expect(() => indicatorSpec.validate!(resource, { actor, refs: withLive, facts: { [PLAN_FACT]: RATIO_PLAN(resource) } })).not.toThrow();
  });

  it('v2 requires a unit; v1 does not', () => {
    expect(judge(indicatorSpec, indicator({ unit: undefined }))).not.toThrow();
    expect(judge(indicatorV2Spec, indicator({ unit: undefined }))).toThrow(/unit is required for a v2 indicator/);
    expect(judge(indicatorV2Spec, indicator({ unit: ' ' }))).toThrow(/unit is required/);
  });

  it('v2 streams are not under the v1 stream prefix, and v2 relations have a read model of their own', () => {
    expect(`${indicatorV2Spec.kind.toLowerCase()}-`.startsWith(`${indicatorSpec.kind.toLowerCase()}-`)).toBe(false);
    expect(indicatorRelationV2Spec.store).toBe('indicator-relations-v2');
    expect(indicatorV2Spec.settable).toEqual(indicatorSpec.settable);
  });
});

describe('v2 indicator relations', () => {
  it('check both names by form only', () => {
    expect(() => judgeIndicatorRelationV2({ indicator: 'indicators-v2/a', resource: 'agents/x' })).not.toThrow();
    expect(() => judgeIndicatorRelationV2({ indicator: 'indicators-v2/a', resource: 'monitoring-plans/p' })).not.toThrow();
    expect(() => judgeIndicatorRelationV2({ indicator: 'indicators/a', resource: 'agents/x' })).toThrow(/indicators-v2\/\{id\}/);
    expect(() => judgeIndicatorRelationV2({ indicator: 'indicators-v2/a', resource: 'notes/x' })).toThrow(/must name an agent, issue/);
  });
});
