import type { Actor } from '../shared/decider';
import type { Resource } from '../shared/resource';
import { givenFor } from '../shared/testing';
import type { IndicatorPlan } from './indicator-contract';
import { activityOf, indicatorDecider, type IndicatorCommand, type IndicatorEvent } from './indicator.decider';

const given = givenFor(indicatorDecider);
const at = (now: string): Actor => ({ org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: ['INDICATORS_WRITE'], now });
const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-01-01T00:01:00.000Z';
const T2 = '2024-01-01T00:02:00.000Z';
const NAME = 'indicators/avail';
const SQL = 'SELECT TIMESTAMP_BUCKET(ts, @resolution) AS time, COUNTIF(ok) AS good_events, COUNT(*) AS total_events FROM requests WHERE ts >= @start_time AND ts < @end_time GROUP BY time';
const telemetry: Resource = { name: 'connections/telemetry', connectionDetails: { sqldb: { schema: { requests: { ts: 'TIMESTAMP', ok: 'BOOL' } } } } };
const refs = new Map([[telemetry.name, telemetry]]);
const body = { displayName: 'Availability', kind: 'INDICATOR_KIND_RATIO', query: { connections: [telemetry.name], engineSql: SQL } };
/** What the planner gives for a RATIO query (apps/api plans before sending the command). */
const RATIO_COLUMNS = [
  { name: 'time', type: 'TIMESTAMP WITH TIME ZONE' },
  { name: 'good_events', type: 'HUGEINT' },
  { name: 'total_events', type: 'BIGINT' },
];
const planOf = (engineSql: string, columns = RATIO_COLUMNS, connections = [telemetry.name]): IndicatorPlan => ({ engineSql, connections, columns });

const create: IndicatorCommand = { type: 'CreateIndicator', actor: at(T0), id: 'avail', resource: body, refs, relation: { id: 'r1', resource: 'agents/a' }, plan: planOf(SQL) };
const relation = (id: string, resource: string, time = T0) => ({
  type: 'IndicatorRelationAttached',
  data: { relation: { name: `indicatorRelations/${id}`, indicator: NAME, resource, createTime: time, updateTime: time } },
}) as unknown as IndicatorEvent;
const created = () => indicatorDecider.decide(create, indicatorDecider.initialState());

describe('indicator aggregate', () => {
  it('Create is the indicator and its first relation in one decision, validated at creation', () => {
    const events = given().when(create).then([
      {
        type: 'IndicatorCreated',
        data: { resource: { ...body, query: { ...body.query, status: { validateTime: T0 } }, name: NAME, createTime: T0, updateTime: T0 } },
      },
      relation('r1', 'agents/a'),
    ]);
    expect(events.map(activityOf)).toEqual(['Indicator created.', undefined]);
  });

  it('a relation is unique per resource among live ones; detached, it may be attached again', () => {
    const history = created();
    given(history).when({ type: 'AttachRelation', actor: at(T1), name: NAME, relation: { id: 'r2', resource: 'agents/a' } }).thenFails('ALREADY_EXISTS', /already related to 'agents\/a'/);
    const detached = [...history, { type: 'IndicatorRelationDetached', data: { relation: 'indicatorRelations/r1', deleteTime: T1 } } as unknown as IndicatorEvent];
    given(detached).when({ type: 'AttachRelation', actor: at(T2), name: NAME, relation: { id: 'r2', resource: 'agents/a' } }).then([relation('r2', 'agents/a', T2)]);
    given(detached).when({ type: 'DetachRelation', actor: at(T2), name: NAME, relation: 'indicatorRelations/r1' }).thenFails('NOT_FOUND');
  });

  it('Delete takes the live relations down with it; Undelete brings back exactly those', () => {
    const history = [
      ...created(),
      relation('r2', 'agents/b'),
      { type: 'IndicatorRelationDetached', data: { relation: 'indicatorRelations/r2', deleteTime: T1 } } as unknown as IndicatorEvent,
    ];
    const [deleted] = given(history).when({ type: 'DeleteIndicator', actor: at(T2), name: NAME }).then([
      { type: 'IndicatorDeleted', data: { deleteTime: T2, relations: ['indicatorRelations/r1'] } },
    ]);
    given([...history, deleted]).when({ type: 'UndeleteIndicator', actor: at(T2), name: NAME }).thenState((state, events) => {
      expect(events).toEqual([{ type: 'IndicatorUndeleted', data: { updateTime: T2, relations: ['indicatorRelations/r1'] } }]);
      expect(state.relations['indicatorRelations/r1'].deleteTime).toBeUndefined();
      expect(state.relations['indicatorRelations/r2'].deleteTime).toBe(T1);
      expect(events.map(activityOf)).toEqual(['Indicator restored.']);
    });
    expect(activityOf(deleted)).toBe('Indicator archived.');
    given([...history, deleted]).when({ type: 'AttachRelation', actor: at(T2), name: NAME, relation: { id: 'r3', resource: 'agents/c' } }).thenFails('NOT_FOUND');
  });

  it('Update carries its activity text (given or generic) and keeps the server-managed query status', () => {
    const update = (paths: string[], resource: Record<string, unknown>, activityDescription?: string, plan?: IndicatorPlan): IndicatorCommand => ({
      type: 'UpdateIndicator', actor: at(T1), name: NAME, resource, paths, refs, activityDescription, plan,
    });
    given(created()).when(update(['displayName'], { displayName: 'Avail' }, 'Renamed.')).thenState((state, events) => {
      expect(events.map(activityOf)).toEqual(['Renamed.']);
      expect(state.indicator.resource?.displayName).toBe('Avail');
    });
    given(created()).when(update(['query'], { query: { connections: [telemetry.name], engineSql: SQL.replace('COUNT(*)', 'COUNT(ts)') } }, undefined, planOf(SQL.replace('COUNT(*)', 'COUNT(ts)')))).thenState((state, events) => {
      expect(events.map(activityOf)).toEqual(['Indicator updated.']);
      expect((state.indicator.resource?.query as { status: unknown }).status).toEqual({ validateTime: T1 });
    });
    given(created()).when(update(['kind'], { kind: 'INDICATOR_KIND_GAUGE' }, undefined, planOf(SQL))).thenFails('INVALID_ARGUMENT', /lacks column value/);
  });

  it('a query is stored only with a plan of exactly that SQL whose columns meet the kind', () => {
    given().when({ ...create, plan: undefined } as IndicatorCommand).thenFails('ABORTED', /changed while it was being planned/);
    given().when({ ...create, plan: planOf(SQL.replace('COUNT(*)', 'COUNT(ts)')) } as IndicatorCommand).thenFails('ABORTED', /retry/);
    const textTime = [{ name: 'time', type: 'VARCHAR' }, ...RATIO_COLUMNS.slice(1)];
    given().when({ ...create, plan: planOf(SQL, textTime) } as IndicatorCommand).thenFails('INVALID_ARGUMENT', /column 'time' is VARCHAR: INDICATOR_KIND_RATIO needs a timestamp or a date there/);
    const textGood = [RATIO_COLUMNS[0], { name: 'good_events', type: 'VARCHAR' }, RATIO_COLUMNS[2]];
    given().when({ ...create, plan: planOf(SQL, textGood) } as IndicatorCommand).thenFails('INVALID_ARGUMENT', /column 'good_events' is VARCHAR: INDICATOR_KIND_RATIO needs a number there/);
    // A rename plans nothing: the query is unchanged.
    given(created()).when({ type: 'UpdateIndicator', actor: at(T1), name: NAME, resource: { displayName: 'Avail' }, paths: ['displayName'], refs }).then([
      { type: 'IndicatorUpdated', data: { set: { displayName: 'Avail' }, unset: [], updateTime: T1, activity: 'Indicator updated.' } } as unknown as IndicatorEvent,
    ]);
  });

  it('Update by nested query paths changes only the named sub-fields, plans the query again, and keeps the rest', () => {
    const narrower = SQL.replace('COUNT(*)', 'COUNT(ts)');
    const update = (paths: string[], query: Record<string, unknown>): IndicatorCommand => ({ type: 'UpdateIndicator', actor: at(T1), name: NAME, resource: { query }, paths, refs, plan: planOf(narrower) });
    // The request's other query fields are not read: only engineSql changes.
    given(created()).when(update(['query.engineSql'], { engineSql: narrower, connections: ['connections/elsewhere'], description: 'ignored' })).thenState((state, events) => {
      expect(events).toMatchObject([{ type: 'IndicatorUpdated', data: { set: { 'query.engineSql': narrower, 'query.status.validateTime': T1 } } }]);
      expect(state.indicator.resource?.query).toEqual({ connections: [telemetry.name], engineSql: narrower, status: { validateTime: T1 } });
    });
    given(created()).when(update(['query.description'], { description: 'Checkout requests' })).thenState((state) => {
      expect(state.indicator.resource?.query).toMatchObject({ connections: [telemetry.name], engineSql: SQL, description: 'Checkout requests' });
    });
    // A nested change is checked as the whole query: connections that leave the SQL's tables unknown are refused.
    given(created()).when(update(['query.connections'], { connections: [] })).thenFails('INVALID_ARGUMENT');
  });

  it('the same query error text twice writes one activity; purge needs a soft-deleted indicator and frees nothing', () => {
    const report = (now: string): IndicatorCommand => ({ type: 'ReportQueryError', actor: at(now), name: NAME, error: 'table missing' });
    const first = given(created()).when(report(T1)).then([
      { type: 'IndicatorQueryErrorReported', data: { error: 'table missing', activity: 'Query error reported: table missing', set: { 'query.status.error': 'table missing', 'query.status.validateTime': T1 }, unset: [], updateTime: T1 } },
    ]);
    given([...created(), ...first]).when(report(T2)).thenState((state, events) => {
      expect(events.map(activityOf)).toEqual([undefined]);
      expect((state.indicator.resource?.query as { status: unknown }).status).toEqual({ validateTime: T2, error: 'table missing' });
    });
    given(created()).when({ type: 'PurgeIndicator', actor: at(T1), name: NAME }).thenFails('FAILED_PRECONDITION', /not deleted/);
    const deleted = [...created(), { type: 'IndicatorDeleted', data: { deleteTime: T1, relations: ['indicatorRelations/r1'] } } as IndicatorEvent];
    const purged = given(deleted).when({ type: 'PurgeIndicator', actor: at(T2), name: NAME }).then([
      { type: 'IndicatorPurged', data: { purgeTime: T2, relations: ['indicatorRelations/r1'] } } as unknown as IndicatorEvent,
    ]);
    given([...deleted, ...purged]).when({ type: 'UndeleteIndicator', actor: at(T2), name: NAME }).thenFails('NOT_FOUND');
    given([...deleted, ...purged]).when(create).thenFails('ALREADY_EXISTS', /purged/);
  });
});
